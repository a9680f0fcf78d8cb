#pragma once
// The CUDA entry points of the pooling family (kernels/common/pooling_kernels.h
// says what each computes and what the op has checked), registered in
// kernels/cuda/register_kernels.cu: the CPU's plus the fused max_pool2d
// backward, in kernels/cuda/pooling_kernels.cu.
#include "ember/core/tensor.h"
#include "ember/kernels/common/pooling_functors.h"
#include "ember/kernels/common/pooling_kernels.h"

namespace ember::cuda {

decltype(PoolingKernels::max_pool2d)::Signature max_pool2d;
// grad_in (P, H, W) = each gradient of grad_out (P, OH, OW) added at its
// window's argmax (indices). Gather form: each input element sums the outputs
// whose window covers it and chose it, so there are no atomics and the sums
// are deterministic.
decltype(PoolingKernels::max_pool2d_backward)::Signature max_pool2d_backward;
decltype(PoolingKernels::avg_pool2d)::Signature avg_pool2d;
// Gather form, as max_pool2d_backward.
decltype(PoolingKernels::avg_pool2d_backward)::Signature avg_pool2d_backward;
decltype(PoolingKernels::adaptive_avg_pool2d)::Signature adaptive_avg_pool2d;
// Gather form, as max_pool2d_backward.
decltype(PoolingKernels::adaptive_avg_pool2d_backward)::Signature adaptive_avg_pool2d_backward;
decltype(PoolingKernels::adaptive_max_pool2d)::Signature adaptive_max_pool2d;

}  // namespace ember::cuda
