#pragma once
// The padding kernels on CUDA tensors: the device half of core/ops/pad.cpp,
// with kernels/cpu/pad.h's contracts. Without the CUDA backend each raises an
// Error.
#include "ember/core/tensor.h"
#include "ember/kernels/common/pad_functors.h"

namespace ember::cuda {

void pad_axis(const Tensor& x, const functors::PadAxis& a, int64_t inner, double value,
              const Tensor& out);
// Gather form, as the CPU's: each input element sums the outputs that copied it.
void pad_axis_backward(const Tensor& grad_out, const functors::PadAxis& a, int64_t inner,
                       const Tensor& grad_in);

}  // namespace ember::cuda
