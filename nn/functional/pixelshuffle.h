#pragma once
// F::pixel_shuffle and F::pixel_unshuffle, as torch::nn::functional's.
#include "ember/core/tensor.h"
#include "ember/nn/options/pixelshuffle.h"

namespace ember::nn::functional {

// x: (*, C * r * r, H, W) -> (*, C, H * r, W * r), r = upscale_factor: each
// group of r * r channels becomes an r x r block of pixels (a view if it can).
Tensor pixel_shuffle(const Tensor& input, const PixelShuffleFuncOptions& options);
// The inverse: x: (*, C, H * r, W * r) -> (*, C * r * r, H, W), r = downscale_factor.
Tensor pixel_unshuffle(const Tensor& input, const PixelUnshuffleFuncOptions& options);

}  // namespace ember::nn::functional
