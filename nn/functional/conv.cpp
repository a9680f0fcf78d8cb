#include "ember/nn/functional/conv.h"

#include "ember/core/ops/nn_ops/conv.h"
#include "ember/core/ops/nn_ops/ops_1d.h"
#include "ember/core/ops/nn_ops/pad.h"

namespace ember::nn::functional {

namespace {

// The conv pads both sides alike; an odd total's extra goes after, by pad
// (PyTorch's way). sides: (before, after) per dim, the first dim first.
template <size_t D>
Tensor pad_extra(const Tensor& x, const std::array<std::pair<int64_t, int64_t>, D>& sides) {
  std::vector<int64_t> extra;  // pad's order: the last dim first
  bool any = false;
  for (size_t d = D; d-- > 0;) {
    extra.insert(extra.end(), {0, sides[d].second - sides[d].first});
    any |= sides[d].second != sides[d].first;
  }
  return any ? pad(x, extra) : x;
}

}  // namespace

Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& options) {
  const auto* numbers = std::get_if<ExpandingArray<1>>(&options.padding());
  if (numbers != nullptr || weight.dim() != 3)  // a malformed weight: conv1d's own error
    return ember::conv1d(input, weight, options.bias(), options.stride(),
                         numbers != nullptr ? *numbers : ExpandingArray<1>(0),
                         options.dilation(), options.groups());
  const auto sides = detail::conv_padding_sides<1>(options.padding(), {weight.size(2)},
                                                   options.stride(), options.dilation(), "conv1d");
  return ember::conv1d(pad_extra<1>(input, sides), weight, options.bias(), options.stride(),
                       {sides[0].first}, options.dilation(), options.groups());
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options) {
  const auto* numbers = std::get_if<ExpandingArray<2>>(&options.padding());
  if (numbers != nullptr || weight.dim() != 4)  // a malformed weight: conv2d's own error
    return ember::conv2d(input, weight, options.bias(), options.stride(),
                         numbers != nullptr ? *numbers : ExpandingArray<2>(0),
                         options.dilation(), options.groups());
  const auto sides = detail::conv_padding_sides<2>(options.padding(),
                                                   {weight.size(2), weight.size(3)},
                                                   options.stride(), options.dilation(), "conv2d");
  return ember::conv2d(pad_extra<2>(input, sides), weight, options.bias(), options.stride(),
                       {sides[0].first, sides[1].first}, options.dilation(), options.groups());
}

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose1dFuncOptions& options) {
  return ember::conv_transpose1d(input, weight, options.bias(), options.stride(),
                                 options.padding(), options.output_padding(), options.groups(),
                                 options.dilation());
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose2dFuncOptions& options) {
  return ember::conv_transpose2d(input, weight, options.bias(), options.stride(),
                                 options.padding(), options.output_padding(), options.groups(),
                                 options.dilation());
}

}  // namespace ember::nn::functional
