#pragma once
// The sort kernel family (Note [Kernel tables]): per-row orderings for sort,
// argsort, msort, topk, kthvalue and median, one slot per device. The op has
// wrapped the dim, refused bool where the op does, skipped empty tensors and
// made x contiguous; x is seen as (outer, n, inner), a row being the n
// elements along the dim. Each kernel writes int64 positions along the dim
// into a contiguous `indices` of shape (outer, m, inner), in the order of
// kernels/common/sort_functors.h (NaN largest, ties in input order). Every
// dtype is accepted. The values are the op's gather.
#include <cstdint>

#include "ember/core/tensor.h"
#include "ember/kernels/common/kernel_table.h"

namespace ember {

// The rows of a sort: x contiguous as (outer, n, inner), sorted along n.
struct SortRows {
  int64_t outer = 1, n = 1, inner = 1;
};

struct SortKernels {
  // m = n: each whole row in ascending or descending order (sort, argsort).
  Kernel<void(const Tensor& indices, const Tensor& x, SortRows r, bool descending)> sort;
  // m = k (0 <= k <= n, checked; 1 for a 0-d x): the k largest (smallest when !largest)
  // elements, in order when `sorted` (otherwise in no particular order).
  Kernel<void(const Tensor& indices, const Tensor& x, SortRows r, int64_t k, bool largest,
              bool sorted)>
      topk;
  // m = 1: the element at 0-based position pos (< n, checked) of the
  // ascending row (kthvalue); with nan_wins, a row holding NaN gives its
  // first NaN instead (median's rule).
  Kernel<void(const Tensor& indices, const Tensor& x, SortRows r, int64_t pos, bool nan_wins)>
      kth;
};

}  // namespace ember
