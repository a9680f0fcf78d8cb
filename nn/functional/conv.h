#pragma once
// Convolutions, as torch::nn::functional's:
//   F::conv2d(x, w, F::Conv2dFuncOptions().stride(2).padding(1));
//   F::conv2d(x, w, F::Conv2dFuncOptions().padding(ember::kSame));
#include <array>
#include <utility>

#include "ember/core/tensor.h"
#include "ember/nn/options/conv.h"

namespace ember::nn::functional {

// x: (N, C, H, W), weight: (K, C / groups, R, S). kSame pads as PyTorch: a
// total of dilation * (kernel - 1) per dim, half before and the rest after
// (so an odd total puts the extra row or column at the bottom or right).
Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options = {});
// x: (N, C, H, W), weight: (C, K / groups, R, S).
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose2dFuncOptions& options = {});

namespace detail {
// The padding of each dim (height, width) as (before, after) for a kernel of
// `kernel` taps with `dilation`; kSame needs stride 1 (an Error otherwise).
std::array<std::pair<int64_t, int64_t>, 2> conv_padding_sides(const conv_padding_t<2>& padding,
                                                              IntArrayRef kernel,
                                                              IntArrayRef stride,
                                                              IntArrayRef dilation);
}  // namespace detail

}  // namespace ember::nn::functional
