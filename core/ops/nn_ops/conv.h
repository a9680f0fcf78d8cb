#pragma once
// 2-D convolution and its transpose, NCHW, as torch::conv2d /
// torch::conv_transpose2d. The CPU algorithms live in kernels/cpu/conv*.
#include "ember/core/tensor.h"

namespace ember {

// x: (N, C, H, W), weight: (K, C/groups, R, S), bias: (K) or undefined.
// stride/padding/dilation: one value for both dims or {h, w}.
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
              IntArrayRef stride = 1, IntArrayRef padding = 0, IntArrayRef dilation = 1,
              int64_t groups = 1);

// relu(conv2d(...)), with the relu applied in the conv's own output pass when
// nothing records a graph (eval fusion, Note [Eval fusion of Conv2d, BatchNorm
// and ReLU]); recorded as conv2d then relu otherwise. ember's own, no libtorch
// counterpart.
Tensor conv2d_relu(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
                   IntArrayRef stride = 1, IntArrayRef padding = 0, IntArrayRef dilation = 1,
                   int64_t groups = 1);

// x: (N, C, H, W), weight: (C, K/groups, R, S) (the layout of the conv it
// transposes), bias: (K). The forward is conv2d's backward-data.
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
                        IntArrayRef stride = 1, IntArrayRef padding = 0,
                        IntArrayRef output_padding = 0, int64_t groups = 1,
                        IntArrayRef dilation = 1);

}  // namespace ember
