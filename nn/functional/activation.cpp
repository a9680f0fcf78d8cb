#include "ember/nn/functional/activation.h"

#include "ember/core/ops/elementwise/activation.h"
#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/reduction/reduce.h"
#include "ember/core/ops/nn_ops/softmax.h"
#include "ember/core/ops/elementwise/unary.h"

namespace ember::nn::functional {

namespace {

// The inplace option of elu, selu, celu, hardtanh, relu6: computes on a copy of
// input (whose backward reads the values before the write) and writes the
// result back, recorded as a copy_.
template <typename Op>
Tensor maybe_inplace(Tensor input, bool inplace, Op op) {
  if (!inplace) return op(input);
  return input.copy_(op(input.clone()));
}

}  // namespace

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

Tensor silu(const Tensor& input) { return ember::silu(input); }

Tensor mish(const Tensor& input) { return ember::mish(input); }

Tensor elu(Tensor input, const ELUFuncOptions& options) {
  return maybe_inplace(input, options.inplace(),
                       [&](const Tensor& x) { return ember::elu(x, options.alpha()); });
}

Tensor selu(Tensor input, const SELUFuncOptions& options) {
  return maybe_inplace(input, options.inplace(), [](const Tensor& x) { return ember::selu(x); });
}

Tensor celu(Tensor input, const CELUFuncOptions& options) {
  return maybe_inplace(input, options.inplace(),
                       [&](const Tensor& x) { return ember::celu(x, options.alpha()); });
}

Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options) {
  return ember::softplus(input, options.beta(), options.threshold());
}

Tensor hardtanh(Tensor input, const HardtanhFuncOptions& options) {
  return maybe_inplace(input, options.inplace(), [&](const Tensor& x) {
    return ember::hardtanh(x, options.min_val(), options.max_val());
  });
}

Tensor relu6(Tensor input, const ReLU6FuncOptions& options) {
  return maybe_inplace(input, options.inplace(), [](const Tensor& x) { return ember::relu6(x); });
}

Tensor hardsigmoid(const Tensor& input) { return ember::hardsigmoid(input); }

Tensor hardswish(const Tensor& input) { return ember::hardswish(input); }

Tensor logsigmoid(const Tensor& input) { return ember::log_sigmoid(input); }

// Composed, as PyTorch: abs's zero gradient at 0 gives softsign'(0) = 1.
Tensor softsign(const Tensor& input) { return input / (input.abs() + 1.0); }

Tensor tanhshrink(const Tensor& input) { return input - input.tanh(); }

Tensor softshrink(const Tensor& input, const SoftshrinkFuncOptions& options) {
  return ember::softshrink(input, options.lambda());
}

Tensor hardshrink(const Tensor& input, const HardshrinkFuncOptions& options) {
  return ember::hardshrink(input, options.lambda());
}

}  // namespace ember::nn::functional
