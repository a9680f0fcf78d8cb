#pragma once
// The cumulative sum, product, log-sum-exp, max and min on CUDA tensors: the device half of
// core/ops/scan.cpp. in and out are contiguous, of one dtype (int64, float32,
// float64; any dtype for cummax/cummin), seen as (outer, n, inner) with the scan along n. Without the CUDA
// backend it raises an Error.
#include "ember/core/tensor.h"

namespace ember::cuda {

void scan_kernel(const char* name, bool is_prod, const Tensor& out, const Tensor& in,
                 int64_t outer, int64_t n, int64_t inner);
// logcumsumexp: float32 or float64.
void logcumsumexp_kernel(const Tensor& out, const Tensor& in, int64_t outer, int64_t n,
                         int64_t inner);
// cummax (is_max) or cummin: values of in's dtype (any), indices int64.
void cum_extreme_kernel(const char* name, bool is_max, const Tensor& values,
                        const Tensor& indices, const Tensor& in, int64_t outer, int64_t n,
                        int64_t inner);

}  // namespace ember::cuda
