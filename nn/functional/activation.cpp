#include "ember/nn/functional/activation.h"

#include "ember/core/ops/reduce.h"
#include "ember/core/ops/unary.h"

namespace ember::nn::functional {

Tensor relu(Tensor input, const ReLUFuncOptions& options) {
  if (options.inplace()) return input.relu_();
  return ember::relu(input);
}

Tensor leaky_relu(Tensor input, const LeakyReLUFuncOptions& options) {
  Tensor out = ember::leaky_relu(input, options.negative_slope());
  // No fused in-place kernel: write the result back (recorded as a copy_).
  if (options.inplace()) return input.copy_(out);
  return out;
}

Tensor gelu(const Tensor& input, const GELUFuncOptions& options) {
  return ember::gelu(input, options.approximate());
}

Tensor sigmoid(const Tensor& input) { return ember::sigmoid(input); }

Tensor tanh(const Tensor& input) { return ember::tanh(input); }

Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options) {
  return ember::softmax(input, options.dim(), options.dtype());
}

}  // namespace ember::nn::functional
