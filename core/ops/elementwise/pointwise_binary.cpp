// hypot, xlogy, copysign, logaddexp, logaddexp2, heaviside, isclose: forward
// (functors in kernels/common/pointwise_functors.h, launched through
// binary_helpers.h), in-place forms, and derivatives written with ember ops.
#include <numbers>
#include <type_traits>

#include "ember/autograd/function.h"
#include "ember/core/ops/elementwise/binary_helpers.h"
#include "ember/core/ops/elementwise/compare.h"
#include "ember/core/ops/elementwise/compare_helpers.h"
#include "ember/core/ops/elementwise/pointwise_extras.h"
#include "ember/core/ops/elementwise/pointwise_binary.h"
#include "ember/core/ops/elementwise/unary.h"

namespace ember {

using autograd::Node;
using binary_detail::binary;
using binary_detail::binary_inplace;

namespace {

// d out / d a and d out / d b from the saved a (its value before an in-place
// write) and b: each op's `<op>_grad`, written right above the op.
using BinaryGrad = tensor_list (*)(const Tensor& g, const Tensor& a, const Tensor& b);

// The node of out = f(a, b): saves a_value (a, or self's old values for an
// in-place form) and b.
std::shared_ptr<Node> binary_node(const char* node_name, const Tensor& a, const Tensor& b,
                                  const Tensor& a_value, BinaryGrad grad) {
  auto node = autograd::make_node(node_name, {a, b},
                                  [grad](Node& n, const tensor_list& g) {
    tensor_list d = grad(g[0], n.saved(0), n.saved(1));
    for (size_t i = 0; i < d.size(); ++i)
      if (!n.needs_input_grad(i)) d[i] = Tensor();
    return d;
  });
  node->save(a_value);
  node->save(b);
  return node;
}

// The floating dtype a, b compute in: xlogy and copysign promote int64 and
// bool to float32; hypot, logaddexp(2) refuse them (promoted_only), as PyTorch.
ScalarType floating_type(const char* name, const Tensor& a, const Tensor& b, bool promoted_only) {
  const ScalarType t = result_type(a, b);
  if (is_floating_point(t)) return t;
  if (promoted_only) dtype_not_supported(name, t, "float32 or float64");
  return kFloat;
}

// Which ops refuse integer operands.
template <template <typename> class Op>
constexpr bool kFloatingOperands = !std::is_same_v<Op<float>, functors::Xlogy<float>> &&
                                   !std::is_same_v<Op<float>, functors::Copysign<float>>;

template <template <typename> class Op>
Tensor floating_binary(const char* name, const char* node_name, const Tensor& a, const Tensor& b,
                       BinaryGrad grad) {
  Tensor out = binary<Op>(name, a, b, floating_type(name, a, b, kFloatingOperands<Op>));
  if (autograd::needs_grad(a, b))
    autograd::set_history(out, binary_node(node_name, a, b, a, grad));
  return out;
}

// self = Op(self, other), recording the node before self's values are overwritten.
template <template <typename> class Op>
Tensor& floating_binary_(const char* name, const char* node_name, const Tensor& self,
                         const Tensor& other, BinaryGrad grad) {
  autograd::check_inplace(self, name, {other});
  std::shared_ptr<Node> node;
  if (autograd::needs_grad(self, other))
    node = binary_node(node_name, self, other, self.clone(), grad);
  binary_inplace<Op>(name, self, other, floating_type(name, self, other, kFloatingOperands<Op>));
  if (node) autograd::rebase_history(self, node);
  return const_cast<Tensor&>(self);
}

void check_same_dtype(const char* name, const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.scalar_type() == b.scalar_type(), name,
              ": expected both operands to have one dtype, got ", a.scalar_type(), " and ",
              b.scalar_type());
}

// heaviside has no derivative (as PyTorch): the result of an input that
// requires grad carries a node that refuses backward.
std::shared_ptr<Node> heaviside_node(const Tensor& x, const Tensor& values) {
  // derivative of heaviside, heaviside_: not implemented (raises: 0 almost everywhere, undefined at 0)
  return autograd::make_node("HeavisideBackward", {x, values},
                             [](Node&, const tensor_list&) -> tensor_list {
    EMBER_ERROR("heaviside: the derivative is not implemented (it is 0 almost everywhere "
                "and undefined at 0)");
  });
}

}  // namespace

constexpr auto hypot_grad =
    [](const Tensor& g, const Tensor& a, const Tensor& b) -> tensor_list {
  const Tensor g_over = g / hypot(a, b);
  return {g_over * a, g_over * b};
};
Tensor hypot(const Tensor& a, const Tensor& b) {
  // derivative: d/da = g·a/y, d/db = g·b/y
  return floating_binary<functors::Hypot>("hypot", "HypotBackward", a, b, hypot_grad);
}
// d/dx = log(y), taken as 0 where x == 0 (xlogy(x != 0, y)); d/dy = x / y.
constexpr auto xlogy_grad =
    [](const Tensor& g, const Tensor& x, const Tensor& y) -> tensor_list {
  return {g * xlogy(x != 0, y), g * x / y};
};
Tensor xlogy(const Tensor& x, const Tensor& y) {
  // derivative: d/dx = g·log(y) (0 where x == 0), d/dy = g·x/y
  return floating_binary<functors::Xlogy>("xlogy", "XlogyBackward", x, y, xlogy_grad);
}
Tensor xlogy(const Scalar& x, const Tensor& y) { return xlogy(detail::scalar_operand(x, y), y); }
Tensor xlogy(const Tensor& x, const Scalar& y) { return xlogy(x, detail::scalar_operand(y, x)); }
// d/da = sign(a) sign(b) (0 at a == 0, as PyTorch), with b's sign bit; b gets none.
constexpr auto copysign_grad =
    [](const Tensor& g, const Tensor& a, const Tensor& b) -> tensor_list {
  return {g * sign(a) * copysign(ones_like(b, b.options().dtype(g.scalar_type())), b),
          zeros_like(g)};
};
Tensor copysign(const Tensor& a, const Tensor& b) {
  // derivative: d/da = g·sign(a)·sign(b) (0 at a == 0), d/db = 0
  return floating_binary<functors::Copysign>("copysign", "CopysignBackward", a, b,
                                             copysign_grad);
}
Tensor copysign(const Tensor& a, const Scalar& b) {
  return copysign(a, detail::scalar_operand(b, a));
}
// d/da log(e^a + e^b) = sigmoid(a - b).
constexpr auto logaddexp_grad =
    [](const Tensor& g, const Tensor& a, const Tensor& b) -> tensor_list {
  return {g * sigmoid(a - b), g * sigmoid(b - a)};
};
Tensor logaddexp(const Tensor& a, const Tensor& b) {
  // derivative: d/da = g·sigmoid(a - b), d/db = g·sigmoid(b - a)
  return floating_binary<functors::LogAddExp>("logaddexp", "LogaddexpBackward", a, b,
                                              logaddexp_grad);
}
constexpr auto logaddexp2_grad =
    [](const Tensor& g, const Tensor& a, const Tensor& b) -> tensor_list {
  const Tensor d = (a - b) * std::numbers::ln2;
  return {g * sigmoid(d), g * sigmoid(-d)};
};
Tensor logaddexp2(const Tensor& a, const Tensor& b) {
  // derivative: d/da = g·sigmoid((a - b)·ln 2), d/db = g·sigmoid((b - a)·ln 2)
  return floating_binary<functors::LogAddExp2>("logaddexp2", "Logaddexp2Backward", a, b,
                                               logaddexp2_grad);
}
Tensor heaviside(const Tensor& x, const Tensor& values) {
  check_same_dtype("heaviside", x, values);
  Tensor out = binary<functors::Heaviside>("heaviside", x, values, x.scalar_type());
  if (autograd::needs_grad(x, values)) autograd::set_history(out, heaviside_node(x, values));
  return out;
}
Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  check_same_dtype("isclose", a, b);
  EMBER_CHECK(rtol >= 0, "isclose: rtol must be >= 0, got ", rtol);
  EMBER_CHECK(atol >= 0, "isclose: atol must be >= 0, got ", atol);
  return detail::bool_elementwise<functors::IsClose>("isclose", a, b, rtol, atol, equal_nan);
}

Tensor& Tensor::hypot_(const Tensor& o) const {
  return floating_binary_<functors::Hypot>("hypot_", "HypotBackward", *this, o, hypot_grad);
}
Tensor& Tensor::xlogy_(const Tensor& o) const {
  return floating_binary_<functors::Xlogy>("xlogy_", "XlogyBackward", *this, o, xlogy_grad);
}
Tensor& Tensor::xlogy_(const Scalar& o) const { return xlogy_(detail::scalar_operand(o, *this)); }
Tensor& Tensor::copysign_(const Tensor& o) const {
  return floating_binary_<functors::Copysign>("copysign_", "CopysignBackward", *this, o,
                                              copysign_grad);
}
Tensor& Tensor::copysign_(const Scalar& o) const {
  return copysign_(detail::scalar_operand(o, *this));
}
Tensor& Tensor::heaviside_(const Tensor& values) const {
  check_same_dtype("heaviside_", *this, values);
  autograd::check_inplace(*this, "heaviside_", {values});
  std::shared_ptr<Node> node;
  if (autograd::needs_grad(*this, values)) node = heaviside_node(*this, values);
  binary_inplace<functors::Heaviside>("heaviside_", *this, values, scalar_type());
  if (node) autograd::rebase_history(*this, node);
  return const_cast<Tensor&>(*this);
}

Tensor Tensor::hypot(const Tensor& o) const { return ember::hypot(*this, o); }
Tensor Tensor::xlogy(const Tensor& o) const { return ember::xlogy(*this, o); }
Tensor Tensor::xlogy(const Scalar& o) const { return ember::xlogy(*this, o); }
Tensor Tensor::copysign(const Tensor& o) const { return ember::copysign(*this, o); }
Tensor Tensor::copysign(const Scalar& o) const { return ember::copysign(*this, o); }
Tensor Tensor::logaddexp(const Tensor& o) const { return ember::logaddexp(*this, o); }
Tensor Tensor::logaddexp2(const Tensor& o) const { return ember::logaddexp2(*this, o); }
Tensor Tensor::heaviside(const Tensor& values) const { return ember::heaviside(*this, values); }
Tensor Tensor::isclose(const Tensor& o, double rtol, double atol, bool equal_nan) const {
  return ember::isclose(*this, o, rtol, atol, equal_nan);
}

}  // namespace ember
