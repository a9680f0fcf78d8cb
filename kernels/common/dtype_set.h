#pragma once
// The dtype sets an op table names for each op ("which dtypes does its kernel
// take"), and the dispatch that enforces one: the CPU and CUDA kernels of a
// family both dispatch through dispatch_compute with the set of the op's
// table row, so the two backends cannot disagree.
#include <type_traits>

#include "ember/core/dtype.h"

namespace ember {

enum class DtypeSet {
  kAll,       // every dtype
  kNumeric,   // every dtype but bool
  kIntegral,  // bool and the integer types
  kFloating,  // float16, bfloat16, float32, float64
};

constexpr bool accepts(DtypeSet set, ScalarType t) {
  switch (set) {
    case DtypeSet::kAll: return true;
    case DtypeSet::kNumeric: return t != kBool;
    case DtypeSet::kIntegral: return is_integral(t, /*include_bool=*/true);
    case DtypeSet::kFloating: return is_floating_point(t);
  }
  return false;
}

constexpr const char* describe(DtypeSet set) {
  switch (set) {
    case DtypeSet::kAll: return "any dtype";
    case DtypeSet::kNumeric: return "a dtype other than bool";
    case DtypeSet::kIntegral: return "bool or an integer dtype";
    case DtypeSet::kFloating: return "a floating dtype";
  }
  return "";
}

// f.template operator()<C>() for the compute type C of t (compute_dtype:
// bool, int64_t, float or double), or an Error when t is not in `Set`. The
// kernels of an op table dispatch this way: one instantiation per compute
// type, and they convert elements of the other dtypes on load and store
// (kernels/cpu/compute_loops.h, kernels/cuda/loops.cuh).
template <DtypeSet Set, typename F>
decltype(auto) dispatch_compute(ScalarType t, const char* op, F&& f) {
  if (!accepts(Set, t)) [[unlikely]]
    dtype_not_supported(op, t, describe(Set));
  const ScalarType c = compute_dtype(t);
  if constexpr (Set == DtypeSet::kAll) return dispatch_all(c, op, f);
  else if constexpr (Set == DtypeSet::kNumeric) return dispatch_numeric(c, op, f);
  else if constexpr (Set == DtypeSet::kIntegral) return dispatch_integral(c, op, f);
  else return dispatch_floating(c, op, f);
}

// f.template operator()<T>() for the storage type T of t, for the families
// whose kernels take the four dtypes every kernel computes in natively
// (bool, int64, float32, float64) and not yet the others: the set's
// members among those, or the Error of the dispatch_* that `Set` names.
template <DtypeSet Set, typename F>
decltype(auto) dispatch_dtypes(ScalarType t, const char* op, F&& f) {
  if constexpr (Set == DtypeSet::kAll) return dispatch_all(t, op, f);
  else if constexpr (Set == DtypeSet::kNumeric) return dispatch_numeric(t, op, f);
  else if constexpr (Set == DtypeSet::kIntegral) return dispatch_integral(t, op, f);
  else return dispatch_floating(t, op, f);
}

// f.template operator()<T>() for the storage type T of any dtype but bool:
// kernels that add or compare elements in their own dtype (scatter_add's +=).
template <typename F>
decltype(auto) dispatch_numeric_storage(ScalarType t, const char* op, F&& f) {
  if (t == kBool) dtype_not_supported(op, t, "a dtype other than bool");
  return dispatch_storage(t, op, [&]<typename T>() -> decltype(auto) {
    // bool never gets here; int64_t keeps the return type of every branch alike.
    using U = std::conditional_t<std::is_same_v<T, bool>, int64_t, T>;
    return f.template operator()<U>();
  });
}

// f.template operator()<S>() for the storage type S of a floating dtype
// (Half, BFloat16, float, double): for kernels that read 16-bit elements as
// float themselves (opmath_t<S>) and round once on store.
template <typename F>
decltype(auto) dispatch_floating_storage(ScalarType t, const char* op, F&& f) {
  switch (t) {
    case kHalf: return f.template operator()<Half>();
    case kBFloat16: return f.template operator()<BFloat16>();
    case kFloat: return f.template operator()<float>();
    case kDouble: return f.template operator()<double>();
    default: dtype_not_supported(op, t, describe(DtypeSet::kFloating));
  }
}

// f.template operator()<U>() with U the unsigned integer type of t's element
// size: for kernels that only move elements (gather, scatter), compiled once
// per size rather than once per dtype.
template <typename F>
decltype(auto) dispatch_element_bits(ScalarType t, F&& f) {
  switch (element_size(t)) {
    case 1: return f.template operator()<uint8_t>();
    case 2: return f.template operator()<uint16_t>();
    case 4: return f.template operator()<uint32_t>();
    default: return f.template operator()<uint64_t>();
  }
}

}  // namespace ember
