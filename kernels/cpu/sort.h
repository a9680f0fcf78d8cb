#pragma once
// The CPU entry points of the sort family (kernels/common/sort_kernels.h says
// what each computes): per-row orderings of a contiguous x seen as
// (outer, n, inner), by std::sort, partial_sort and nth_element along the
// dim. Registered in kernels/cpu/register_kernels.cpp.
#include <cstdint>

#include "ember/kernels/common/sort_kernels.h"

namespace ember::cpu {

// m = n: the whole row in ascending or descending order.
decltype(SortKernels::sort)::Signature sort_indices;
// m = k: the k largest (or smallest) elements, in order when `sorted`
// (otherwise in no particular order), by a partial selection.
decltype(SortKernels::topk)::Signature topk_indices;
// m = 1: the element at 0-based position `pos` of the ascending row; with
// nan_wins, a row holding NaN gives its first NaN instead (median's rule).
decltype(SortKernels::kth)::Signature kth_indices;

}  // namespace ember::cpu
