#include "ember/nn/functional/dropout.h"

#include "ember/core/ops/nn_ops/dropout.h"

namespace ember::nn::functional {

Tensor dropout(Tensor input, const DropoutFuncOptions& options) {
  if (options.inplace()) return ember::dropout_(input, options.p(), options.training());
  return ember::dropout(input, options.p(), options.training());
}

Tensor dropout2d(Tensor input, const Dropout2dFuncOptions& options) {
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4, "dropout2d: expected a 3-d (C, H, W) or 4-d "
              "(N, C, H, W) input, got shape ", input.sizes());
  if (input.dim() == 3) {  // one sample: its channels are dim 0
    Tensor batched = input.unsqueeze(0);
    const Tensor y = dropout2d(batched, options);
    return options.inplace() ? input : y.squeeze(0);
  }
  if (options.inplace()) return ember::feature_dropout_(input, options.p(), options.training());
  return ember::feature_dropout(input, options.p(), options.training());
}

}  // namespace ember::nn::functional
