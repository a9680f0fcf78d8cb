// add, sub, mul, div, pow, maximum, minimum, where: forward, in-place forms,
// operators, and their derivatives (written with ember ops, so they can be
// differentiated again).
#include "ember/core/ops/elementwise/binary.h"

#include "ember/autograd/function.h"
#include "ember/core/memory_overlap.h"
#include "ember/core/ops/elementwise/binary_helpers.h"
#include "ember/core/ops/elementwise/compare.h"
#include "ember/core/ops/elementwise/elementwise_helpers.h"
#include "ember/core/ops/elementwise/unary.h"
#include "ember/kernels/common/binary_functors.h"
#include "ember/kernels/common/kernel_registry.h"

namespace ember {

using autograd::Node;
using binary_detail::binary;
using binary_detail::binary_inplace;
using detail::cast_for_kernel;

ScalarType result_type(const Tensor& a, const Tensor& b) {
  const bool a0 = a.dim() == 0, b0 = b.dim() == 0;
  if (a0 == b0) return promote_types(a.scalar_type(), b.scalar_type());
  const Tensor& dimmed = a0 ? b : a;
  const Tensor& zero = a0 ? a : b;
  return detail::dtype_category(zero.scalar_type()) > detail::dtype_category(dimmed.scalar_type())
             ? zero.scalar_type()
             : dimmed.scalar_type();
}

ScalarType result_type(const Tensor& a, const Scalar& b) {
  const ScalarType s = b.is_floating_point() ? kFloat : b.type();
  return detail::dtype_category(s) > detail::dtype_category(a.scalar_type()) ? s : a.scalar_type();
}

Tensor scalar_tensor(const Scalar& s, const TensorOptions& options) {
  return full({}, s, options);
}

namespace {

// True division: integer operands give float32.
ScalarType div_type(const Tensor& a, const Tensor& b) {
  const ScalarType t = result_type(a, b);
  return is_floating_point(t) ? t : kFloat;
}

// As PyTorch: a fractional alpha would be truncated by an integer add/sub.
void check_alpha(const char* name, ScalarType compute, const Scalar& alpha) {
  EMBER_CHECK(!alpha.is_floating_point() || is_floating_point(compute), name, ": for ", compute,
              " tensors, alpha must not be a floating point number, got ", alpha);
  EMBER_CHECK(!alpha.is_bool() || compute == kBool, name,
              ": a bool alpha is only supported for bool results, got ", compute);
}

// -s, keeping an integer alpha integral (sub_ forwards to add_ with -alpha).
Scalar negate(const Scalar& s) {
  return s.is_floating_point() ? Scalar(-s.toDouble()) : Scalar(-s.toLong());
}

// Gradient of add/sub: g to a, sign*alpha*g to b.
std::shared_ptr<Node> add_node(const char* name, const Tensor& a, const Tensor& b, double b_scale) {
  return autograd::make_node(name, {a, b}, [b_scale](Node& n, const tensor_list& g) {
    return tensor_list{n.needs_input_grad(0) ? g[0] : Tensor(),
                       n.needs_input_grad(1) ? (b_scale == 1 ? g[0] : g[0] * b_scale) : Tensor()};
  });
}

// derivative of mul, mul_: d/da = g·b, d/db = g·a
std::shared_ptr<Node> mul_node(const Tensor& a, const Tensor& b, const Tensor& a_value) {
  auto node = autograd::make_node("MulBackward", {a, b}, [](Node& n, const tensor_list& g) {
    return tensor_list{n.needs_input_grad(0) ? g[0] * n.saved(1) : Tensor(),
                       n.needs_input_grad(1) ? g[0] * n.saved(0) : Tensor()};
  });
  node->save(node->needs_input_grad(1) ? a_value : Tensor());
  node->save(node->needs_input_grad(0) ? b : Tensor());
  return node;
}

// derivative of div, div_: d/da = g/b, d/db = -g·a/b²
std::shared_ptr<Node> div_node(const Tensor& a, const Tensor& b, const Tensor& a_value) {
  auto node = autograd::make_node("DivBackward", {a, b}, [](Node& n, const tensor_list& g) {
    const Tensor b = n.saved(1);
    return tensor_list{n.needs_input_grad(0) ? g[0] / b : Tensor(),
                       n.needs_input_grad(1) ? -g[0] * n.saved(0) / (b * b) : Tensor()};
  });
  node->save(node->needs_input_grad(1) ? a_value : Tensor());
  node->save(b);
  return node;
}

}  // namespace

// ---- add / sub ----

Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  check_alpha("add", result_type(a, b), alpha);
  Tensor out = binary<functors::Add>("add", a, b, result_type(a, b), alpha.toDouble());
  // derivative: d/da = g, d/db = g·alpha
  if (autograd::needs_grad(a, b)) autograd::set_history(out, add_node("AddBackward", a, b, alpha.toDouble()));
  return out;
}
Tensor add(const Tensor& a, const Scalar& b, const Scalar& alpha) {
  return add(a, detail::scalar_operand(b, a), alpha);
}
namespace {
// As PyTorch: no subtraction with a bool operand (b - 1 would silently turn a
// mask into integers).
void check_sub_operands(const char* name, const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.scalar_type() != kBool && b.scalar_type() != kBool, name,
              ": subtraction with a bool tensor is not supported (", a.scalar_type(), " - ",
              b.scalar_type(), "); to invert a mask use logical_not()");
}
void check_sub_scalar(const char* name, const Scalar& s) {
  EMBER_CHECK(!s.is_bool(), name, ": subtraction with a bool scalar is not supported");
}
}  // namespace

Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  check_sub_operands("sub", a, b);
  check_alpha("sub", result_type(a, b), alpha);
  Tensor out = binary<functors::Sub>("sub", a, b, result_type(a, b), alpha.toDouble());
  // derivative: d/da = g, d/db = -g·alpha
  if (autograd::needs_grad(a, b)) autograd::set_history(out, add_node("SubBackward", a, b, -alpha.toDouble()));
  return out;
}
Tensor sub(const Tensor& a, const Scalar& b, const Scalar& alpha) {
  check_sub_scalar("sub", b);
  return sub(a, detail::scalar_operand(b, a), alpha);
}
Tensor rsub(const Tensor& a, const Scalar& b, const Scalar& alpha) {
  check_sub_scalar("rsub", b);
  return sub(detail::scalar_operand(b, a), a, alpha);
}

// ---- mul / div ----

Tensor mul(const Tensor& a, const Tensor& b) {
  Tensor out = binary<functors::Mul>("mul", a, b, result_type(a, b));
  if (autograd::needs_grad(a, b)) autograd::set_history(out, mul_node(a, b, a));
  return out;
}
Tensor mul(const Tensor& a, const Scalar& b) { return mul(a, detail::scalar_operand(b, a)); }

Tensor div(const Tensor& a, const Tensor& b) {
  Tensor out = binary<functors::Div>("div", a, b, div_type(a, b));
  if (autograd::needs_grad(a, b)) autograd::set_history(out, div_node(a, b, a));
  return out;
}
Tensor div(const Tensor& a, const Scalar& b) { return div(a, detail::scalar_operand(b, a)); }

// ---- pow ----

Tensor pow(const Tensor& base, const Tensor& exponent) {
  EMBER_CHECK(result_type(base, exponent) != kBool, "pow: not implemented for bool tensors");
  Tensor out = binary<functors::Pow>("pow", base, exponent, result_type(base, exponent));
  if (autograd::needs_grad(base, exponent)) {
    // derivative: d/da = g·b·a^(b-1) (0 where b = 0), d/db = g·y·log(a) (0 at a = 0, b >= 0)
    auto node = autograd::make_node("PowBackward", {base, exponent}, [](Node& n, const tensor_list& g) {
      const Tensor a = n.saved(0), b = n.saved(1);
      Tensor ga, gb;
      // As PyTorch: 0 where b == 0 (b a^(b-1) would be 0 * inf at a == 0).
      const Tensor zero = zeros({}, TensorOptions(g[0].scalar_type()));  // a CPU scalar
      if (n.needs_input_grad(0)) ga = where(b == 0, zero, g[0] * b * pow(a, b - 1));
      // d/db a^b = a^b log a; at a == 0 with b >= 0 the limit is 0, not nan
      // (b < 0 keeps inf * -inf = -inf there, as PyTorch).
      if (n.needs_input_grad(1))
        gb = where(where(a == 0, b >= 0, zeros({}, kBool)), zero, g[0] * n.saved(2) * log(a));
      return tensor_list{ga, gb};
    });
    node->save(base);
    node->save(exponent);
    node->save(node->needs_input_grad(1) ? out : Tensor(), /*is_output=*/true);
    autograd::set_history(out, node);
  }
  return out;
}

Tensor pow(const Tensor& base, const Scalar& exponent) {
  const ScalarType t = result_type(base, exponent);
  EMBER_CHECK(t != kBool, "pow: not implemented for bool tensors");
  EMBER_CHECK(is_floating_point(t) || exponent.toDouble() >= 0, "pow: integers to negative integer "
              "powers are not allowed (", base.scalar_type(), " tensor ** ", exponent, ")");
  const Tensor e = detail::scalar_operand(exponent, base);
  Tensor out = binary<functors::Pow>("pow", base, e, t);
  if (autograd::needs_grad(base)) {
    const double p = exponent.toDouble();
    // derivative: d/da = g·p·a^(p-1) for a Scalar exponent p
    auto node = autograd::make_node("PowBackward", {base}, [p](Node& n, const tensor_list& g) {
      if (p == 0) return tensor_list{zeros_like(g[0])};
      const Tensor a = n.saved(0);
      return tensor_list{p == 2 ? g[0] * a * 2.0 : g[0] * p * pow(a, p - 1)};
    });
    node->save(base);
    autograd::set_history(out, node);
  }
  return out;
}

Tensor pow(const Scalar& base, const Tensor& exponent) {
  return pow(detail::scalar_operand(base, exponent), exponent);
}

// ---- maximum / minimum: the gradient goes to the larger (smaller) input, split on ties, to both on NaN ----

namespace {
Tensor select_grad_max_min(const char* name, const Tensor& a, const Tensor& b, Tensor out, bool is_max) {
  if (!autograd::needs_grad(a, b)) return out;
  auto node = autograd::make_node(name, {a, b}, [is_max](Node& n, const tensor_list& g) {
    const Tensor a = n.saved(0), b = n.saved(1);
    // As PyTorch: an input gets g unless it lost (half on a tie), so where
    // the result is NaN (no order) both inputs get all of g.
    const ScalarType t = g[0].scalar_type();
    const Tensor tie = (a == b).to(t) * 0.5;
    const Tensor a_lost = (is_max ? a < b : a > b).to(t), b_lost = (is_max ? a > b : a < b).to(t);
    return tensor_list{n.needs_input_grad(0) ? g[0] * (1.0 - a_lost - tie) : Tensor(),
                       n.needs_input_grad(1) ? g[0] * (1.0 - b_lost - tie) : Tensor()};
  });
  node->save(a);
  node->save(b);
  autograd::set_history(out, node);
  return out;
}
}  // namespace

Tensor maximum(const Tensor& a, const Tensor& b) {
  // derivative: d/da = g where a > b, d/db = g where b > a, g/2 each on a tie (both g on NaN)
  return select_grad_max_min("MaximumBackward", a, b,
                             binary<functors::Maximum>("maximum", a, b, result_type(a, b)), true);
}
Tensor minimum(const Tensor& a, const Tensor& b) {
  // derivative: d/da = g where a < b, d/db = g where b < a, g/2 each on a tie (both g on NaN)
  return select_grad_max_min("MinimumBackward", a, b,
                             binary<functors::Minimum>("minimum", a, b, result_type(a, b)), false);
}

// ---- where ----

Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b) {
  EMBER_CHECK(condition.scalar_type() == kBool, "where: condition must be a bool tensor, got ",
              condition.scalar_type());
  const Device device = detail::common_device("where", {&condition, &a, &b});
  const ScalarType t = result_type(a, b);
  const DimVector shape = broadcast_shapes(broadcast_shapes(condition.sizes(), a.sizes(), "where"),
                                           b.sizes(), "where");
  Tensor out = empty(shape, a.options().dtype(t).device(device));
  const Tensor ac = cast_for_kernel(a, t), bc = cast_for_kernel(b, t);
  kernels().elementwise.where.on(device, "where")(out, condition, ac, bc);
  if (autograd::needs_grad(a, b)) {
    // derivative: d/da = g where condition, d/db = g where not condition
    auto node = autograd::make_node("WhereBackward", {a, b}, [](Node& n, const tensor_list& g) {
      const Tensor c = n.saved(0);
      const Tensor zero = zeros({}, g[0].options().device(kCPU));  // a CPU scalar
      return tensor_list{n.needs_input_grad(0) ? where(c, g[0], zero) : Tensor(),
                         n.needs_input_grad(1) ? where(c, zero, g[0]) : Tensor()};
    });
    node->save(condition);
    autograd::set_history(out, node);
  }
  return out;
}
Tensor where(const Tensor& condition, const Tensor& a, const Scalar& b) {
  return where(condition, a, detail::scalar_operand(b, a));
}
Tensor where(const Tensor& condition, const Scalar& a, const Tensor& b) {
  return where(condition, detail::scalar_operand(a, b), b);
}

// ---- Tensor methods and in-place forms ----

Tensor Tensor::add(const Tensor& o, const Scalar& alpha) const { return ember::add(*this, o, alpha); }
Tensor Tensor::add(const Scalar& o, const Scalar& alpha) const { return ember::add(*this, o, alpha); }
Tensor Tensor::sub(const Tensor& o, const Scalar& alpha) const { return ember::sub(*this, o, alpha); }
Tensor Tensor::sub(const Scalar& o, const Scalar& alpha) const { return ember::sub(*this, o, alpha); }
Tensor Tensor::mul(const Tensor& o) const { return ember::mul(*this, o); }
Tensor Tensor::mul(const Scalar& o) const { return ember::mul(*this, o); }
Tensor Tensor::div(const Tensor& o) const { return ember::div(*this, o); }
Tensor Tensor::div(const Scalar& o) const { return ember::div(*this, o); }
Tensor Tensor::pow(const Tensor& e) const { return ember::pow(*this, e); }
Tensor Tensor::pow(const Scalar& e) const { return ember::pow(*this, e); }
Tensor Tensor::maximum(const Tensor& o) const { return ember::maximum(*this, o); }
Tensor Tensor::minimum(const Tensor& o) const { return ember::minimum(*this, o); }

Tensor& Tensor::add_(const Tensor& other, const Scalar& alpha) const {
  autograd::check_inplace(*this, "add_", {other});
  const bool grad = autograd::needs_grad(*this, other);
  check_alpha("add_", result_type(*this, other), alpha);
  auto node = grad ? add_node("AddBackward", *this, other, alpha.toDouble()) : nullptr;
  binary_inplace<functors::Add>("add_", *this, other, result_type(*this, other), alpha.toDouble());
  if (node) autograd::rebase_history(*this, node);
  return const_cast<Tensor&>(*this);
}
Tensor& Tensor::add_(const Scalar& o, const Scalar& alpha) const { return add_(detail::scalar_operand(o, *this), alpha); }
Tensor& Tensor::sub_(const Tensor& other, const Scalar& alpha) const {
  check_sub_operands("sub_", *this, other);
  return add_(other, negate(alpha));
}
Tensor& Tensor::sub_(const Scalar& o, const Scalar& alpha) const {
  check_sub_scalar("sub_", o);
  return sub_(detail::scalar_operand(o, *this), alpha);
}

Tensor& Tensor::mul_(const Tensor& other) const {
  autograd::check_inplace(*this, "mul_", {other});
  std::shared_ptr<Node> node;
  // other's gradient needs the value self had: a clone that keeps self's
  // history, so double backward also reaches self through it.
  if (autograd::needs_grad(*this, other))
    node = mul_node(*this, other, other.requires_grad() ? clone() : Tensor());
  binary_inplace<functors::Mul>("mul_", *this, other, result_type(*this, other));
  if (node) autograd::rebase_history(*this, node);
  return const_cast<Tensor&>(*this);
}
Tensor& Tensor::mul_(const Scalar& o) const { return mul_(detail::scalar_operand(o, *this)); }

Tensor& Tensor::div_(const Tensor& other) const {
  autograd::check_inplace(*this, "div_", {other});
  std::shared_ptr<Node> node;
  if (autograd::needs_grad(*this, other))
    node = div_node(*this, other, other.requires_grad() ? clone() : Tensor());  // as mul_
  binary_inplace<functors::Div>("div_", *this, other, div_type(*this, other));
  if (node) autograd::rebase_history(*this, node);
  return const_cast<Tensor&>(*this);
}
Tensor& Tensor::div_(const Scalar& o) const { return div_(detail::scalar_operand(o, *this)); }

// ---- operators ----

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator+(const Tensor& a, const Scalar& b) { return add(a, b); }
Tensor operator+(const Scalar& a, const Tensor& b) { return add(b, a); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator-(const Tensor& a, const Scalar& b) { return sub(a, b); }
Tensor operator-(const Scalar& a, const Tensor& b) { return rsub(b, a); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator*(const Tensor& a, const Scalar& b) { return mul(a, b); }
Tensor operator*(const Scalar& a, const Tensor& b) { return mul(b, a); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator/(const Tensor& a, const Scalar& b) { return div(a, b); }
Tensor operator/(const Scalar& a, const Tensor& b) { return div(detail::scalar_operand(a, b), b); }
Tensor& operator+=(Tensor& a, const Tensor& b) { return a.add_(b); }
Tensor& operator+=(Tensor& a, const Scalar& b) { return a.add_(b); }
Tensor& operator-=(Tensor& a, const Tensor& b) { return a.sub_(b); }
Tensor& operator-=(Tensor& a, const Scalar& b) { return a.sub_(b); }
Tensor& operator*=(Tensor& a, const Tensor& b) { return a.mul_(b); }
Tensor& operator*=(Tensor& a, const Scalar& b) { return a.mul_(b); }
Tensor& operator/=(Tensor& a, const Tensor& b) { return a.div_(b); }
Tensor& operator/=(Tensor& a, const Scalar& b) { return a.div_(b); }

}  // namespace ember
