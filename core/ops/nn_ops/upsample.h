#pragma once
// Resampling over the last two dims of (N, C, H, W) or (C, H, W) tensors, as
// torch::upsample_nearest2d / upsample_bilinear2d (upsample.cpp).
#include "ember/core/tensor.h"

namespace ember {

// output_size {H', W'}: the scale follows from the sizes, as PyTorch with size=.
Tensor upsample_nearest2d(const Tensor& input, IntArrayRef output_size);
Tensor upsample_bilinear2d(const Tensor& input, IntArrayRef output_size, bool align_corners);

}  // namespace ember
