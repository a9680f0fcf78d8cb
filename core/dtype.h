#pragma once
// Element types and PyTorch's promotion rules. dispatch_* call a templated
// lambda with the C++ type of a runtime dtype:
//   dispatch_all(t.dtype(), "add", [&]<typename T>() { ... });
#include <cstdint>
#include <ostream>

#include "ember/core/error.h"

namespace ember {

enum class ScalarType : int8_t { Bool = 0, Long = 1, Float = 2, Double = 3 };
using Dtype = ScalarType;

constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kLong = ScalarType::Long;
constexpr ScalarType kInt64 = ScalarType::Long;
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kFloat32 = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double;
constexpr ScalarType kFloat64 = ScalarType::Double;

constexpr size_t element_size(ScalarType t) {
  switch (t) {
    case kBool: return 1;
    case kLong: return 8;
    case kFloat: return 4;
    case kDouble: return 8;
  }
  return 0;
}
constexpr bool is_floating_point(ScalarType t) { return t == kFloat || t == kDouble; }
constexpr bool is_integral(ScalarType t, bool include_bool) {
  return t == kLong || (include_bool && t == kBool);
}
const char* dtype_name(ScalarType t);  // "float32", "float64", "int64", "bool"
std::ostream& operator<<(std::ostream& os, ScalarType t);

// Promotion between two tensors of the same category rank: bool < int64 <
// float32 < float64, as torch.promote_types for the dtypes ember has.
constexpr ScalarType promote_types(ScalarType a, ScalarType b) {
  return static_cast<int8_t>(a) > static_cast<int8_t>(b) ? a : b;
}

template <typename T> struct CppTypeToScalarType;
template <> struct CppTypeToScalarType<bool> { static constexpr ScalarType value = kBool; };
template <> struct CppTypeToScalarType<int64_t> { static constexpr ScalarType value = kLong; };
template <> struct CppTypeToScalarType<float> { static constexpr ScalarType value = kFloat; };
template <> struct CppTypeToScalarType<double> { static constexpr ScalarType value = kDouble; };
template <typename T>
constexpr ScalarType scalar_type_of = CppTypeToScalarType<T>::value;

[[noreturn]] void dtype_not_supported(const char* op, ScalarType t, const char* which);

template <typename F>
decltype(auto) dispatch_all(ScalarType t, const char* op, F&& f) {
  switch (t) {
    case kBool: return f.template operator()<bool>();
    case kLong: return f.template operator()<int64_t>();
    case kFloat: return f.template operator()<float>();
    case kDouble: return f.template operator()<double>();
  }
  dtype_not_supported(op, t, "any dtype");
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
