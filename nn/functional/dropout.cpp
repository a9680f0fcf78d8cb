#include "ember/nn/functional/dropout.h"

#include "ember/core/ops/dropout.h"

namespace ember::nn::functional {

Tensor dropout(Tensor input, const DropoutFuncOptions& options) {
  if (options.inplace()) return ember::dropout_(input, options.p(), options.training());
  return ember::dropout(input, options.p(), options.training());
}

}  // namespace ember::nn::functional
