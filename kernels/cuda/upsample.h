#pragma once
// The CUDA entry points of the upsample family (kernels/common/
// upsample_kernels.h says what each computes and what the op has checked), in
// kernels/cuda/upsample_kernels.cu, registered in kernels/cuda/register_kernels.cu.
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
