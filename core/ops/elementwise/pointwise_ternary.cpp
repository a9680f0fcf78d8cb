// lerp, addcmul, addcdiv: three broadcast operands through one functor
// (kernels/common/pointwise_functors.h, CUDA: kernels/cuda/elementwise_ternary.cu),
// in-place forms (optimizers use them), derivatives written with ember ops.
#include "ember/core/autocast.h"
#include "ember/autograd/function.h"
#include "ember/core/memory_overlap.h"
#include "ember/core/ops/elementwise/elementwise_helpers.h"
#include "ember/core/ops/elementwise/pointwise_extras.h"
#include "ember/core/ops/elementwise/pointwise_ternary.h"
#include "ember/kernels/common/kernel_registry.h"

namespace ember {

using autograd::Node;
using detail::cast_for_kernel;

namespace {

// PyTorch's promotion over three operands: the dimensioned ones decide,
// unless a 0-dim one is of a higher category (bool < integer < floating).
ScalarType result_type3(const Tensor& a, const Tensor& b, const Tensor& c) {
  std::optional<ScalarType> dimmed, zero;
  for (const Tensor* t : {&a, &b, &c}) {
    std::optional<ScalarType>& slot = t->dim() == 0 ? zero : dimmed;
    slot = slot ? promote_types(*slot, t->scalar_type()) : t->scalar_type();
  }
  if (!dimmed) return *zero;
  if (zero && detail::dtype_category(*zero) > detail::dtype_category(*dimmed)) return *zero;
  return *dimmed;
}

// out = Op(a, b, c), every operand already of out's dtype; value is addcmul's
// and addcdiv's, read by the kernel as out's dtype.
template <template <typename> class Op>
void launch(const char* name, const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c,
            const Scalar& value) {
  kernels().elementwise.ternary.on(out.device(), name)(name, TernaryOpOf<Op>::value, out, a, b,
                                                       c, value);
}

template <template <typename> class Op>
Tensor ternary(const char* name, const Tensor& a, const Tensor& b, const Tensor& c, ScalarType t,
               const Scalar& value = Scalar()) {
  const Device device = detail::common_device(name, {&a, &b, &c});
  Tensor out = empty(broadcast_shapes(broadcast_shapes(a.sizes(), b.sizes(), name), c.sizes(), name),
                     a.options().dtype(t).device(device));
  launch<Op>(name, out, cast_for_kernel(a, t), cast_for_kernel(b, t), cast_for_kernel(c, t), value);
  return out;
}

// self = Op(self, b, c): b and c broadcast to self, computed in self's dtype,
// which must hold `result`, the dtype of the out-of-place op.
template <template <typename> class Op>
void ternary_inplace(const char* name, const Tensor& self, const Tensor& b, const Tensor& c,
                     ScalarType result, const Scalar& value = Scalar()) {
  for (const Tensor* o : {&b, &c}) {
    detail::check_operand_device(name, self, *o);
    EMBER_CHECK(is_expandable_to(o->sizes(), self.sizes()), name, ": the operand of shape ",
                o->sizes(), " does not broadcast to the destination's shape ", self.sizes());
  }
  detail::check_inplace_dtype(name, self, result);
  assert_no_internal_overlap(name, self);
  assert_no_partial_overlap(name, self, b);
  assert_no_partial_overlap(name, self, c);
  const ScalarType t = self.scalar_type();
  launch<Op>(name, self, self, cast_for_kernel(b, t), cast_for_kernel(c, t), value);
  self.impl()->bump_version();
}

// ---- lerp ----

void check_lerp(const char* name, const Tensor& a, const Tensor& b, const Tensor* weight) {
  EMBER_CHECK(a.is_floating_point(), name, ": expected floating point tensors, got ",
              a.scalar_type());
  EMBER_CHECK(b.scalar_type() == a.scalar_type(), name, ": expected end of dtype ",
              a.scalar_type(), " (self's), got ", b.scalar_type());
  EMBER_CHECK(!weight || weight->scalar_type() == a.scalar_type(), name,
              ": expected weight of dtype ", a.scalar_type(), " (self's), got ",
              weight->scalar_type());
}

// derivative of lerp, lerp_: d/da = g·(1 - w), d/db = g·w, d/dw = g·(b - a)
// The weight is saved as a tensor (a Scalar weight as a 0-dim one, which needs
// no gradient).
std::shared_ptr<Node> lerp_node(const Tensor& a, const Tensor& b, const Tensor& w,
                                const Tensor& a_value) {
  auto node = autograd::make_node("LerpBackward", {a, b, w}, [](Node& n, const tensor_list& g) {
    const Tensor a = n.saved(0), b = n.saved(1), w = n.saved(2);
    return tensor_list{n.needs_input_grad(0) ? g[0] * (1.0 - w) : Tensor(),
                       n.needs_input_grad(1) ? g[0] * w : Tensor(),
                       n.needs_input_grad(2) ? g[0] * (b - a) : Tensor()};
  });
  node->save(node->needs_input_grad(2) ? a_value : Tensor());
  node->save(node->needs_input_grad(2) ? b : Tensor());
  node->save(w);
  return node;
}

Tensor weight_tensor(const Tensor& a, const Scalar& weight) {
  return scalar_tensor(weight, a.options().device(kCPU));
}

// ---- addcmul, addcdiv ----

ScalarType addcdiv_type(const char* name, const Tensor& self, const Tensor& t1, const Tensor& t2) {
  EMBER_CHECK(is_floating_point(t1.scalar_type()) || is_floating_point(t2.scalar_type()), name,
              ": integer division is not supported (tensor1 ", t1.scalar_type(), ", tensor2 ",
              t2.scalar_type(), "); use a floating tensor1 or tensor2");
  return result_type3(self, t1, t2);
}

// out = self + v t1 op t2: d/dself = 1, and for addcmul d/dt1 = v t2,
// d/dt2 = v t1; for addcdiv d/dt1 = v / t2, d/dt2 = -v t1 / t2^2.
std::shared_ptr<Node> addc_node(const char* node_name, bool is_div, const Tensor& self,
                                const Tensor& t1, const Tensor& t2, const Scalar& value) {
  const double v = value.toDouble();
  auto node = autograd::make_node(node_name, {self, t1, t2},
                                  [is_div, v](Node& n, const tensor_list& g) {
    const Tensor t1 = n.saved(0), t2 = n.saved(1);
    Tensor d1, d2;
    if (n.needs_input_grad(1)) d1 = is_div ? g[0] * v / t2 : g[0] * v * t2;
    if (n.needs_input_grad(2)) d2 = is_div ? -(g[0] * v) * t1 / (t2 * t2) : g[0] * v * t1;
    return tensor_list{n.needs_input_grad(0) ? g[0] : Tensor(), d1, d2};
  });
  node->save(node->needs_input_grad(2) ? t1 : Tensor());
  node->save(node->needs_input_grad(1) || (is_div && node->needs_input_grad(2)) ? t2 : Tensor());
  return node;
}

template <template <typename> class Op>
Tensor addc(const char* name, const char* node_name, bool is_div, const Tensor& self,
            const Tensor& t1, const Tensor& t2, const Scalar& value, ScalarType t) {
  Tensor out = ternary<Op>(name, self, t1, t2, t, value);
  if (autograd::needs_grad(self, t1, t2))
    autograd::set_history(out, addc_node(node_name, is_div, self, t1, t2, value));
  return out;
}

// self's old values are not needed by the derivative: the node is recorded
// before the write only to keep self's previous history as its edge.
template <template <typename> class Op>
Tensor& addc_(const char* name, const char* node_name, bool is_div, const Tensor& self,
              const Tensor& t1, const Tensor& t2, const Scalar& value, ScalarType t) {
  autograd::check_inplace(self, name, {t1, t2});
  std::shared_ptr<Node> node;
  if (autograd::needs_grad(self, t1, t2)) node = addc_node(node_name, is_div, self, t1, t2, value);
  ternary_inplace<Op>(name, self, t1, t2, t, value);
  if (node) autograd::rebase_history(self, node);
  return const_cast<Tensor&>(self);
}

}  // namespace

Tensor lerp(const Tensor& a, const Tensor& b, const Scalar& weight) {
  check_lerp("lerp", a, b, nullptr);
  const Tensor w = weight_tensor(a, weight);
  Tensor out = ternary<functors::Lerp>("lerp", a, b, w, a.scalar_type());
  if (autograd::needs_grad(a, b)) autograd::set_history(out, lerp_node(a, b, w, a));
  return out;
}
Tensor lerp(const Tensor& a, const Tensor& b, const Tensor& weight) {
  check_lerp("lerp", a, b, &weight);
  Tensor out = ternary<functors::Lerp>("lerp", a, b, weight, a.scalar_type());
  if (autograd::needs_grad(a, b, weight)) autograd::set_history(out, lerp_node(a, b, weight, a));
  return out;
}
Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  if (const auto to = autocast::cast_dtype(autocast::kCudaPromoteOp, {&self, &t1, &t2}))
    return addcmul(autocast::cast(self, *to), autocast::cast(t1, *to), autocast::cast(t2, *to), value);
  // derivative: d/dself = g, d/dt1 = g·value·t2, d/dt2 = g·value·t1
  return addc<functors::Addcmul>("addcmul", "AddcmulBackward", false, self, t1, t2, value,
                                 result_type3(self, t1, t2));
}
Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  if (const auto to = autocast::cast_dtype(autocast::kCudaPromoteOp, {&self, &t1, &t2}))
    return addcdiv(autocast::cast(self, *to), autocast::cast(t1, *to), autocast::cast(t2, *to), value);
  // derivative: d/dself = g, d/dt1 = g·value/t2, d/dt2 = -g·value·t1/t2²
  return addc<functors::Addcdiv>("addcdiv", "AddcdivBackward", true, self, t1, t2, value,
                                 addcdiv_type("addcdiv", self, t1, t2));
}

Tensor& Tensor::lerp_(const Tensor& end, const Scalar& weight) const {
  check_lerp("lerp_", *this, end, nullptr);
  return lerp_(end, weight_tensor(*this, weight));
}
Tensor& Tensor::lerp_(const Tensor& end, const Tensor& weight) const {
  check_lerp("lerp_", *this, end, &weight);
  autograd::check_inplace(*this, "lerp_", {end, weight});
  std::shared_ptr<Node> node;
  if (autograd::needs_grad(*this, end, weight))  // weight's gradient needs self's old values
    node = lerp_node(*this, end, weight, weight.requires_grad() ? clone() : Tensor());
  ternary_inplace<functors::Lerp>("lerp_", *this, end, weight, scalar_type());
  if (node) autograd::rebase_history(*this, node);
  return const_cast<Tensor&>(*this);
}
Tensor& Tensor::addcmul_(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  return addc_<functors::Addcmul>("addcmul_", "AddcmulBackward", false, *this, t1, t2, value,
                                  result_type3(*this, t1, t2));
}
Tensor& Tensor::addcdiv_(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  return addc_<functors::Addcdiv>("addcdiv_", "AddcdivBackward", true, *this, t1, t2, value,
                                  addcdiv_type("addcdiv_", *this, t1, t2));
}

Tensor Tensor::lerp(const Tensor& end, const Scalar& weight) const {
  return ember::lerp(*this, end, weight);
}
Tensor Tensor::lerp(const Tensor& end, const Tensor& weight) const {
  return ember::lerp(*this, end, weight);
}
Tensor Tensor::addcmul(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  return ember::addcmul(*this, t1, t2, value);
}
Tensor Tensor::addcdiv(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  return ember::addcdiv(*this, t1, t2, value);
}

}  // namespace ember
