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
Tensor silu(const Tensor& input);
Tensor mish(const Tensor& input);
Tensor elu(Tensor input, const ELUFuncOptions& options = {});
Tensor selu(Tensor input, const SELUFuncOptions& options = {});
Tensor celu(Tensor input, const CELUFuncOptions& options = {});
Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options = {});
Tensor hardtanh(Tensor input, const HardtanhFuncOptions& options = {});
Tensor relu6(Tensor input, const ReLU6FuncOptions& options = {});
// Python's F.hardsigmoid and F.hardswish (libtorch 1.13 has only torch::hardswish).
Tensor hardsigmoid(const Tensor& input);
Tensor hardswish(const Tensor& input);
Tensor logsigmoid(const Tensor& input);
Tensor softsign(const Tensor& input);    // x / (1 + |x|)
Tensor tanhshrink(const Tensor& input);  // x - tanh(x)
Tensor softshrink(const Tensor& input, const SoftshrinkFuncOptions& options = {});
Tensor hardshrink(const Tensor& input, const HardshrinkFuncOptions& options = {});

}  // namespace ember::nn::functional
