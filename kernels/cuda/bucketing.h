#pragma once
// searchsorted, bincount and histc on CUDA tensors: the device half of
// core/ops/bucketing.cpp, with the arguments of kernels/cpu/bucketing.h (all
// tensors contiguous, on one device). No host sync. Without the CUDA backend
// they raise.
#include "ember/core/tensor.h"

namespace ember::cuda {

void searchsorted(const Tensor& out, const Tensor& seq, const Tensor& values, const Tensor& sorter,
                  int64_t seq_rows, int64_t n, bool right);
void bincount(const Tensor& out, const Tensor& x, const Tensor& weights);
void histc(const Tensor& out, const Tensor& x, double lo, double hi);

}  // namespace ember::cuda
