#pragma once
// The kernel launchers and the autograd recording shared by the unary op
// files (unary.cpp, unary_math.cpp). Internal: not part of the public API.
#include <memory>

#include "ember/autograd/function.h"
#include "ember/core/memory_overlap.h"
#include "ember/core/ops/elementwise/elementwise_helpers.h"
#include "ember/kernels/common/kernel_registry.h"

namespace ember::unary_detail {

// ---- kernels ----

// out = Op<T>{args...}(x) on out's device, T the compute type of x's dtype
// (compute_dtype), out of x's dtype or bool (the row of Op in
// kernels/common/elementwise_ops.h says which).
template <template <typename> class Op, typename T, typename... Args>
void launch(const char* name, const Tensor& out, const Tensor& x, Args... args) {
  static_assert(sizeof...(Args) <= 3, "unary kernels take at most three parameters");
  const Scalar p[3] = {Scalar(static_cast<T>(args))...};
  kernels().elementwise.unary.on(out.device(), name)(name, UnaryOpOf<Op>::value, out, x, p[0],
                                                     p[1], p[2]);
}

// out = Op<T>{args...}(x) with x cast to `dtype`, whose compute type is T;
// out has that dtype, or bool when Out is bool and T is not.
template <template <typename> class Op, typename T, typename Out = T, typename... Args>
Tensor unary_kernel(const char* name, const Tensor& x, ScalarType dtype, Args... args) {
  const ScalarType out_dtype = std::is_same_v<Out, T> ? dtype : scalar_type_of<Out>;
  Tensor out = empty(x.sizes(), x.options().dtype(out_dtype));
  const Tensor xc = detail::cast_for_kernel(x, dtype);
  launch<Op, T>(name, out, xc, args...);
  return out;
}

// The dtype exp, log, sin, ... compute in: x's if floating, else float32.
inline ScalarType floating_result_type(const Tensor& x) {
  return is_floating_point(x.scalar_type()) ? x.scalar_type() : kFloat;
}

// exp, log, ...: float dtypes are kept, bool and integers compute in float32.
template <template <typename> class Op>
Tensor floating_result_unary(const char* name, const Tensor& x) {
  const ScalarType t = floating_result_type(x);
  return dispatch_compute<DtypeSet::kFloating>(
      t, name, [&]<typename T>() { return unary_kernel<Op, T>(name, x, t); });
}

// Float inputs only (gelu, leaky_relu), as PyTorch.
template <template <typename> class Op, typename... Args>
Tensor floating_only_unary(const char* name, const Tensor& x, Args... args) {
  return dispatch_compute<DtypeSet::kFloating>(x.scalar_type(), name, [&]<typename T>() {
    return unary_kernel<Op, T>(name, x, x.scalar_type(), args...);
  });
}

// Same dtype out as in; bool is an error.
template <template <typename> class Op, typename... Args>
Tensor numeric_unary(const char* name, const Tensor& x, Args... args) {
  return dispatch_compute<DtypeSet::kNumeric>(x.scalar_type(), name, [&]<typename T>() {
    return unary_kernel<Op, T>(name, x, x.scalar_type(), args...);
  });
}

// A bool tensor of Pred<T>(x), any input dtype.
template <template <typename> class Pred>
Tensor predicate(const char* name, const Tensor& x) {
  return dispatch_compute<DtypeSet::kAll>(x.scalar_type(), name, [&]<typename T>() {
    return unary_kernel<Pred, T, bool>(name, x, x.scalar_type());
  });
}

// self = Op<T>{args...}(self) in self's dtype (not bool), then bumps the version.
template <template <typename> class Op, typename... Args>
void apply_inplace(const char* name, const Tensor& self, Args... args) {
  assert_no_internal_overlap(name, self);
  dispatch_compute<DtypeSet::kNumeric>(self.scalar_type(), name,
                                       [&]<typename T>() { launch<Op, T>(name, self, self, args...); });
  self.impl()->bump_version();
}

// ---- autograd ----

// What a unary node's backward reads: nothing, its input x or its output y.
enum class Save { kNothing, kInput, kOutput };

// The node of y = f(x) whose backward is grad(g, saved), `saved` being the one
// tensor the caller saves (undefined for Save::kNothing).
template <typename Grad>
std::shared_ptr<autograd::Node> unary_node(const char* name, const Tensor& x, Save save,
                                           Grad grad) {
  const bool reads_saved = save != Save::kNothing;
  return autograd::make_node(name, {x},
                             [grad, reads_saved](autograd::Node& n, const tensor_list& g) {
                               return tensor_list{grad(g[0], reads_saved ? n.saved(0) : Tensor())};
                             });
}

// Records y = f(x) when x needs grad; returns y.
template <typename Grad>
Tensor record(const char* name, const Tensor& x, const Tensor& y, Save save, Grad grad) {
  if (!autograd::needs_grad(x)) return y;
  auto node = unary_node(name, x, save, grad);
  autograd::set_history(y, node);
  if (save == Save::kInput) node->save(x);
  // As an output: no node -> y -> node cycle, and unpacking re-attaches y's
  // history, so double backward differentiates through it.
  if (save == Save::kOutput) node->save(y, /*is_output=*/true);
  return y;
}

// self = f(self), the in-place form of an op whose result has dtype `result`
// (exp_, sin_, abs_, ...): records the node of `record` before the write. Save::kInput saves a copy of
// self's old values that keeps its history, so double backward still reaches
// them; Save::kOutput saves self after the write, as relu_ does. args are Op's
// parameters (logit_'s eps).
template <template <typename> class Op, typename Grad, typename... Args>
Tensor& inplace_unary(const char* name, const char* node_name, const Tensor& self,
                      ScalarType result, Save save, Grad grad, Args... args) {
  detail::check_inplace_dtype(name, self, result);
  autograd::check_inplace(self, name);
  std::shared_ptr<autograd::Node> node;
  if (autograd::needs_grad(self)) {
    node = unary_node(node_name, self, save, grad);
    if (save == Save::kInput) node->save(self.clone());
  }
  apply_inplace<Op>(name, self, args...);
  if (node) {
    autograd::rebase_history(self, node);
    if (save == Save::kOutput) node->save(self, /*is_output=*/true);
  }
  return const_cast<Tensor&>(self);
}

// y = Op(x) in x's floating dtype (float32 for bool and int64), recorded as
// node_name with the derivative grad(g, saved): sin, erf, exp2, ...
template <template <typename> class Op, typename Grad>
Tensor floating_op(const char* name, const char* node_name, const Tensor& x, Save save,
                   Grad grad) {
  return record(node_name, x, floating_result_unary<Op>(name, x), save, grad);
}

// The in-place form of floating_op: self must be floating.
template <template <typename> class Op, typename Grad>
Tensor& floating_op_(const char* name, const char* node_name, const Tensor& self, Save save,
                     Grad grad) {
  return inplace_unary<Op>(name, node_name, self, floating_result_type(self), save, grad);
}

}  // namespace ember::unary_detail
