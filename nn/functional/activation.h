#pragma once
// Activation functions, as torch::nn::functional's:
//   F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(0.2));
#include "ember/core/tensor.h"
#include "ember/nn/options/activation.h"

namespace ember::nn::functional {

// inplace: overwrites input (bumping its version) and returns it.
Tensor relu(Tensor input, const ReLUFuncOptions& options = {});
Tensor leaky_relu(Tensor input, const LeakyReLUFuncOptions& options = {});
Tensor gelu(const Tensor& input, const GELUFuncOptions& options = {});
Tensor sigmoid(const Tensor& input);
Tensor tanh(const Tensor& input);
Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options);

}  // namespace ember::nn::functional
