#pragma once
// The CUDA entry points of the scan family (kernels/common/scan_kernels.h says
// what each computes): one thread per line walking it with
// kernels/common/scan_functors.h, in kernels/cuda/scan_kernels.cu. Registered
// in kernels/cuda/register_kernels.cu.
#include "ember/kernels/common/scan_kernels.h"

namespace ember::cuda {

void scan_kernel(const char* name, bool is_prod, const Tensor& out, const Tensor& in,
                 int64_t outer, int64_t n, int64_t inner);
void logcumsumexp_kernel(const Tensor& out, const Tensor& in, int64_t outer, int64_t n,
                         int64_t inner);
void cum_extreme_kernel(const char* name, bool is_max, const Tensor& values,
                        const Tensor& indices, const Tensor& in, int64_t outer, int64_t n,
                        int64_t inner);

}  // namespace ember::cuda
