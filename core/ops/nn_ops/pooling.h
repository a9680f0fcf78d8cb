#pragma once
// Pooling over the last two dims of (N, C, H, W) or (C, H, W) tensors, as
// torch::max_pool2d / avg_pool2d / adaptive_avg_pool2d (resampling is in
// upsample.h).
#include <optional>
#include <tuple>

#include "ember/core/tensor.h"

namespace ember {

// stride defaults to kernel_size when empty.
Tensor max_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = 0, IntArrayRef dilation = 1, bool ceil_mode = false);
// Returns (output, indices): indices (int64) are flat positions in each H*W plane.
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                   IntArrayRef stride = {},
                                                   IntArrayRef padding = 0,
                                                   IntArrayRef dilation = 1,
                                                   bool ceil_mode = false);
Tensor avg_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = 0, bool ceil_mode = false,
                  bool count_include_pad = true);
Tensor adaptive_avg_pool2d(const Tensor& input, IntArrayRef output_size);
// Returns (output, indices), as torch::adaptive_max_pool2d: the maximum of the
// same windows as adaptive_avg_pool2d's, indices (int64) flat positions in
// each H*W plane.
std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& input, IntArrayRef output_size);

}  // namespace ember
