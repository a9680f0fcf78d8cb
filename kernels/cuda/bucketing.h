#pragma once
// The CUDA entry points of the bucketing family
// (kernels/common/bucketing_kernels.h says what each computes), in
// bucketing_kernels.cu next to their kernels, registered in
// kernels/cuda/register_kernels.cu. No host sync.
#include "ember/kernels/common/bucketing_kernels.h"

namespace ember::cuda {

void searchsorted(const Tensor& out, const Tensor& seq, const Tensor& values, const Tensor& sorter,
                  int64_t seq_rows, int64_t n, bool right);
void bincount(const Tensor& out, const Tensor& x, const Tensor& weights);
void histc(const Tensor& out, const Tensor& x, double lo, double hi);

}  // namespace ember::cuda
