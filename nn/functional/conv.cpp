#include "ember/nn/functional/conv.h"

#include "ember/core/ops/conv.h"
#include "ember/core/ops/pad.h"

namespace ember::nn::functional {

namespace detail {

std::array<std::pair<int64_t, int64_t>, 2> conv_padding_sides(const conv_padding_t<2>& padding,
                                                              IntArrayRef kernel,
                                                              IntArrayRef stride,
                                                              IntArrayRef dilation) {
  if (const auto* p = std::get_if<ExpandingArray<2>>(&padding))
    return {{{(*p)[0], (*p)[0]}, {(*p)[1], (*p)[1]}}};
  if (std::holds_alternative<enumtype::kValid>(padding)) return {{{0, 0}, {0, 0}}};
  EMBER_CHECK(stride.size() == 2 && stride[0] == 1 && stride[1] == 1,
              "conv2d: padding kSame needs stride 1, as PyTorch's, got stride ", stride);
  std::array<std::pair<int64_t, int64_t>, 2> sides;
  for (size_t d = 0; d < 2; ++d) {
    const int64_t total = dilation[d] * (kernel[d] - 1);
    sides[d] = {total / 2, total - total / 2};
  }
  return sides;
}

}  // namespace detail

Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options) {
  const auto* numbers = std::get_if<ExpandingArray<2>>(&options.padding());
  if (numbers != nullptr || weight.dim() != 4)  // a malformed weight: conv2d's own error
    return ember::conv2d(input, weight, options.bias(), options.stride(),
                         numbers != nullptr ? *numbers : ExpandingArray<2>(0),
                         options.dilation(), options.groups());
  const auto [h, w] = detail::conv_padding_sides(
      options.padding(), {weight.size(2), weight.size(3)}, options.stride(), options.dilation());
  // The conv pads both sides alike; an odd total's extra goes after, by pad (PyTorch's way).
  const bool odd = h.second != h.first || w.second != w.first;
  const Tensor x = odd ? pad(input, {0, w.second - w.first, 0, h.second - h.first}) : input;
  return ember::conv2d(x, weight, options.bias(), options.stride(), {h.first, w.first},
                       options.dilation(), options.groups());
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose2dFuncOptions& options) {
  return ember::conv_transpose2d(input, weight, options.bias(), options.stride(),
                                 options.padding(), options.output_padding(), options.groups(),
                                 options.dilation());
}

}  // namespace ember::nn::functional
