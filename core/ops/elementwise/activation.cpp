// The activations of activation.h. Each is composed of ember ops; those whose
// gradient at a kink or at NaN would differ from PyTorch's under plain
// composition (hardtanh at its bounds, hardswish at +-3, elu at 0, ...)
// compute the forward without recording and give the derivative PyTorch uses,
// itself written with ember ops so double backward works.
#include "ember/core/ops/elementwise/activation.h"

#include "ember/autograd/grad_mode.h"
#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/elementwise/compare.h"
#include "ember/core/ops/elementwise/unary.h"
#include "ember/core/ops/elementwise/unary_math.h"
#include "ember/core/ops/elementwise/unary_helpers.h"
#include "ember/kernels/common/kernel_registry.h"

namespace ember {

using autograd::Node;
using namespace unary_detail;

namespace {

void check_floating(const char* name, const Tensor& x) {
  if (!is_floating_point(x.scalar_type()))
    dtype_not_supported(name, x.scalar_type(), "float32 or float64");
}

// y = forward(x) computed without recording, differentiated as grad(g, x).
template <typename Forward, typename Grad>
Tensor with_derivative(const char* node_name, const Tensor& x, Forward forward, Grad grad) {
  Tensor y;
  {
    NoGradGuard no_grad;
    y = forward(x);
  }
  return record(node_name, x, y, Save::kInput, grad);
}

// Where softshrink and hardshrink pass the gradient: not -lambd <= x <= lambd
// (NaN passes it, as PyTorch).
Tensor shrink_grad(const Tensor& g, const Tensor& x, double lambd) {
  return where(abs(x) <= lambd, 0.0, g);
}

// PyTorch's SELU constants (Klambauer et al., 2017).
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

}  // namespace

Tensor silu(const Tensor& x) {
  check_floating("silu", x);
  return x * sigmoid(x);
}

Tensor mish(const Tensor& x) {
  check_floating("mish", x);
  return x * tanh(softplus(x));
}

// The negative branch reads min(x, 0), so its exp cannot overflow where the
// other branch is taken (an inf there would make a NaN in double backward).
Tensor elu(const Tensor& x, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale) {
  check_floating("elu", x);
  const double a = alpha.toDouble(), s = scale.toDouble(), is = input_scale.toDouble();
  // derivative: d/dx = g·scale for x > 0, g·alpha·scale·input_scale·exp(input_scale·x) for x <= 0
  return with_derivative(
      "EluBackward", x,
      [=](const Tensor& x) { return where(x <= 0, expm1(clamp_max(x, 0) * is) * (a * s), x * s); },
      [=](const Tensor& g, const Tensor& x) {
        return where(x <= 0, g * exp(clamp_max(x, 0) * is) * (a * s * is), g * s);
      });
}

Tensor selu(const Tensor& x) {
  check_floating("selu", x);
  return elu(x, kSeluAlpha, kSeluScale);
}

Tensor celu(const Tensor& x, const Scalar& alpha) {
  check_floating("celu", x);
  EMBER_CHECK(alpha.toDouble() != 0, "celu: alpha cannot be 0 (it divides the input)");
  return elu(x, alpha, 1, 1 / alpha.toDouble());
}

// exp may overflow to inf where beta x > threshold, but that branch is not
// taken, and the derivative reads sigmoid(beta x) instead.
Tensor softplus(const Tensor& x, const Scalar& beta, const Scalar& threshold) {
  check_floating("softplus", x);
  const double b = beta.toDouble(), t = threshold.toDouble();
  // derivative: d/dx = g·sigmoid(beta·x) (g where beta·x > threshold)
  return with_derivative(
      "SoftplusBackward", x,
      [=](const Tensor& x) { return where(x * b > t, x, log1p(exp(x * b)) / b); },
      [=](const Tensor& g, const Tensor& x) { return where(x * b > t, g, g * sigmoid(x * b)); });
}

Tensor hardtanh(const Tensor& x, const Scalar& min_val, const Scalar& max_val) {
  if (x.scalar_type() == kBool) dtype_not_supported("hardtanh", kBool, "int64, float32 or float64");
  // int64 stays int64 (clamp with float bounds would promote it), as PyTorch.
  const bool integral = !is_floating_point(x.scalar_type());
  const Scalar lo = integral ? Scalar(min_val.to<int64_t>()) : min_val;
  const Scalar hi = integral ? Scalar(max_val.to<int64_t>()) : max_val;
  // derivative: d/dx = g strictly inside (min_val, max_val), 0 outside and at the bounds
  return with_derivative(
      "HardtanhBackward", x, [=](const Tensor& x) { return clamp(x, lo, hi); },
      [=](const Tensor& g, const Tensor& x) {
        return where(x <= lo, 0.0, where(x >= hi, 0.0, g));
      });
}

Tensor relu6(const Tensor& x) { return hardtanh(x, 0, 6); }

// The gradient is 1/6 strictly inside (-3, 3), 0 elsewhere and at NaN, as PyTorch.
Tensor hardsigmoid(const Tensor& x) {
  check_floating("hardsigmoid", x);
  // derivative: d/dx = g/6 strictly inside (-3, 3), 0 elsewhere
  return with_derivative(
      "HardsigmoidBackward", x, [](const Tensor& x) { return clamp(x + 3.0, 0, 6) / 6.0; },
      [](const Tensor& g, const Tensor& x) { return where(x > -3, where(x < 3, g / 6.0, 0.0), 0.0); });
}

// As PyTorch: both ends of [-3, 3] take the middle slope, and NaN takes 1.
Tensor hardswish(const Tensor& x) {
  check_floating("hardswish", x);
  // derivative: d/dx = 0 below -3, g·(x/3 + 1/2) on [-3, 3], g above
  return with_derivative(
      "HardswishBackward", x, [](const Tensor& x) { return x * clamp(x + 3.0, 0, 6) / 6.0; },
      [](const Tensor& g, const Tensor& x) {
        return where(x < -3, 0.0, where(x <= 3, g * (x / 3.0 + 0.5), g));
      });
}

// One kernel (shared with the losses).
Tensor log_sigmoid(const Tensor& x) {
  check_floating("log_sigmoid", x);
  Tensor out = empty(x.sizes(), x.options());
  kernels().elementwise.loss.on(x.device(), "log_sigmoid")("log_sigmoid", LossOp::kLogSigmoid,
                                                           out, {&x});
  // derivative: d/dx = g·sigmoid(-x)
  return record("LogSigmoidBackward", x, out, Save::kInput,
                [](const Tensor& g, const Tensor& x) { return g * sigmoid(-x); });
}

// NaN gives 0 with gradient 1, as PyTorch.
Tensor softshrink(const Tensor& x, const Scalar& lambd) {
  check_floating("softshrink", x);
  const double l = lambd.toDouble();
  EMBER_CHECK(l >= 0, "softshrink: lambda must be greater or equal to 0, but found to be ", l);
  // derivative: d/dx = g where |x| > lambd, 0 elsewhere
  return with_derivative(
      "SoftshrinkBackward", x,
      [l](const Tensor& x) { return where(x > l, x - l, where(x < -l, x + l, 0.0)); },
      [l](const Tensor& g, const Tensor& x) { return shrink_grad(g, x, l); });
}

Tensor hardshrink(const Tensor& x, const Scalar& lambd) {
  check_floating("hardshrink", x);
  const double l = lambd.toDouble();
  // derivative: d/dx = g where |x| > lambd, 0 elsewhere
  return with_derivative(
      "HardshrinkBackward", x, [l](const Tensor& x) { return where(abs(x) <= l, 0.0, x); },
      [l](const Tensor& g, const Tensor& x) { return shrink_grad(g, x, l); });
}

Tensor Tensor::hardshrink(const Scalar& lambd) const { return ember::hardshrink(*this, lambd); }

}  // namespace ember
