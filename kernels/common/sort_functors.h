#pragma once
// The order of sort, argsort, topk, kthvalue and median, shared by the CPU
// (kernels/cpu/sort.cpp) and CUDA (kernels/cuda/sort_kernels.cu) kernels:
// NaN is larger than every number (+inf included) and NaNs are equal to each
// other, as PyTorch; equal elements keep their order in the input, because
// ties are broken by the element's index. Comparing (value, index) pairs makes
// any sort stable.
#include "ember/kernels/common/macros.h"

namespace ember::functors {

// a < b with NaN largest. x != x is false for integers and bool.
template <typename T>
EMBER_HOST_DEVICE bool nan_last_less(T a, T b) {
  return a < b || (b != b && a == a);
}

// Whether element (a, ia) comes before (b, ib) in the sorted row.
template <typename T, typename I>
EMBER_HOST_DEVICE bool sort_before(T a, I ia, T b, I ib, bool descending) {
  const bool less = descending ? nan_last_less(b, a) : nan_last_less(a, b);
  const bool greater = descending ? nan_last_less(a, b) : nan_last_less(b, a);
  return less || (!greater && ia < ib);
}

}  // namespace ember::functors
