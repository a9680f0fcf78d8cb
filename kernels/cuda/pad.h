#pragma once
// The CUDA entry points of the pad family (kernels/common/pad_kernels.h says
// what each computes and what the op has checked), in kernels/cuda/
// pad_kernels.cu, registered in kernels/cuda/register_kernels.cu.
#include "ember/core/tensor.h"
#include "ember/kernels/common/pad_functors.h"

namespace ember::cuda {

void pad_axis(const Tensor& x, const functors::PadAxis& a, int64_t inner, double value,
              const Tensor& out);
// Gather form, as the CPU's: each input element sums the outputs that copied it.
void pad_axis_backward(const Tensor& grad_out, const functors::PadAxis& a, int64_t inner,
                       const Tensor& grad_in);

}  // namespace ember::cuda
