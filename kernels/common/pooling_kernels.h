#pragma once
// The pooling kernel family (Note [Kernel tables]): max, average and adaptive
// pooling over the last two dims, one slot per entry point. The op
// (core/ops/nn_ops/pooling.cpp) has checked the arguments (a floating input of
// C, H, W > 0, a window with at least one input element under it) and sized
// the outputs; every tensor is contiguous and read as a stack of planes
// (P, H, W) -> (P, OH, OW), P the product of the other dims. Each kernel takes
// float32 and float64 and raises dispatch_floating's Error for other dtypes.
#include "ember/core/tensor.h"
#include "ember/kernels/common/kernel_table.h"
#include "ember/kernels/common/pooling_functors.h"

namespace ember {

struct PoolingKernels {
  using PoolWindow = functors::PoolWindow;

  // out = the window maxima (NaN wins, as PyTorch; padding counts as -inf);
  // indices (int64) = the flat position h * W + w of each maximum in its
  // plane, the first one on ties.
  Kernel<void(const Tensor& x, const Tensor& out, const Tensor& indices, const PoolWindow& w)>
      max_pool2d;
  // grad_in (P, H, W) = each gradient of grad_out (P, OH, OW) added at its
  // window's argmax (indices), gather form (deterministic sums). CUDA only:
  // the CPU op scatters by the indices instead (scatter_add), so the op asks
  // has() before taking this path.
  Kernel<void(const Tensor& grad_out, const Tensor& indices, const Tensor& grad_in,
              const PoolWindow& w)>
      max_pool2d_backward;
  // out = the window means; the divisor counts the padding inside the window
  // when count_include_pad (never the part past it that ceil_mode adds).
  Kernel<void(const Tensor& x, const Tensor& out, const PoolWindow& w, bool count_include_pad)>
      avg_pool2d;
  // The adjoint of avg_pool2d: grad_in = each output's gradient spread over
  // its window with the same divisor.
  Kernel<void(const Tensor& grad_out, const Tensor& grad_in, const PoolWindow& w,
              bool count_include_pad)>
      avg_pool2d_backward;
  // Output (oh, ow) averages rows [floor(oh*H/OH), ceil((oh+1)*H/OH)) and the
  // same for columns.
  Kernel<void(const Tensor& x, const Tensor& out)> adaptive_avg_pool2d;
  // The adjoint of adaptive_avg_pool2d.
  Kernel<void(const Tensor& grad_out, const Tensor& grad_in)> adaptive_avg_pool2d_backward;
  // The maximum of adaptive_avg_pool2d's windows and its flat position in the
  // plane (the op scatters the gradient by these indices).
  Kernel<void(const Tensor& x, const Tensor& out, const Tensor& indices)> adaptive_max_pool2d;
};

}  // namespace ember
