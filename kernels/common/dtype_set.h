#pragma once
// The dtype sets an op table names for each op ("which dtypes does its kernel
// take"), and the dispatch that enforces one: the CPU and CUDA kernels of a
// family both dispatch through dispatch_dtypes with the set of the op's table
// row, so the two backends cannot disagree.
#include "ember/core/dtype.h"

namespace ember {

enum class DtypeSet {
  kAll,       // bool, int64, float32, float64
  kNumeric,   // int64, float32, float64
  kIntegral,  // bool, int64
  kFloating,  // float32, float64
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

// f.template operator()<T>() for the C++ type T of t, or the Error of the
// dispatch_* that `Set` names when t is not in it.
template <DtypeSet Set, typename F>
decltype(auto) dispatch_dtypes(ScalarType t, const char* op, F&& f) {
  if constexpr (Set == DtypeSet::kAll) return dispatch_all(t, op, f);
  else if constexpr (Set == DtypeSet::kNumeric) return dispatch_numeric(t, op, f);
  else if constexpr (Set == DtypeSet::kIntegral) return dispatch_integral(t, op, f);
  else return dispatch_floating(t, op, f);
}

}  // namespace ember
