// erf, erfc, erfinv, lgamma, digamma, polygamma: forward (functors in
// kernels/common/special_functors.h), in-place forms, and derivatives written
// with ember ops, so they differentiate again (up to polygamma(1, x)).
#include "ember/core/autocast.h"
#include "ember/core/ops/elementwise/special_math.h"

#include <numbers>

#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/elementwise/unary.h"
#include "ember/core/ops/elementwise/unary_helpers.h"
#include "ember/kernels/common/special_functors.h"

namespace ember {

using namespace unary_detail;

namespace {

constexpr double kTwoOverSqrtPi = 2 * std::numbers::inv_sqrtpi;

// ---- derivatives, from the saved input x or output y ----

Tensor erf_grad(const Tensor& g, const Tensor& x) { return g * (exp(-(x * x)) * kTwoOverSqrtPi); }
Tensor erfc_grad(const Tensor& g, const Tensor& x) {
  return g * (exp(-(x * x)) * -kTwoOverSqrtPi);
}
// erfinv'(y) = 1 / erf'(erfinv(y)) = sqrt(pi) / 2 exp(erfinv(y)^2).
Tensor erfinv_grad(const Tensor& g, const Tensor& y) { return g * (exp(y * y) / kTwoOverSqrtPi); }
Tensor lgamma_grad(const Tensor& g, const Tensor& x) { return g * digamma(x); }
Tensor digamma_grad(const Tensor& g, const Tensor& x) { return g * polygamma(1, x); }
Tensor trigamma_grad(const Tensor&, const Tensor&) {
  EMBER_ERROR("polygamma: the derivative of polygamma(1, x) (polygamma(2, x)) is not "
              "implemented, so digamma differentiates at most twice");
}

}  // namespace

Tensor erf(const Tensor& x) {
  // derivative: d/dx = g·2/sqrt(pi)·exp(-x²)
  return floating_op<functors::Erf>("erf", "ErfBackward", x, Save::kInput, erf_grad);
}
Tensor erfc(const Tensor& x) {
  // derivative: d/dx = -g·2/sqrt(pi)·exp(-x²)
  return floating_op<functors::Erfc>("erfc", "ErfcBackward", x, Save::kInput, erfc_grad);
}
Tensor erfinv(const Tensor& x) {
  if (const auto to = autocast::cast_dtype(autocast::kCudaFloat32Op, {&x}))
    return erfinv(autocast::cast(x, *to));
  // derivative: d/dx = g·sqrt(pi)/2·exp(y²)
  return floating_op<functors::Erfinv>("erfinv", "ErfinvBackward", x, Save::kOutput,
                                       erfinv_grad);
}
Tensor lgamma(const Tensor& x) {
  // derivative: d/dx = g·digamma(x)
  return floating_op<functors::Lgamma>("lgamma", "LgammaBackward", x, Save::kInput, lgamma_grad);
}
Tensor digamma(const Tensor& x) {
  // derivative: d/dx = g·polygamma(1, x)
  return floating_op<functors::Digamma>("digamma", "DigammaBackward", x, Save::kInput,
                                        digamma_grad);
}
Tensor polygamma(int64_t n, const Tensor& x) {
  EMBER_CHECK(n == 0 || n == 1, "polygamma: only n = 0 (digamma) and n = 1 are implemented, got n = ",
              n);
  if (n == 0) return digamma(x);
  // derivative: polygamma(1, x): d/dx = g·polygamma(2, x), not implemented (raises)
  return floating_op<functors::Trigamma>("polygamma", "PolygammaBackward", x, Save::kNothing,
                                         trigamma_grad);
}

Tensor& Tensor::erf_() const {
  return floating_op_<functors::Erf>("erf_", "ErfBackward", *this, Save::kInput, erf_grad);
}
Tensor& Tensor::erfc_() const {
  return floating_op_<functors::Erfc>("erfc_", "ErfcBackward", *this, Save::kInput, erfc_grad);
}
Tensor& Tensor::erfinv_() const {
  return floating_op_<functors::Erfinv>("erfinv_", "ErfinvBackward", *this, Save::kOutput,
                                        erfinv_grad);
}
Tensor& Tensor::lgamma_() const {
  return floating_op_<functors::Lgamma>("lgamma_", "LgammaBackward", *this, Save::kInput,
                                        lgamma_grad);
}
Tensor& Tensor::digamma_() const {
  return floating_op_<functors::Digamma>("digamma_", "DigammaBackward", *this, Save::kInput,
                                         digamma_grad);
}

Tensor Tensor::erf() const { return ember::erf(*this); }
Tensor Tensor::erfc() const { return ember::erfc(*this); }
Tensor Tensor::erfinv() const { return ember::erfinv(*this); }
Tensor Tensor::lgamma() const { return ember::lgamma(*this); }
Tensor Tensor::digamma() const { return ember::digamma(*this); }
Tensor Tensor::polygamma(int64_t n) const { return ember::polygamma(n, *this); }

}  // namespace ember
