#pragma once
// F::interpolate, as torch::nn::functional::interpolate (nearest, bilinear):
//   F::interpolate(x, F::InterpolateFuncOptions().scale_factor({2, 2}).mode(ember::kBilinear));
#include "ember/core/tensor.h"
#include "ember/nn/options/upsampling.h"

namespace ember::nn::functional {

// x: (N, C, H, W) -> (N, C, H', W').
Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options);

}  // namespace ember::nn::functional
