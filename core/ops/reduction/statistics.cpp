// var_mean, std_mean (composed of var, std and mean), cummax, cummin and
// logcumsumexp (the scan family's kernels, kernels/common/scan_kernels.h),
// with derivatives written with ember ops.
#include "ember/core/ops/reduction/statistics.h"

#include <cmath>

#include "ember/autograd/function.h"
#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/indexing/indexing.h"
#include "ember/core/ops/reduction/reduce.h"
#include "ember/core/ops/reduction/reduce_helpers.h"
#include "ember/core/ops/shape/shape_ops.h"
#include "ember/core/ops/elementwise/unary.h"
#include "ember/kernels/common/kernel_registry.h"

namespace ember {

using autograd::Node;

namespace {

void check_floating(const char* name, const Tensor& x) {
  EMBER_CHECK(x.is_floating_point(), name, ": expected a floating point tensor, got ",
              x.scalar_type(), " of shape ", x.sizes());
}

std::tuple<Tensor, Tensor> cum_extreme(const char* name, bool is_max, const Tensor& x,
                                       int64_t dim) {
  const int64_t d = detail::wrap_reduction_dim(name, x, dim);
  const Tensor xc = detail::contiguous_for_kernel(x);
  Tensor values = empty(x.sizes(), x.options());
  Tensor indices = empty(x.sizes(), x.options().dtype(kLong));
  const detail::LineShape l = detail::line_shape(x, d);
  kernels().scan.cum_extreme.on(x.device(), name)(name, is_max, values, indices, xc, l.outer, l.n,
                                                  l.inner);
  if (autograd::needs_grad(x)) {
    // derivative of cummax, cummin: d/dx = g added back at the returned indices (each value is the element its index names)
    auto node = autograd::make_node(is_max ? "CummaxBackward" : "CumminBackward", {x},
                                    [d](Node& n, const tensor_list& g) {
      if (g[0].dim() == 0) return tensor_list{g[0]};
      return tensor_list{scatter_add(zeros_like(g[0]), d, n.saved(0), g[0])};
    });
    node->save(indices);
    autograd::set_history(values, node);
  }
  return {values, indices};
}

Tensor flip_dim(const Tensor& x, int64_t d) { return x.dim() == 0 ? x : flip(x, {d}); }

// log of max(g, 0), -inf where g <= 0, finite in the branch not taken (so
// double backward stays finite).
Tensor log_positive(const Tensor& g) {
  const Tensor positive = g > 0;
  return where(positive, log(where(positive, g, 1.0)), -INFINITY);
}

}  // namespace

std::tuple<Tensor, Tensor> var_mean(const Tensor& x, IntArrayRef dim, bool unbiased,
                                    bool keepdim) {
  check_floating("var_mean", x);
  return {var(x, dim, unbiased, keepdim), mean(x, dim, keepdim)};
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& x, IntArrayRef dim, bool unbiased,
                                    bool keepdim) {
  check_floating("std_mean", x);
  return {std(x, dim, unbiased, keepdim), mean(x, dim, keepdim)};
}

std::tuple<Tensor, Tensor> cummax(const Tensor& x, int64_t dim) {
  return cum_extreme("cummax", true, x, dim);
}
std::tuple<Tensor, Tensor> cummin(const Tensor& x, int64_t dim) {
  return cum_extreme("cummin", false, x, dim);
}

Tensor logcumsumexp(const Tensor& x, int64_t dim) {
  const int64_t d = detail::wrap_reduction_dim("logcumsumexp", x, dim);
  check_floating("logcumsumexp", x);
  const Tensor xc = detail::contiguous_for_kernel(x);
  Tensor out = empty(x.sizes(), x.options());
  const detail::LineShape l = detail::line_shape(x, d);
  kernels().scan.logcumsumexp.on(x.device(), "logcumsumexp")(out, xc, l.outer, l.n, l.inner);
  if (autograd::needs_grad(x)) {
    // derivative: d/dx_j = sum over i >= j of g_i·exp(x_j - y_i)
    // d out_i / d x_j = exp(x_j - out_i) for i >= j, so grad_j = sum_{i >= j}
    // g_i exp(x_j - out_i). Split g by sign and sum in log space, each part a
    // reversed logcumsumexp: no exp of a large number. An x_j at -inf gets 0;
    // out_i is -inf only where every x_j up to i is, so those terms are
    // replaced by finite ones that are masked off (no NaN for double backward,
    // which runs this on inputs with -inf from log_positive).
    auto node = autograd::make_node("LogcumsumexpBackward", {x}, [d](Node& n, const tensor_list& g) {
      const Tensor x = n.saved(0), y = n.saved(1);
      const Tensor dead = x == -INFINITY;
      const Tensor x_safe = where(dead, 0.0, x), y_safe = where(y == -INFINITY, 0.0, y);
      auto part = [&](const Tensor& log_g) {
        return exp(flip_dim(logcumsumexp(flip_dim(log_g - y_safe, d), d), d) + x_safe);
      };
      return tensor_list{where(dead, 0.0, part(log_positive(g[0])) - part(log_positive(-g[0])))};
    });
    node->save(x);
    autograd::set_history(out, node);
    node->save(out, /*is_output=*/true);
  }
  return out;
}

std::tuple<Tensor, Tensor> Tensor::cummax(int64_t dim) const { return ember::cummax(*this, dim); }
std::tuple<Tensor, Tensor> Tensor::cummin(int64_t dim) const { return ember::cummin(*this, dim); }
Tensor Tensor::logcumsumexp(int64_t dim) const { return ember::logcumsumexp(*this, dim); }

}  // namespace ember
