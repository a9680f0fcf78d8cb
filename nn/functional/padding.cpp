#include "ember/nn/functional/padding.h"

#include "ember/core/ops/nn_ops/pad.h"

namespace ember::nn::functional {

Tensor pad(const Tensor& input, const PadFuncOptions& options) {
  return ember::pad(input, options.pad(), options.mode(), options.value());
}

}  // namespace ember::nn::functional
