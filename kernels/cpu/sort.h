#pragma once
// The CPU kernels of core/ops/sort.cpp: per-row orderings of a contiguous x
// seen as (outer, n, inner), a row being the n elements along the sorted dim.
// Each writes int64 indices (positions along the dim) into a contiguous out
// of shape (outer, m, inner). The order is kernels/common/sort_functors.h's:
// NaN largest, ties in input order.
#include <cstdint>

#include "ember/core/tensor.h"

namespace ember::cpu {

struct SortRows {
  int64_t outer = 1, n = 1, inner = 1;
};

// m = n: the whole row in ascending or descending order.
void sort_indices(const Tensor& out, const Tensor& x, SortRows r, bool descending);
// m = k: the k largest (or smallest) elements, in order when `sorted`
// (otherwise in no particular order), by a partial selection.
void topk_indices(const Tensor& out, const Tensor& x, SortRows r, int64_t k, bool largest,
                  bool sorted);
// m = 1: the element at 0-based position `pos` of the ascending row; with
// nan_wins, a row holding NaN gives its first NaN instead (median's rule).
void kth_indices(const Tensor& out, const Tensor& x, SortRows r, int64_t pos, bool nan_wins);

}  // namespace ember::cpu
