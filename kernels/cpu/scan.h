#pragma once
// The CPU entry points of the scan family (kernels/common/scan_kernels.h says
// what each computes): the line functions of kernels/common/scan_functors.h,
// one line after another. Registered in kernels/cpu/register_kernels.cpp.
#include "ember/kernels/common/scan_kernels.h"

namespace ember::cpu {

void scan_kernel(const char* name, bool is_prod, const Tensor& out, const Tensor& in,
                 int64_t outer, int64_t n, int64_t inner);
void logcumsumexp_kernel(const Tensor& out, const Tensor& in, int64_t outer, int64_t n,
                         int64_t inner);
void cum_extreme_kernel(const char* name, bool is_max, const Tensor& values,
                        const Tensor& indices, const Tensor& in, int64_t outer, int64_t n,
                        int64_t inner);

}  // namespace ember::cpu
