#pragma once
// The convolution kernel family (Note [Kernel tables]): the three passes of a
// 2-D convolution (Note [Conv primitives] in core/ops/nn_ops/conv.cpp), one slot per
// pass. The op has checked the arguments, described the problem in p (p.dtype
// the operands' dtype), handled the empty problems itself (every size in p is
// positive), made every operand contiguous and allocated the output; every
// tensor is on one device. Each kernel chooses its own algorithm (the CPU's
// conv_algo_select.h, cuDNN's heuristic or benchmark cache) and overwrites its
// whole output. Each takes float32 and float64 and raises dispatch_floating's
// Error for other dtypes, named "conv2d" (forward and backward-weight) or
// "conv_transpose2d" (backward-data, conv_transpose2d's forward).
#include "ember/core/tensor.h"
#include "ember/kernels/common/conv_params.h"
#include "ember/kernels/common/kernel_table.h"

namespace ember {

struct ConvKernels {
  // y = conv(x, w) + bias. x: (N, C, H, W), w: (K, C/groups, R, S), bias: (K)
  // or undefined, y: (N, K, OH, OW). p.inference: the output records no graph
  // (the CPU's Winograd weight cache relies on it; cuDNN ignores it).
  Kernel<void(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& y,
              const ConvParams& p)>
      forward;
  // gx = the conv's backward-data of gy + bias. gy: (N, K, OH, OW), bias: (C)
  // or undefined, gx: (N, C, H, W).
  Kernel<void(const Tensor& gy, const Tensor& w, const Tensor& bias, const Tensor& gx,
              const ConvParams& p)>
      backward_data;
  // gw = d<conv(x, w), gy>/dw. gw: (K, C/groups, R, S).
  Kernel<void(const Tensor& x, const Tensor& gy, const Tensor& gw, const ConvParams& p)>
      backward_weight;
};

}  // namespace ember
