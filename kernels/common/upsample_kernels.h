#pragma once
// The upsampling kernel family (Note [Kernel tables]): nearest and bilinear
// resampling over the last two dims and their adjoints, one slot per entry
// point. The op (core/ops/nn_ops/upsample.cpp) has checked the input (floating,
// C, H, W > 0) and the output size and sized the outputs; every tensor is
// contiguous and read as a stack of planes (P, H, W) -> (P, OH, OW). Source
// coordinates follow PyTorch (kernels/common/pooling_functors.h). Each kernel
// takes float32 and float64 and raises dispatch_floating's Error for other
// dtypes.
#include "ember/core/tensor.h"
#include "ember/kernels/common/kernel_table.h"

namespace ember {

struct UpsampleKernels {
  // out[oh][ow] = x[src(oh)][src(ow)], src(d) = min(floor(d * in / out), in - 1).
  Kernel<void(const Tensor& x, const Tensor& out)> nearest2d;
  // The adjoint: each input gathers the gradients of the outputs that copied it.
  Kernel<void(const Tensor& grad_out, const Tensor& grad_in)> nearest2d_backward;
  // Bilinear interpolation between the 4 neighbours of each source point.
  Kernel<void(const Tensor& x, const Tensor& out, bool align_corners)> bilinear2d;
  // Its adjoint (on CUDA a scatter with atomicAdd: the last bits of float sums
  // may vary between runs).
  Kernel<void(const Tensor& grad_out, const Tensor& grad_in, bool align_corners)>
      bilinear2d_backward;
};

}  // namespace ember
