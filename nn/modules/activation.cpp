#include "ember/nn/modules/activation.h"

#include "ember/nn/functional/activation.h"

namespace ember::nn {

namespace F = functional;

Tensor ReLUImpl::forward(Tensor input) {
  return call_with_hooks(input, [this](const Tensor& x) { return F::relu(x, options); });
}

void ReLUImpl::pretty_print(std::ostream& stream) const {
  stream << "ReLU(" << (options.inplace() ? "inplace=true" : "") << ")";
}

Tensor LeakyReLUImpl::forward(Tensor input) {
  return call_with_hooks(input, [this](const Tensor& x) { return F::leaky_relu(x, options); });
}

void LeakyReLUImpl::pretty_print(std::ostream& stream) const {
  stream << "LeakyReLU(negative_slope=" << options.negative_slope()
         << (options.inplace() ? ", inplace=true" : "") << ")";
}

GELUImpl::GELUImpl(const GELUOptions& options_) : options(options_) {
  EMBER_CHECK(options.approximate() == "none" || options.approximate() == "tanh",
              "GELU: approximate must be 'none' or 'tanh', got '", options.approximate(), "'");
}

Tensor GELUImpl::forward(const Tensor& input) {
  return call_with_hooks(input, [this](const Tensor& x) { return F::gelu(x, options); });
}

void GELUImpl::pretty_print(std::ostream& stream) const {
  stream << "GELU(";
  if (options.approximate() != "none") stream << "approximate='" << options.approximate() << "'";
  stream << ")";
}

Tensor SigmoidImpl::forward(const Tensor& input) {
  return call_with_hooks(input, [](const Tensor& x) { return F::sigmoid(x); });
}

void SigmoidImpl::pretty_print(std::ostream& stream) const { stream << "Sigmoid()"; }

Tensor TanhImpl::forward(const Tensor& input) {
  return call_with_hooks(input, [](const Tensor& x) { return F::tanh(x); });
}

void TanhImpl::pretty_print(std::ostream& stream) const { stream << "Tanh()"; }

Tensor SoftmaxImpl::forward(const Tensor& input) {
  return call_with_hooks(
      input, [this](const Tensor& x) { return F::softmax(x, F::SoftmaxFuncOptions(options.dim())); });
}

void SoftmaxImpl::pretty_print(std::ostream& stream) const {
  stream << "Softmax(dim=" << options.dim() << ")";
}

Tensor SiLUImpl::forward(const Tensor& input) {
  return call_with_hooks(input, [](const Tensor& x) { return F::silu(x); });
}

void SiLUImpl::pretty_print(std::ostream& stream) const { stream << "SiLU()"; }

Tensor MishImpl::forward(const Tensor& input) {
  return call_with_hooks(input, [](const Tensor& x) { return F::mish(x); });
}

void MishImpl::pretty_print(std::ostream& stream) const { stream << "Mish()"; }

Tensor HardsigmoidImpl::forward(const Tensor& input) {
  return call_with_hooks(input, [](const Tensor& x) { return F::hardsigmoid(x); });
}

void HardsigmoidImpl::pretty_print(std::ostream& stream) const { stream << "Hardsigmoid()"; }

Tensor HardswishImpl::forward(const Tensor& input) {
  return call_with_hooks(input, [](const Tensor& x) { return F::hardswish(x); });
}

void HardswishImpl::pretty_print(std::ostream& stream) const { stream << "Hardswish()"; }

Tensor LogSigmoidImpl::forward(const Tensor& input) {
  return call_with_hooks(input, [](const Tensor& x) { return F::logsigmoid(x); });
}

void LogSigmoidImpl::pretty_print(std::ostream& stream) const { stream << "LogSigmoid()"; }

Tensor SoftsignImpl::forward(const Tensor& input) {
  return call_with_hooks(input, [](const Tensor& x) { return F::softsign(x); });
}

void SoftsignImpl::pretty_print(std::ostream& stream) const { stream << "Softsign()"; }

Tensor TanhshrinkImpl::forward(const Tensor& input) {
  return call_with_hooks(input, [](const Tensor& x) { return F::tanhshrink(x); });
}

void TanhshrinkImpl::pretty_print(std::ostream& stream) const { stream << "Tanhshrink()"; }

Tensor ELUImpl::forward(Tensor input) {
  return call_with_hooks(input, [this](const Tensor& x) { return F::elu(x, options); });
}

void ELUImpl::pretty_print(std::ostream& stream) const {
  stream << "ELU(alpha=" << options.alpha() << (options.inplace() ? ", inplace=true" : "") << ")";
}

Tensor SELUImpl::forward(Tensor input) {
  return call_with_hooks(input, [this](const Tensor& x) { return F::selu(x, options); });
}

void SELUImpl::pretty_print(std::ostream& stream) const {
  stream << "SELU(" << (options.inplace() ? "inplace=true" : "") << ")";
}

Tensor CELUImpl::forward(Tensor input) {
  return call_with_hooks(input, [this](const Tensor& x) { return F::celu(x, options); });
}

void CELUImpl::pretty_print(std::ostream& stream) const {
  stream << "CELU(alpha=" << options.alpha() << (options.inplace() ? ", inplace=true" : "") << ")";
}

Tensor SoftplusImpl::forward(const Tensor& input) {
  return call_with_hooks(input, [this](const Tensor& x) { return F::softplus(x, options); });
}

void SoftplusImpl::pretty_print(std::ostream& stream) const {
  stream << "Softplus(beta=" << options.beta() << ", threshold=" << options.threshold() << ")";
}

HardtanhImpl::HardtanhImpl(const HardtanhOptions& options_) : options(options_) {
  EMBER_CHECK(options.max_val() > options.min_val(), "Hardtanh: max_val (", options.max_val(),
              ") must be greater than min_val (", options.min_val(), ")");
}

Tensor HardtanhImpl::forward(Tensor input) {
  return call_with_hooks(input, [this](const Tensor& x) { return F::hardtanh(x, options); });
}

void HardtanhImpl::pretty_print(std::ostream& stream) const {
  stream << "Hardtanh(min_val=" << options.min_val() << ", max_val=" << options.max_val()
         << (options.inplace() ? ", inplace=true" : "") << ")";
}

Tensor ReLU6Impl::forward(Tensor input) {
  return call_with_hooks(input, [this](const Tensor& x) { return F::relu6(x, options); });
}

void ReLU6Impl::pretty_print(std::ostream& stream) const {
  stream << "ReLU6(" << (options.inplace() ? "inplace=true" : "") << ")";
}

Tensor SoftshrinkImpl::forward(const Tensor& input) {
  return call_with_hooks(input, [this](const Tensor& x) { return F::softshrink(x, options); });
}

void SoftshrinkImpl::pretty_print(std::ostream& stream) const {
  stream << "Softshrink(" << options.lambda() << ")";
}

Tensor HardshrinkImpl::forward(const Tensor& input) {
  return call_with_hooks(input, [this](const Tensor& x) { return F::hardshrink(x, options); });
}

void HardshrinkImpl::pretty_print(std::ostream& stream) const {
  stream << "Hardshrink(" << options.lambda() << ")";
}

}  // namespace ember::nn
