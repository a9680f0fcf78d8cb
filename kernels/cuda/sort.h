#pragma once
// Row sorting on CUDA tensors: the device half of core/ops/sort.cpp.
// x is contiguous (rows, n), any dtype; indices (int64, contiguous (rows, n))
// receives each row's positions in the order of kernels/common/sort_functors.h
// (NaN largest, stable). No host sync. Without the CUDA backend it raises.
#include "ember/core/tensor.h"

namespace ember::cuda {

void sort_kernel(const Tensor& indices, const Tensor& x, int64_t rows, int64_t n, bool descending);

}  // namespace ember::cuda
