#pragma once
// Convolutions, as torch::nn::functional's:
//   F::conv2d(x, w, F::Conv2dFuncOptions().stride(2).padding(1));
#include "ember/core/tensor.h"
#include "ember/nn/options/conv.h"

namespace ember::nn::functional {

// x: (N, C, H, W), weight: (K, C / groups, R, S).
Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options = {});
// x: (N, C, H, W), weight: (C, K / groups, R, S).
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose2dFuncOptions& options = {});

}  // namespace ember::nn::functional
