// remainder, fmod, floor_divide, atan2: forward, in-place forms, the %
// operator, and derivatives written with ember ops.
#include "ember/core/autocast.h"
#include "ember/core/ops/elementwise/binary_math.h"

#include "ember/autograd/function.h"
#include "ember/core/ops/elementwise/binary_helpers.h"
#include "ember/core/ops/elementwise/compare.h"
#include "ember/core/ops/reduction/reduce.h"
#include "ember/core/ops/elementwise/unary.h"
#include "ember/core/ops/elementwise/unary_math.h"

namespace ember {

using autograd::Node;
using binary_detail::binary;
using binary_detail::binary_inplace;

namespace {

// As PyTorch on the CPU: an integer division by zero raises (CUDA kernels
// cannot, and give an unspecified value there, as PyTorch's).
void check_integer_divisor(const char* name, ScalarType compute, const Tensor& divisor) {
  if (is_floating_point(compute) || !divisor.is_cpu()) return;
  EMBER_CHECK(!any(divisor == 0).item<bool>(), name,
              ": ZeroDivisionError (integer division by zero, divisor of shape ",
              divisor.sizes(), " and dtype ", divisor.scalar_type(), ")");
}

// d/da (a - b round(a / b)) = 1, d/db = -round(a / b), round being floor
// (remainder) or trunc (fmod): the rounding is flat almost everywhere.
std::shared_ptr<Node> divmod_node(const char* node_name, const Tensor& a, const Tensor& b,
                                  const Tensor& a_value, Tensor (*round)(const Tensor&)) {
  auto node = autograd::make_node(node_name, {a, b}, [round](Node& n, const tensor_list& g) {
    return tensor_list{n.needs_input_grad(0) ? g[0] : Tensor(),
                       n.needs_input_grad(1) ? -g[0] * round(n.saved(0) / n.saved(1)) : Tensor()};
  });
  node->save(node->needs_input_grad(1) ? a_value : Tensor());
  node->save(node->needs_input_grad(1) ? b : Tensor());
  return node;
}

Tensor floor_of(const Tensor& x) { return floor(x); }
Tensor trunc_of(const Tensor& x) { return trunc(x); }

// derivative of atan2, atan2_: d/da = g·b/(a² + b²), d/db = -g·a/(a² + b²)
std::shared_ptr<Node> atan2_node(const Tensor& a, const Tensor& b, const Tensor& a_value) {
  auto node = autograd::make_node("Atan2Backward", {a, b}, [](Node& n, const tensor_list& g) {
    const Tensor a = n.saved(0), b = n.saved(1);
    const Tensor g_over = g[0] / (a * a + b * b);
    return tensor_list{n.needs_input_grad(0) ? g_over * b : Tensor(),
                       n.needs_input_grad(1) ? -g_over * a : Tensor()};
  });
  node->save(a_value);
  node->save(b);
  return node;
}

ScalarType atan2_type(const Tensor& a, const Tensor& b) {
  const ScalarType t = result_type(a, b);
  return is_floating_point(t) ? t : kFloat;
}

template <template <typename> class Op>
Tensor divmod(const char* name, const char* node_name, const Tensor& a, const Tensor& b,
              Tensor (*round)(const Tensor&)) {
  check_integer_divisor(name, result_type(a, b), b);
  Tensor out = binary<Op>(name, a, b, result_type(a, b));
  if (autograd::needs_grad(a, b)) autograd::set_history(out, divmod_node(node_name, a, b, a, round));
  return out;
}

// self = Op(self, other), recording the node before self's values are overwritten.
template <template <typename> class Op>
const Tensor& divmod_(const char* name, const char* node_name, const Tensor& self,
                      const Tensor& other, Tensor (*round)(const Tensor&)) {
  autograd::check_inplace(self, name, {other});
  check_integer_divisor(name, result_type(self, other), other);
  std::shared_ptr<Node> node;
  if (autograd::needs_grad(self, other))  // other's gradient needs self's old values
    node = divmod_node(node_name, self, other, other.requires_grad() ? self.clone() : Tensor(), round);
  binary_inplace<Op>(name, self, other, result_type(self, other));
  if (node) autograd::rebase_history(self, node);
  return self;
}

}  // namespace

Tensor remainder(const Tensor& a, const Tensor& b) {
  // derivative: d/da = g, d/db = -g·floor(a/b)
  return divmod<functors::Remainder>("remainder", "RemainderBackward", a, b, floor_of);
}
Tensor remainder(const Tensor& a, const Scalar& b) { return remainder(a, detail::scalar_operand(b, a)); }
Tensor remainder(const Scalar& a, const Tensor& b) { return remainder(detail::scalar_operand(a, b), b); }

Tensor fmod(const Tensor& a, const Tensor& b) {
  // derivative: d/da = g, d/db = -g·trunc(a/b)
  return divmod<functors::Fmod>("fmod", "FmodBackward", a, b, trunc_of);
}
Tensor fmod(const Tensor& a, const Scalar& b) { return fmod(a, detail::scalar_operand(b, a)); }

Tensor floor_divide(const Tensor& a, const Tensor& b) {
  check_integer_divisor("floor_divide", result_type(a, b), b);
  return binary<functors::FloorDivide>("floor_divide", a, b, result_type(a, b));
}
Tensor floor_divide(const Tensor& a, const Scalar& b) {
  return floor_divide(a, detail::scalar_operand(b, a));
}

Tensor atan2(const Tensor& a, const Tensor& b) {
  if (const auto to = autocast::cast_dtype(autocast::kCudaPromoteOp, {&a, &b}))
    return atan2(autocast::cast(a, *to), autocast::cast(b, *to));
  Tensor out = binary<functors::Atan2>("atan2", a, b, atan2_type(a, b));
  if (autograd::needs_grad(a, b)) autograd::set_history(out, atan2_node(a, b, a));
  return out;
}

Tensor Tensor::remainder(const Tensor& o) const { return ember::remainder(*this, o); }
Tensor Tensor::remainder(const Scalar& o) const { return ember::remainder(*this, o); }
Tensor Tensor::fmod(const Tensor& o) const { return ember::fmod(*this, o); }
Tensor Tensor::fmod(const Scalar& o) const { return ember::fmod(*this, o); }
Tensor Tensor::floor_divide(const Tensor& o) const { return ember::floor_divide(*this, o); }
Tensor Tensor::floor_divide(const Scalar& o) const { return ember::floor_divide(*this, o); }
Tensor Tensor::atan2(const Tensor& o) const { return ember::atan2(*this, o); }

Tensor& Tensor::remainder_(const Tensor& o) const {
  divmod_<functors::Remainder>("remainder_", "RemainderBackward", *this, o, floor_of);
  return const_cast<Tensor&>(*this);
}
Tensor& Tensor::remainder_(const Scalar& o) const { return remainder_(detail::scalar_operand(o, *this)); }
Tensor& Tensor::fmod_(const Tensor& o) const {
  divmod_<functors::Fmod>("fmod_", "FmodBackward", *this, o, trunc_of);
  return const_cast<Tensor&>(*this);
}
Tensor& Tensor::fmod_(const Scalar& o) const { return fmod_(detail::scalar_operand(o, *this)); }
Tensor& Tensor::floor_divide_(const Tensor& o) const {
  autograd::check_inplace(*this, "floor_divide_", {o});
  EMBER_CHECK(!autograd::needs_grad(*this, o),
              "floor_divide_: not differentiable, but an operand requires grad");
  check_integer_divisor("floor_divide_", result_type(*this, o), o);
  binary_inplace<functors::FloorDivide>("floor_divide_", *this, o, result_type(*this, o));
  return const_cast<Tensor&>(*this);
}
Tensor& Tensor::floor_divide_(const Scalar& o) const {
  return floor_divide_(detail::scalar_operand(o, *this));
}
Tensor& Tensor::atan2_(const Tensor& o) const {
  autograd::check_inplace(*this, "atan2_", {o});
  std::shared_ptr<Node> node;
  if (autograd::needs_grad(*this, o)) node = atan2_node(*this, o, clone());
  binary_inplace<functors::Atan2>("atan2_", *this, o, atan2_type(*this, o));
  if (node) autograd::rebase_history(*this, node);
  return const_cast<Tensor&>(*this);
}

Tensor operator%(const Tensor& a, const Tensor& b) { return remainder(a, b); }
Tensor operator%(const Tensor& a, const Scalar& b) { return remainder(a, b); }

}  // namespace ember
