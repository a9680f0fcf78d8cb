#pragma once
// The padding kernel family (Note [Kernel tables]): one axis at a time, a
// linear map along the padded dim and its adjoint. The op (core/ops/nn_ops/pad.cpp)
// has checked the pads against the mode and the input (floating) and sized
// the output; every tensor is contiguous and read as (outer, n, inner)
// around the padded dim, n = a.in for the input and a.out for the output.
// Each kernel takes float32 and float64 and raises dispatch_floating's Error
// (as "pad" or "pad_backward") for other dtypes.
#include <cstdint>

#include "ember/core/tensor.h"
#include "ember/kernels/common/kernel_table.h"
#include "ember/kernels/common/pad_functors.h"

namespace ember {

struct PadKernels {
  // out[o] = x[a.source(o)] along the axis, or `value` where the source is -1.
  Kernel<void(const Tensor& x, const functors::PadAxis& a, int64_t inner, double value,
              const Tensor& out)>
      axis;
  // The adjoint (gather form, deterministic): grad_in[i] = the sum of
  // grad_out over a.outputs_of(i).
  Kernel<void(const Tensor& grad_out, const functors::PadAxis& a, int64_t inner,
              const Tensor& grad_in)>
      axis_backward;
};

}  // namespace ember
