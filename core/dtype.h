#pragma once
// Element types and PyTorch's promotion rules. dispatch_* call a templated
// lambda with the C++ type of a runtime dtype:
//   dispatch_all(t.dtype(), "add", [&]<typename T>() { ... });
#include <cstdint>
#include <ostream>

#include "ember/core/error.h"
#include "ember/core/reduced_float.h"

namespace ember {

// The values are ember's own (nothing stores them); the names are libtorch's.
enum class ScalarType : int8_t {
  Bool = 0,
  Long = 1,
  Float = 2,
  Double = 3,
  Byte = 4,      // uint8
  Char = 5,      // int8
  Short = 6,     // int16
  Int = 7,       // int32
  Half = 8,      // float16
  BFloat16 = 9,
};
using Dtype = ScalarType;
constexpr int kNumScalarTypes = 10;

constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kByte = ScalarType::Byte;
constexpr ScalarType kUInt8 = ScalarType::Byte;
constexpr ScalarType kChar = ScalarType::Char;
constexpr ScalarType kInt8 = ScalarType::Char;
constexpr ScalarType kShort = ScalarType::Short;
constexpr ScalarType kInt16 = ScalarType::Short;
constexpr ScalarType kInt = ScalarType::Int;
constexpr ScalarType kInt32 = ScalarType::Int;
constexpr ScalarType kLong = ScalarType::Long;
constexpr ScalarType kInt64 = ScalarType::Long;
constexpr ScalarType kHalf = ScalarType::Half;
constexpr ScalarType kFloat16 = ScalarType::Half;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kFloat32 = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double;
constexpr ScalarType kFloat64 = ScalarType::Double;

constexpr size_t element_size(ScalarType t) {
  switch (t) {
    case kBool: case kByte: case kChar: return 1;
    case kShort: case kHalf: case kBFloat16: return 2;
    case kInt: case kFloat: return 4;
    case kLong: case kDouble: return 8;
  }
  return 0;
}
constexpr bool is_reduced_floating_point(ScalarType t) { return t == kHalf || t == kBFloat16; }
constexpr bool is_floating_point(ScalarType t) {
  return t == kFloat || t == kDouble || is_reduced_floating_point(t);
}
constexpr bool is_integral(ScalarType t, bool include_bool) {
  return t == kLong || t == kInt || t == kShort || t == kChar || t == kByte ||
         (include_bool && t == kBool);
}
constexpr bool is_signed(ScalarType t) { return t != kBool && t != kByte; }
// "float32", "bfloat16", "uint8", ... (Python's torch.float32 without "torch.")
const char* dtype_name(ScalarType t);
std::ostream& operator<<(std::ostream& os, ScalarType t);

// torch.promote_types: bool < integers < floating types; within integers the
// wider wins and uint8 with int8 gives int16; within floats the wider wins and
// float16 with bfloat16 gives float32 (neither holds the other's values).
constexpr ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (a == kBool) return b;
  if (b == kBool) return a;
  const bool fa = is_floating_point(a), fb = is_floating_point(b);
  if (fa != fb) return fa ? a : b;
  if (fa) {
    if (is_reduced_floating_point(a) && is_reduced_floating_point(b)) return kFloat;
    return element_size(a) > element_size(b) ? a : b;
  }
  if ((a == kByte && b == kChar) || (a == kChar && b == kByte)) return kShort;
  return element_size(a) > element_size(b) ? a : b;
}

template <typename T> struct CppTypeToScalarType;
template <> struct CppTypeToScalarType<bool> { static constexpr ScalarType value = kBool; };
template <> struct CppTypeToScalarType<uint8_t> { static constexpr ScalarType value = kByte; };
template <> struct CppTypeToScalarType<int8_t> { static constexpr ScalarType value = kChar; };
template <> struct CppTypeToScalarType<int16_t> { static constexpr ScalarType value = kShort; };
template <> struct CppTypeToScalarType<int32_t> { static constexpr ScalarType value = kInt; };
template <> struct CppTypeToScalarType<int64_t> { static constexpr ScalarType value = kLong; };
template <> struct CppTypeToScalarType<Half> { static constexpr ScalarType value = kHalf; };
template <> struct CppTypeToScalarType<BFloat16> { static constexpr ScalarType value = kBFloat16; };
template <> struct CppTypeToScalarType<float> { static constexpr ScalarType value = kFloat; };
template <> struct CppTypeToScalarType<double> { static constexpr ScalarType value = kDouble; };
template <typename T>
constexpr ScalarType scalar_type_of = CppTypeToScalarType<T>::value;

[[noreturn]] void dtype_not_supported(const char* op, ScalarType t, const char* which);

// f.template operator()<T>() for the C++ storage type T of any dtype: for
// kernels that move or convert elements (copy, fill, printing, item()).
template <typename F>
decltype(auto) dispatch_storage(ScalarType t, const char* op, F&& f) {
  switch (t) {
    case kBool: return f.template operator()<bool>();
    case kByte: return f.template operator()<uint8_t>();
    case kChar: return f.template operator()<int8_t>();
    case kShort: return f.template operator()<int16_t>();
    case kInt: return f.template operator()<int32_t>();
    case kLong: return f.template operator()<int64_t>();
    case kHalf: return f.template operator()<Half>();
    case kBFloat16: return f.template operator()<BFloat16>();
    case kFloat: return f.template operator()<float>();
    case kDouble: return f.template operator()<double>();
  }
  dtype_not_supported(op, t, "any dtype");
}

// The type an elementwise kernel computes in for elements of dtype t: float
// for the 16-bit floats, int64 for every integer type (results wrap to the
// narrower type on store, as the narrow arithmetic would), t otherwise.
// Kernels are compiled for these four compute types only and convert on load
// and store (Note [Reduced-precision floats are storage types]).
constexpr ScalarType compute_dtype(ScalarType t) {
  if (is_reduced_floating_point(t)) return kFloat;
  if (is_integral(t, /*include_bool=*/false)) return kLong;
  return t;
}

// The dispatch_* below take the dtypes that kernels of every family compute
// in natively: bool, int64, float32, float64. A family that takes the other
// dtypes dispatches on compute_dtype or with dispatch_storage.
template <typename F>
decltype(auto) dispatch_all(ScalarType t, const char* op, F&& f) {
  switch (t) {
    case kBool: return f.template operator()<bool>();
    case kLong: return f.template operator()<int64_t>();
    case kFloat: return f.template operator()<float>();
    case kDouble: return f.template operator()<double>();
    default: dtype_not_supported(op, t, "bool, int64, float32 or float64");
  }
}

// Arithmetic types: everything but bool.
template <typename F>
decltype(auto) dispatch_numeric(ScalarType t, const char* op, F&& f) {
  switch (t) {
    case kLong: return f.template operator()<int64_t>();
    case kFloat: return f.template operator()<float>();
    case kDouble: return f.template operator()<double>();
    default: dtype_not_supported(op, t, "int64, float32 or float64");
  }
}

// Bool and integer types: the bitwise ops.
template <typename F>
decltype(auto) dispatch_integral(ScalarType t, const char* op, F&& f) {
  switch (t) {
    case kBool: return f.template operator()<bool>();
    case kLong: return f.template operator()<int64_t>();
    default: dtype_not_supported(op, t, "bool or int64");
  }
}

template <typename F>
decltype(auto) dispatch_floating(ScalarType t, const char* op, F&& f) {
  switch (t) {
    case kFloat: return f.template operator()<float>();
    case kDouble: return f.template operator()<double>();
    default: dtype_not_supported(op, t, "float32 or float64");
  }
}

}  // namespace ember
