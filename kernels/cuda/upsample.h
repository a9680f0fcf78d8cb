#pragma once
// The CUDA entry points of the upsample family (kernels/common/
// upsample_kernels.h says what each computes and what the op has checked), in
// kernels/cuda/upsample_kernels.cu, registered in kernels/cuda/register_kernels.cu.
#include "ember/core/tensor.h"
#include "ember/kernels/common/upsample_kernels.h"

namespace ember::cuda {

decltype(UpsampleKernels::nearest2d)::Signature upsample_nearest2d;
// Gather form: each input element sums the run of outputs that copied it.
decltype(UpsampleKernels::nearest2d_backward)::Signature upsample_nearest2d_backward;
decltype(UpsampleKernels::bilinear2d)::Signature upsample_bilinear2d;
// Scatter form with atomicAdd (each output spreads over 4 inputs): the float
// sums' order, and so their last bits, may vary between runs.
decltype(UpsampleKernels::bilinear2d_backward)::Signature upsample_bilinear2d_backward;

}  // namespace ember::cuda
