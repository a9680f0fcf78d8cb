#pragma once
// The upsampling kernels on CUDA tensors: the device half of
// core/ops/upsample.cpp, with kernels/cpu/upsample.h's contracts. Without the
// CUDA backend each raises an Error.
#include "ember/core/tensor.h"

namespace ember::cuda {

void upsample_nearest2d(const Tensor& x, const Tensor& out);
// Gather form: each input element sums the run of outputs that copied it.
void upsample_nearest2d_backward(const Tensor& grad_out, const Tensor& grad_in);
void upsample_bilinear2d(const Tensor& x, const Tensor& out, bool align_corners);
// Scatter form with atomicAdd (each output spreads over 4 inputs): the float
// sums' order, and so their last bits, may vary between runs.
void upsample_bilinear2d_backward(const Tensor& grad_out, const Tensor& grad_in,
                                  bool align_corners);

}  // namespace ember::cuda
