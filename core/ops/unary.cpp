// STUB: replaced by the real implementation.
#include "ember/core/ops/unary.h"
#include "ember/core/error.h"

namespace ember {

Tensor neg(const Tensor& x) { EMBER_ERROR("neg: not implemented yet"); }
Tensor exp(const Tensor& x) { EMBER_ERROR("exp: not implemented yet"); }
Tensor log(const Tensor& x) { EMBER_ERROR("log: not implemented yet"); }
Tensor sqrt(const Tensor& x) { EMBER_ERROR("sqrt: not implemented yet"); }
Tensor rsqrt(const Tensor& x) { EMBER_ERROR("rsqrt: not implemented yet"); }
Tensor abs(const Tensor& x) { EMBER_ERROR("abs: not implemented yet"); }
Tensor sign(const Tensor& x) { EMBER_ERROR("sign: not implemented yet"); }
Tensor square(const Tensor& x) { EMBER_ERROR("square: not implemented yet"); }
Tensor reciprocal(const Tensor& x) { EMBER_ERROR("reciprocal: not implemented yet"); }
Tensor relu(const Tensor& x) { EMBER_ERROR("relu: not implemented yet"); }
Tensor leaky_relu(const Tensor& x, const Scalar& negative_slope) { EMBER_ERROR("leaky_relu: not implemented yet"); }
Tensor sigmoid(const Tensor& x) { EMBER_ERROR("sigmoid: not implemented yet"); }
Tensor tanh(const Tensor& x) { EMBER_ERROR("tanh: not implemented yet"); }
Tensor gelu(const Tensor& x, const std::string& approximate) { EMBER_ERROR("gelu: not implemented yet"); }
Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max) { EMBER_ERROR("clamp: not implemented yet"); }
Tensor clamp_min(const Tensor& x, const Scalar& min) { EMBER_ERROR("clamp_min: not implemented yet"); }
Tensor clamp_max(const Tensor& x, const Scalar& max) { EMBER_ERROR("clamp_max: not implemented yet"); }
Tensor isnan(const Tensor& x) { EMBER_ERROR("isnan: not implemented yet"); }
Tensor isfinite(const Tensor& x) { EMBER_ERROR("isfinite: not implemented yet"); }
Tensor logical_not(const Tensor& x) { EMBER_ERROR("logical_not: not implemented yet"); }
Tensor Tensor::neg() const { EMBER_ERROR("neg: not implemented yet"); }
Tensor Tensor::exp() const { EMBER_ERROR("exp: not implemented yet"); }
Tensor Tensor::log() const { EMBER_ERROR("log: not implemented yet"); }
Tensor Tensor::sqrt() const { EMBER_ERROR("sqrt: not implemented yet"); }
Tensor Tensor::rsqrt() const { EMBER_ERROR("rsqrt: not implemented yet"); }
Tensor Tensor::abs() const { EMBER_ERROR("abs: not implemented yet"); }
Tensor Tensor::sign() const { EMBER_ERROR("sign: not implemented yet"); }
Tensor Tensor::relu() const { EMBER_ERROR("relu: not implemented yet"); }
Tensor Tensor::leaky_relu(const Scalar& negative_slope) const { EMBER_ERROR("leaky_relu: not implemented yet"); }
Tensor Tensor::sigmoid() const { EMBER_ERROR("sigmoid: not implemented yet"); }
Tensor Tensor::tanh() const { EMBER_ERROR("tanh: not implemented yet"); }
Tensor Tensor::gelu(const std::string& approximate) const { EMBER_ERROR("gelu: not implemented yet"); }
Tensor Tensor::square() const { EMBER_ERROR("square: not implemented yet"); }
Tensor Tensor::reciprocal() const { EMBER_ERROR("reciprocal: not implemented yet"); }
Tensor Tensor::clamp(std::optional<Scalar> min, std::optional<Scalar> max) const { EMBER_ERROR("clamp: not implemented yet"); }
Tensor Tensor::clamp_min(const Scalar& min) const { EMBER_ERROR("clamp_min: not implemented yet"); }
Tensor Tensor::clamp_max(const Scalar& max) const { EMBER_ERROR("clamp_max: not implemented yet"); }
Tensor Tensor::logical_not() const { EMBER_ERROR("logical_not: not implemented yet"); }
Tensor& Tensor::clamp_(std::optional<Scalar> min, std::optional<Scalar> max) { EMBER_ERROR("clamp_: not implemented yet"); }
Tensor& Tensor::relu_() { EMBER_ERROR("relu_: not implemented yet"); }
Tensor& Tensor::neg_() { EMBER_ERROR("neg_: not implemented yet"); }
Tensor operator-(const Tensor& a) { EMBER_ERROR("neg: not implemented yet"); }

}  // namespace ember
