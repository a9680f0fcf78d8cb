#pragma once
// The CUDA entry points of the sort family (kernels/common/sort_kernels.h says
// what each computes). Each sorts whole rows made contiguous (the dim moved
// last when inner > 1) in kernels/cuda/sort_kernels.cu; topk keeps the first k
// positions of each sorted row and kth picks one. No host sync. Registered in
// kernels/cuda/register_kernels.cu.
#include "ember/kernels/common/sort_kernels.h"

namespace ember::cuda {

decltype(SortKernels::sort)::Signature sort_kernel;
decltype(SortKernels::topk)::Signature topk_kernel;
decltype(SortKernels::kth)::Signature kth_kernel;

}  // namespace ember::cuda
