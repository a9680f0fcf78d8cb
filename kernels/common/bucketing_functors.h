#pragma once
// The per-element maths of searchsorted/bucketize and histc, shared by the CPU
// (kernels/cpu/bucketing.cpp) and CUDA (kernels/cuda/bucketing_kernels.cu)
// kernels.
#include <cstdint>

#include "ember/kernels/common/macros.h"

namespace ember::functors {

// The insertion point of v in the ascending row seq[0 .. n) (read through
// sorter when it is not null): the first i with seq[i] >= v (> v when right).
// Written with negated comparisons so that a NaN v, or a NaN in the row
// (sorted last), sends the search to the right, as PyTorch.
template <typename T>
EMBER_HOST_DEVICE int64_t search_sorted(const T* seq, const int64_t* sorter, int64_t n, T v,
                                        bool right) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    const T s = sorter ? seq[sorter[mid]] : seq[mid];
    const bool go_right = right ? !(s > v) : !(s >= v);
    if (go_right)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// The histc bin of x among `bins` equal bins over [lo, hi] (hi > lo), or -1
// when x is outside (NaN included). x == hi falls in the last bin.
template <typename T>
EMBER_HOST_DEVICE int64_t histc_bin(T x, T lo, T hi, int64_t bins) {
  if (!(x >= lo && x <= hi)) return -1;
  const int64_t b = static_cast<int64_t>((x - lo) / (hi - lo) * static_cast<T>(bins));
  return b >= bins ? bins - 1 : b;
}

}  // namespace ember::functors
