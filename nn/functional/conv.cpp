#include "ember/nn/functional/conv.h"

#include "ember/core/ops/conv.h"

namespace ember::nn::functional {

Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options) {
  return ember::conv2d(input, weight, options.bias(), options.stride(), options.padding(),
                       options.dilation(), options.groups());
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose2dFuncOptions& options) {
  return ember::conv_transpose2d(input, weight, options.bias(), options.stride(),
                                 options.padding(), options.output_padding(), options.groups(),
                                 options.dilation());
}

}  // namespace ember::nn::functional
