#pragma once
// 1-d convolution and pooling over the last dim of (N, C, L) or (C, L)
// tensors, as torch::conv1d / conv_transpose1d / max_pool1d / avg_pool1d /
// adaptive_avg_pool1d / adaptive_max_pool1d:
// the 2-d ops on a (N, C, 1, L) view, so their kernels, algorithms (and
// benchmark mode) and derivatives serve both.
#include <tuple>

#include "ember/core/tensor.h"

namespace ember {

// x: (N, C, L) or (C, L), weight: (K, C/groups, S), bias: (K) or undefined.
// stride/padding/dilation: one value each.
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
              IntArrayRef stride = 1, IntArrayRef padding = 0, IntArrayRef dilation = 1,
              int64_t groups = 1);

// x: (N, C, L) or (C, L), weight: (C, K/groups, S) (the layout of the conv it
// transposes), bias: (K). Argument order as torch::conv_transpose1d.
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
                        IntArrayRef stride = 1, IntArrayRef padding = 0,
                        IntArrayRef output_padding = 0, int64_t groups = 1,
                        IntArrayRef dilation = 1);

// stride defaults to kernel_size when empty.
Tensor max_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = 0, IntArrayRef dilation = 1, bool ceil_mode = false);
// Returns (output, indices): indices (int64) are positions along L.
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                   IntArrayRef stride = {},
                                                   IntArrayRef padding = 0,
                                                   IntArrayRef dilation = 1,
                                                   bool ceil_mode = false);
Tensor avg_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = 0, bool ceil_mode = false,
                  bool count_include_pad = true);
Tensor adaptive_avg_pool1d(const Tensor& input, IntArrayRef output_size);
// Returns (output, indices): indices (int64) are positions along L.
std::tuple<Tensor, Tensor> adaptive_max_pool1d(const Tensor& input, IntArrayRef output_size);

}  // namespace ember
