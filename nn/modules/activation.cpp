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

}  // namespace ember::nn
