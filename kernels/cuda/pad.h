#pragma once
// The CUDA entry points of the pad family (kernels/common/pad_kernels.h says
// what each computes and what the op has checked), in kernels/cuda/
// pad_kernels.cu, registered in kernels/cuda/register_kernels.cu.
#include "ember/core/tensor.h"
#include "ember/kernels/common/pad_functors.h"
#include "ember/kernels/common/pad_kernels.h"

namespace ember::cuda {

decltype(PadKernels::axis)::Signature pad_axis;
// Gather form, as the CPU's: each input element sums the outputs that copied it.
decltype(PadKernels::axis_backward)::Signature pad_axis_backward;

}  // namespace ember::cuda
