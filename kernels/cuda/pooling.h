#pragma once
// The CUDA entry points of the pooling family (kernels/common/pooling_kernels.h
// says what each computes and what the op has checked), registered in
// kernels/cuda/register_kernels.cu: the CPU's plus the fused max_pool2d
// backward, in kernels/cuda/pooling_kernels.cu.
#include "ember/core/tensor.h"
#include "ember/kernels/common/pooling_functors.h"

namespace ember::cuda {

void max_pool2d(const Tensor& x, const Tensor& out, const Tensor& indices,
                const functors::PoolWindow& w);
// grad_in (P, H, W) = each gradient of grad_out (P, OH, OW) added at its
// window's argmax (indices). Gather form: each input element sums the outputs
// whose window covers it and chose it, so there are no atomics and the sums
// are deterministic.
void max_pool2d_backward(const Tensor& grad_out, const Tensor& indices, const Tensor& grad_in,
                         const functors::PoolWindow& w);
void avg_pool2d(const Tensor& x, const Tensor& out, const functors::PoolWindow& w,
                bool count_include_pad);
// Gather form, as max_pool2d_backward.
void avg_pool2d_backward(const Tensor& grad_out, const Tensor& grad_in,
                         const functors::PoolWindow& w, bool count_include_pad);
void adaptive_avg_pool2d(const Tensor& x, const Tensor& out);
// Gather form, as max_pool2d_backward.
void adaptive_avg_pool2d_backward(const Tensor& grad_out, const Tensor& grad_in);
void adaptive_max_pool2d(const Tensor& x, const Tensor& out, const Tensor& indices);

}  // namespace ember::cuda
