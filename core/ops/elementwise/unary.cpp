// Elementwise functions of one tensor: neg, exp, log, sqrt, rsqrt, abs, sign,
// square, reciprocal, the activations (relu, leaky_relu, sigmoid, tanh, gelu),
// clamp, the bool predicates, and the in-place relu_, clamp_, neg_, exp_, log_,
// sqrt_, abs_, sigmoid_, tanh_. Each derivative is written with ember ops next
// to its forward, so it can be differentiated again (double backward).
//
// Dtypes follow PyTorch: exp, log, sqrt, rsqrt, sigmoid, tanh and reciprocal
// compute bool and int64 inputs in float32; neg, abs, relu, clamp keep int64
// (and reject bool); gelu and leaky_relu take floating inputs only.
#include "ember/core/ops/elementwise/unary.h"

#include <limits>

#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/elementwise/binary_helpers.h"
#include "ember/core/ops/elementwise/compare.h"
#include "ember/core/ops/elementwise/unary_helpers.h"

namespace ember {

using autograd::Node;
using namespace unary_detail;

namespace {

void check_neg_dtype(const char* name, const Tensor& x) {
  EMBER_CHECK(x.scalar_type() != kBool, name,
              ": negation of a bool tensor is not supported; "
              "use logical_not() to invert a mask");
}

// The gradient where `mask` holds, 0 elsewhere.
Tensor masked_grad(const Tensor& g, const Tensor& mask) { return where(mask, g, 0.0); }

// relu's backward, g where y > 0, in one pass over g and y (no bool mask).
// It is linear in g, so its own derivative wrt g is itself; wrt y it is 0
// almost everywhere, and y gets no gradient.
Tensor relu_grad(const Tensor& g, const Tensor& y) {
  detail::check_same_device("relu_backward", g, y);
  const ScalarType t = g.scalar_type();
  Tensor out = empty(broadcast_shapes(g.sizes(), y.sizes(), "relu_backward"), g.options());
  const Tensor yc = detail::cast_for_kernel(y, t);
  binary_detail::launch<functors::ReluBackward>("relu_backward", out, g, yc);
  if (autograd::needs_grad(g)) {
    // derivative of relu, relu_: d/dg = gg where y > 0, 0 elsewhere (relu_grad again); y gets none
    auto node = autograd::make_node("ReluBackwardBackward", {g}, [](Node& n, const tensor_list& gg) {
      return tensor_list{relu_grad(gg[0], n.saved(0))};
    });
    node->save(y);
    autograd::set_history(out, node);
  }
  return out;
}

// phi(x) = exp(-x^2/2) / sqrt(2 pi), the standard normal density.
Tensor normal_pdf(const Tensor& x) {
  constexpr double kInvSqrt2Pi = 0.39894228040143267794;
  return exp(x * x * -0.5) * kInvSqrt2Pi;
}

// Phi(x), the standard normal CDF, as an op: gelu's derivative needs it, and
// its own derivative phi(x) keeps gelu twice differentiable.
Tensor normal_cdf(const Tensor& x) {
  Tensor y = floating_only_unary<functors::NormalCdf>("gelu", x);
  // derivative of gelu: normal_cdf inside its derivative, d/dx = g·phi(x), phi the standard normal density
  return record("NormalCdfBackward", x, y, Save::kInput,
                [](const Tensor& g, const Tensor& x) { return g * normal_pdf(x); });
}

// d/dx [x Phi(x)] = Phi(x) + x phi(x)
Tensor gelu_erf_grad(const Tensor& g, const Tensor& x) {
  return g * (normal_cdf(x) + x * normal_pdf(x));
}

// y = 0.5 x (1 + t), t = tanh(u), u = k (x + c x^3):
// dy/dx = 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 c x^2)
Tensor gelu_tanh_grad(const Tensor& g, const Tensor& x) {
  const double k = functors::kSqrt2OverPi, c = functors::kGeluTanhCubic;
  const Tensor x2 = x * x;
  const Tensor t = tanh((x + x2 * x * c) * k);
  const Tensor du = (x2 * (3 * c) + 1.0) * k;
  return g * ((t + 1.0) * 0.5 + x * (1.0 - t * t) * du * 0.5);
}

// ---- clamp ----

// The dtype clamp computes in: x's, raised by floating bounds (as torch.clamp).
ScalarType clamp_type(const Tensor& x, const std::optional<Scalar>& lo,
                      const std::optional<Scalar>& hi) {
  if (x.scalar_type() == kBool) dtype_not_supported("clamp", kBool, "a dtype other than bool");
  const bool floating_bound = (lo && lo->is_floating_point()) || (hi && hi->is_floating_point());
  return floating_bound && !is_floating_point(x.scalar_type()) ? kFloat : x.scalar_type();
}

// A missing bound is the widest value of T.
template <typename T>
T lower_bound(const std::optional<Scalar>& lo) {
  if (lo) return lo->to<T>();
  return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                              : std::numeric_limits<T>::lowest();
}
template <typename T>
T upper_bound(const std::optional<Scalar>& hi) {
  if (hi) return hi->to<T>();
  return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                              : std::numeric_limits<T>::max();
}

// Where clamp passes the gradient: lo <= x <= hi (a bool tensor).
Tensor clamp_mask(const Tensor& x, const std::optional<Scalar>& lo,
                  const std::optional<Scalar>& hi) {
  return dispatch_compute<DtypeSet::kFloating>(x.scalar_type(), "clamp", [&]<typename T>() {
    return unary_kernel<functors::InRange, T, bool>("clamp", x, x.scalar_type(), lower_bound<T>(lo),
                                                    upper_bound<T>(hi));
  });
}

void check_clamp_bounds(const char* name, const std::optional<Scalar>& lo,
                        const std::optional<Scalar>& hi) {
  EMBER_CHECK(lo || hi, name, ": at least one of 'min' or 'max' must be given");
}

// ---- derivatives shared by an op and its in-place form ----

Tensor exp_grad(const Tensor& g, const Tensor& y) { return g * y; }
Tensor log_grad(const Tensor& g, const Tensor& x) { return g / x; }
Tensor sqrt_grad(const Tensor& g, const Tensor& y) { return g / (y * 2.0); }
Tensor abs_grad(const Tensor& g, const Tensor& x) { return g * sign(x); }
// s' = s (1 - s)
Tensor sigmoid_grad(const Tensor& g, const Tensor& s) { return g * s * (1.0 - s); }
// t' = 1 - t^2
Tensor tanh_grad(const Tensor& g, const Tensor& t) { return g * (1.0 - t * t); }

}  // namespace

// ---- forward and derivative of each op ----

Tensor neg(const Tensor& x) {
  check_neg_dtype("neg", x);
  // derivative: d/dx = -g
  return record("NegBackward", x, numeric_unary<functors::Neg>("neg", x), Save::kNothing,
                [](const Tensor& g, const Tensor&) { return -g; });
}

Tensor exp(const Tensor& x) {
  // derivative: d/dx = g·y
  return record("ExpBackward", x, floating_result_unary<functors::Exp>("exp", x), Save::kOutput,
                exp_grad);
}

Tensor log(const Tensor& x) {
  // derivative: d/dx = g/x
  return record("LogBackward", x, floating_result_unary<functors::Log>("log", x), Save::kInput,
                log_grad);
}

Tensor sqrt(const Tensor& x) {
  // derivative: d/dx = g/(2y)
  return record("SqrtBackward", x, floating_result_unary<functors::Sqrt>("sqrt", x), Save::kOutput,
                sqrt_grad);
}

Tensor rsqrt(const Tensor& x) {
  // derivative: d/dx = -g·y³/2
  return record("RsqrtBackward", x, floating_result_unary<functors::Rsqrt>("rsqrt", x),
                Save::kOutput,
                [](const Tensor& g, const Tensor& y) { return g * pow(y, 3) * -0.5; });
}

Tensor abs(const Tensor& x) {
  // derivative: d/dx = g·sign(x)
  return record("AbsBackward", x, numeric_unary<functors::Abs>("abs", x), Save::kInput, abs_grad);
}

Tensor sign(const Tensor& x) {
  Tensor y = dispatch_compute<DtypeSet::kAll>(x.scalar_type(), "sign", [&]<typename T>() {
    return unary_kernel<functors::Sign, T>("sign", x, x.scalar_type());
  });
  // derivative: d/dx = 0
  return record("SignBackward", x, y, Save::kNothing,
                [](const Tensor& g, const Tensor&) { return zeros_like(g); });
}

// bool squares to int64, as torch.square (x ** 2).
Tensor square(const Tensor& x) {
  const ScalarType t = x.scalar_type() == kBool ? kLong : x.scalar_type();
  Tensor y = dispatch_compute<DtypeSet::kNumeric>(
      t, "square", [&]<typename T>() { return unary_kernel<functors::Square, T>("square", x, t); });
  // derivative: d/dx = 2g·x
  return record("SquareBackward", x, y, Save::kInput,
                [](const Tensor& g, const Tensor& x) { return g * x * 2.0; });
}

Tensor reciprocal(const Tensor& x) {
  // derivative: d/dx = -g·y²
  return record("ReciprocalBackward", x,
                floating_result_unary<functors::Reciprocal>("reciprocal", x), Save::kOutput,
                [](const Tensor& g, const Tensor& y) { return -(g * y * y); });
}

// The mask y > 0 equals x > 0, so the output is saved (no extra memory).
Tensor relu(const Tensor& x) {
  // derivative: d/dx = g where y > 0, 0 elsewhere
  return record("ReluBackward", x, numeric_unary<functors::Relu>("relu", x), Save::kOutput,
                relu_grad);
}

Tensor leaky_relu(const Tensor& x, const Scalar& negative_slope) {
  const double slope = negative_slope.toDouble();
  Tensor y = floating_only_unary<functors::LeakyRelu>("leaky_relu", x, slope);
  // derivative: d/dx = g where x > 0, g·negative_slope elsewhere
  return record("LeakyReluBackward", x, y, Save::kInput,
                [slope](const Tensor& g, const Tensor& x) { return where(x > 0, g, g * slope); });
}

Tensor sigmoid(const Tensor& x) {
  // derivative: d/dx = g·y·(1 - y)
  return record("SigmoidBackward", x, floating_result_unary<functors::Sigmoid>("sigmoid", x),
                Save::kOutput, sigmoid_grad);
}

Tensor tanh(const Tensor& x) {
  // derivative: d/dx = g·(1 - y²)
  return record("TanhBackward", x, floating_result_unary<functors::Tanh>("tanh", x), Save::kOutput,
                tanh_grad);
}

Tensor gelu(const Tensor& x, const std::string& approximate) {
  // derivative: d/dx = g·(Phi(x) + x·phi(x)), Phi and phi the normal CDF and density; approximate="tanh": g·d/dx[0.5x(1 + tanh(k(x + c·x³)))]
  if (approximate == "none")
    return record("GeluBackward", x, floating_only_unary<functors::Gelu>("gelu", x), Save::kInput,
                  gelu_erf_grad);
  if (approximate == "tanh")
    return record("GeluBackward", x, floating_only_unary<functors::GeluTanh>("gelu", x),
                  Save::kInput, gelu_tanh_grad);
  EMBER_ERROR("gelu: argument 'approximate' must be \"none\" or \"tanh\", got \"", approximate,
              "\"");
}

Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max) {
  check_clamp_bounds("clamp", min, max);
  const ScalarType t = clamp_type(x, min, max);
  Tensor y = dispatch_compute<DtypeSet::kNumeric>(t, "clamp", [&]<typename T>() {
    return unary_kernel<functors::Clamp, T>("clamp", x, t, lower_bound<T>(min), upper_bound<T>(max));
  });
  // derivative: d/dx = g where min <= x <= max, 0 elsewhere
  return record("ClampBackward", x, y, Save::kInput, [min, max](const Tensor& g, const Tensor& x) {
    return masked_grad(g, clamp_mask(x, min, max));
  });
}
Tensor clamp_min(const Tensor& x, const Scalar& min) { return clamp(x, min, std::nullopt); }
Tensor clamp_max(const Tensor& x, const Scalar& max) { return clamp(x, std::nullopt, max); }

Tensor isnan(const Tensor& x) { return predicate<functors::IsNan>("isnan", x); }
Tensor isfinite(const Tensor& x) { return predicate<functors::IsFinite>("isfinite", x); }
Tensor logical_not(const Tensor& x) { return predicate<functors::LogicalNot>("logical_not", x); }

// ---- in place (Note [Version counters]; the pattern of Tensor::mul_ in binary.cpp) ----

Tensor& Tensor::neg_() const {
  check_neg_dtype("neg_", *this);
  autograd::check_inplace(*this, "neg_");
  auto node = autograd::needs_grad(*this)
                  ? unary_node("NegBackward", *this, Save::kNothing,
                               [](const Tensor& g, const Tensor&) { return -g; })
                  : nullptr;
  apply_inplace<functors::Neg>("neg_", *this);
  if (node) autograd::rebase_history(*this, node);
  return const_cast<Tensor&>(*this);
}

Tensor& Tensor::exp_() const {
  return inplace_unary<functors::Exp>("exp_", "ExpBackward", *this, floating_result_type(*this),
                                      Save::kOutput, exp_grad);
}
Tensor& Tensor::log_() const {
  return inplace_unary<functors::Log>("log_", "LogBackward", *this, floating_result_type(*this),
                                      Save::kInput, log_grad);
}
Tensor& Tensor::sqrt_() const {
  return inplace_unary<functors::Sqrt>("sqrt_", "SqrtBackward", *this,
                                       floating_result_type(*this), Save::kOutput, sqrt_grad);
}
Tensor& Tensor::abs_() const {
  return inplace_unary<functors::Abs>("abs_", "AbsBackward", *this, scalar_type(), Save::kInput,
                                      abs_grad);
}
Tensor& Tensor::sigmoid_() const {
  return inplace_unary<functors::Sigmoid>("sigmoid_", "SigmoidBackward", *this,
                                          floating_result_type(*this), Save::kOutput,
                                          sigmoid_grad);
}
Tensor& Tensor::tanh_() const {
  return inplace_unary<functors::Tanh>("tanh_", "TanhBackward", *this,
                                       floating_result_type(*this), Save::kOutput, tanh_grad);
}

// relu's backward needs only where the output is positive, and the output is
// exactly what self holds after the write: saving self (as the node's output,
// after rebase_history) costs no clone, and the version check still catches a
// later in-place write to it.
Tensor& Tensor::relu_() const {
  autograd::check_inplace(*this, "relu_");
  auto node = autograd::needs_grad(*this)
                  ? unary_node("ReluBackward", *this, Save::kOutput, relu_grad)
                  : nullptr;
  apply_inplace<functors::Relu>("relu_", *this);
  if (node) {
    autograd::rebase_history(*this, node);
    node->save(*this, /*is_output=*/true);
  }
  return const_cast<Tensor&>(*this);
}

// The output cannot tell x == min from x < min, so the gradient mask is taken
// from x before the write (1 byte an element, less than a clone of x).
Tensor& Tensor::clamp_(std::optional<Scalar> min, std::optional<Scalar> max) const {
  check_clamp_bounds("clamp_", min, max);
  detail::check_inplace_dtype("clamp_", *this, clamp_type(*this, min, max));
  autograd::check_inplace(*this, "clamp_");
  assert_no_internal_overlap("clamp_", *this);
  std::shared_ptr<Node> node;
  if (autograd::needs_grad(*this)) {
    node = unary_node("ClampBackward", *this, Save::kInput, masked_grad);  // reads the mask
    node->save(clamp_mask(*this, min, max));
  }
  dispatch_compute<DtypeSet::kNumeric>(scalar_type(), "clamp_", [&]<typename T>() {
    launch<functors::Clamp, T>("clamp_", *this, *this, lower_bound<T>(min), upper_bound<T>(max));
  });
  impl()->bump_version();
  if (node) autograd::rebase_history(*this, node);
  return const_cast<Tensor&>(*this);
}

// ---- Tensor methods ----

Tensor Tensor::neg() const { return ember::neg(*this); }
Tensor Tensor::exp() const { return ember::exp(*this); }
Tensor Tensor::log() const { return ember::log(*this); }
Tensor Tensor::sqrt() const { return ember::sqrt(*this); }
Tensor Tensor::rsqrt() const { return ember::rsqrt(*this); }
Tensor Tensor::abs() const { return ember::abs(*this); }
Tensor Tensor::sign() const { return ember::sign(*this); }
Tensor Tensor::relu() const { return ember::relu(*this); }
Tensor Tensor::leaky_relu(const Scalar& negative_slope) const {
  return ember::leaky_relu(*this, negative_slope);
}
Tensor Tensor::sigmoid() const { return ember::sigmoid(*this); }
Tensor Tensor::tanh() const { return ember::tanh(*this); }
Tensor Tensor::gelu(const std::string& approximate) const {
  return ember::gelu(*this, approximate);
}
Tensor Tensor::square() const { return ember::square(*this); }
Tensor Tensor::reciprocal() const { return ember::reciprocal(*this); }
Tensor Tensor::clamp(std::optional<Scalar> min, std::optional<Scalar> max) const {
  return ember::clamp(*this, min, max);
}
Tensor Tensor::clamp_min(const Scalar& min) const { return ember::clamp_min(*this, min); }
Tensor Tensor::clamp_max(const Scalar& max) const { return ember::clamp_max(*this, max); }
Tensor Tensor::logical_not() const { return ember::logical_not(*this); }

Tensor operator-(const Tensor& a) { return neg(a); }

}  // namespace ember
