// Reductions: sum, prod, mean, sum_to, max/min (all, or along a dim with indices),
// argmax/argmin, var/std, norm, all/any, and their derivatives (written with
// ember ops, so they can be differentiated again). The kernels are the reduce
// family's table (kernels/common/reduce_kernels.h), the reductions the rows of
// kernels/common/reduce_ops.h.
// softmax, log_softmax and logsumexp are in softmax.cpp.
#include "ember/core/autocast.h"
#include "ember/core/ops/reduction/reduce.h"

#include <cmath>

#include "ember/autograd/function.h"
#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/elementwise/compare.h"
#include "ember/core/ops/elementwise/elementwise_helpers.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/elementwise/logical.h"
#include "ember/core/ops/reduction/reduce_helpers.h"
#include "ember/core/ops/elementwise/unary.h"
#include "ember/kernels/common/kernel_registry.h"

namespace ember {

using autograd::Node;
using detail::DimMask;
using detail::ReduceShape;

namespace {

// A new tensor of shape rs.out (and the dtype of op's row) holding x reduced by op.
Tensor launch_reduce(const char* name, ReduceOp op, const Tensor& x, const ReduceShape& rs,
                     double param = 0) {
  Tensor out = empty(rs.out, x.options().dtype(reduce_out_dtype(op, x.scalar_type())));
  kernels().reduce.reduce.on(x.device(), name)(name, op, out, x, rs.keep, param);
  return out;
}

DimMask all_dims(const Tensor& x) { return detail::reduction_mask("", x, {}); }

// The gradient of a sum: g spread over the reduced dims (a view, no copy).
Tensor expand_reduced(const Tensor& g, const DimVector& in_sizes, DimMask mask, bool keepdim) {
  return detail::restore_reduced_dims(g, static_cast<int64_t>(in_sizes.size()), mask, keepdim)
      .expand(in_sizes);
}

// sum (scale == 1) or mean (scale == 1/count): the gradient is g * scale spread out.
void record_sum_like(const char* name, const Tensor& x, const Tensor& out, DimMask mask,
                     bool keepdim, double scale) {
  if (!autograd::needs_grad(x)) return;
  const DimVector in_sizes(x.sizes());
  auto node = autograd::make_node(name, {x}, [=](Node&, const tensor_list& g) {
    const Tensor scaled = scale == 1 ? g[0] : g[0] * scale;
    return tensor_list{expand_reduced(scaled, in_sizes, mask, keepdim)};
  });
  autograd::set_history(out, node);
}

}  // namespace

// ---- sum / mean / sum_to ----

Tensor sum(const Tensor& input, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  EMBER_CHECK(dtype != kBool, "sum: dtype bool is not supported (use any() or all())");
  const Tensor x = dtype ? input.to(*dtype) : input;
  const DimMask mask = detail::reduction_mask("sum", x, dim);
  const ReduceShape rs = detail::reduce_shape(x, mask, keepdim);
  Tensor out = launch_reduce("sum", ReduceOp::kSum, x, rs);
  // derivative: d/dx = g expanded over the reduced dims
  record_sum_like("SumBackward", x, out, mask, keepdim, 1.0);
  return out;
}

// ---- prod ----

namespace {

Tensor prod_over(const Tensor& input, DimMask mask, bool keepdim, std::optional<ScalarType> dtype);

// d prod / d x_i = the product of the other elements. Without zeros that is
// prod / x_i; with one zero, the product of the nonzero elements at the zero
// and 0 elsewhere; with two or more, 0 everywhere. Written with ember ops
// (prod_over included), so it can be differentiated again.
Tensor prod_backward(const Tensor& g, const Tensor& x, DimMask mask, bool keepdim) {
  const Tensor grad = detail::restore_reduced_dims(g, x.dim(), mask, keepdim);
  const Tensor is_zero = x == 0;
  const DimVector dims = [&] {
    DimVector d;
    for (int64_t i = 0; i < x.dim(); ++i)
      if (detail::is_reduced(mask, i)) d.push_back(i);
    return d;
  }();
  const Tensor zeros_in_line = sum(is_zero, dims, /*keepdim=*/true);
  const Tensor x_nonzero = where(is_zero, 1.0, x);
  const Tensor prod_nonzero = prod_over(x_nonzero, mask, /*keepdim=*/true, std::nullopt);
  const Tensor others = where(zeros_in_line == 0, prod_nonzero / x_nonzero,
                              where(logical_and(is_zero, zeros_in_line == 1), prod_nonzero, 0.0));
  return grad * others;
}

Tensor prod_over(const Tensor& input, DimMask mask, bool keepdim, std::optional<ScalarType> dtype) {
  EMBER_CHECK(dtype != kBool, "prod: dtype bool is not supported");
  const Tensor x = dtype ? input.to(*dtype) : input;
  const ReduceShape rs = detail::reduce_shape(x, mask, keepdim);
  Tensor out = launch_reduce("prod", ReduceOp::kProd, x, rs);
  if (autograd::needs_grad(x)) {
    // derivative of prod: d/dx_i = g·(product of the other elements) (prod_backward: exact with zeros)
    auto node = autograd::make_node("ProdBackward", {x}, [mask, keepdim](Node& n, const tensor_list& g) {
      return tensor_list{prod_backward(g[0], n.saved(0), mask, keepdim)};
    });
    node->save(x);
    autograd::set_history(out, node);
  }
  return out;
}

}  // namespace

// Autocast: prod is on both devices' float32 lists, unless a dtype is given.
Tensor prod(const Tensor& x, std::optional<ScalarType> dtype) {
  if (const auto to = dtype ? std::nullopt : autocast::cast_dtype(autocast::kFloat32Op, {&x}))
    return prod(autocast::cast(x, *to));
  return prod_over(x, all_dims(x), false, dtype);
}
Tensor prod(const Tensor& x, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  if (const auto to = dtype ? std::nullopt : autocast::cast_dtype(autocast::kFloat32Op, {&x}))
    return prod(autocast::cast(x, *to), dim, keepdim);
  return prod_over(x, detail::reduction_mask("prod", x, {dim}), keepdim, dtype);
}

Tensor mean(const Tensor& input, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  if (dtype) {
    EMBER_CHECK(is_floating_point(*dtype), "mean: dtype must be a floating point dtype, got ",
                *dtype);
  } else {
    EMBER_CHECK(input.is_floating_point(), "mean: could not infer the output dtype: the input is ",
                input.scalar_type(),
                ", which is not floating point; pass a floating dtype (e.g. "
                "mean(x, dims, keepdim, kFloat))");
  }
  const Tensor x = dtype ? input.to(*dtype) : input;
  const DimMask mask = detail::reduction_mask("mean", x, dim);
  const ReduceShape rs = detail::reduce_shape(x, mask, keepdim);
  Tensor out = launch_reduce("mean", ReduceOp::kMean, x, rs, double(rs.count));
  // derivative: d/dx = g/count expanded over the reduced dims
  record_sum_like("MeanBackward", x, out, mask, keepdim, 1.0 / static_cast<double>(rs.count));
  return out;
}

namespace {
Tensor sum_to_shape(const char* op, const Tensor& x, IntArrayRef shape) {
  if (x.sizes() == shape) return x;
  EMBER_CHECK(is_expandable_to(shape, x.sizes()), op, ": shape ", shape,
              " does not broadcast to the tensor's shape ", x.sizes());
  // Sum the leading dims shape lacks and the dims where shape has 1 (size-1
  // dims of x need no sum: the reshape drops or keeps them).
  const int64_t lead = x.dim() - static_cast<int64_t>(shape.size());
  DimVector dims;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (x.size(d) != 1 && (d < lead || shape[d - lead] == 1)) dims.push_back(d);
  return (dims.empty() ? x : sum(x, dims, /*keepdim=*/true)).reshape(shape);
}
}  // namespace

Tensor sum_to(const Tensor& x, IntArrayRef shape) { return sum_to_shape("sum_to", x, shape); }
Tensor Tensor::sum_to_size(IntArrayRef size) const {
  return sum_to_shape("sum_to_size", *this, size);
}

// ---- max / min over all elements, amax / amin over dims ----

namespace {

// x's extreme over the dims in mask. The gradient is split evenly between the
// elements equal to their group's result, as PyTorch's amax and max(); a NaN
// result came from the NaN elements (NaN != NaN, so test them apart).
Tensor max_min_over(const char* op, const Tensor& x, DimMask mask, bool keepdim, bool is_max) {
  for (int64_t d = 0; d < x.dim(); ++d)
    EMBER_CHECK(!detail::is_reduced(mask, d) || x.size(d) > 0, op,
                ": cannot reduce over dimension ", d, " of size 0 (tensor of shape ", x.sizes(),
                "): the result has no identity");
  const ReduceShape rs = detail::reduce_shape(x, mask, keepdim);
  Tensor out = launch_reduce(op, is_max ? ReduceOp::kMax : ReduceOp::kMin, x, rs);
  if (autograd::needs_grad(x)) {
    DimVector dims;
    for (int64_t d = 0; d < x.dim(); ++d)
      if (detail::is_reduced(mask, d)) dims.push_back(d);
    auto node = autograd::make_node(
        // derivative of max, min, amax, amin: d/dx = g split evenly among the elements equal to their group's result
        is_max ? "MaxBackward" : "MinBackward", {x},
        [dims, mask, keepdim](Node& n, const tensor_list& g) {
          const Tensor xs = n.saved(0);
          const Tensor result = detail::restore_reduced_dims(n.saved(1), xs.dim(), mask, keepdim);
          // On bool tensors + is or and * is and.
          const Tensor hit = ((xs == result) + isnan(xs) * isnan(result)).to(g[0].scalar_type());
          const Tensor g_full = detail::restore_reduced_dims(g[0], xs.dim(), mask, keepdim);
          return tensor_list{g_full * hit / sum(hit, dims, /*keepdim=*/true)};
        });
    node->save(x);
    node->save(out, /*is_output=*/true);
    autograd::set_history(out, node);
  }
  return out;
}

Tensor max_min_all(const char* op, const Tensor& x, bool is_max) {
  EMBER_CHECK(x.numel() > 0, op, ": cannot reduce an empty tensor (shape ", x.sizes(),
              ") over all elements; pass a dim");
  return max_min_over(op, x, all_dims(x), /*keepdim=*/false, is_max);
}

// values (or nothing when !with_values) and int64 indices of the best element along d.
std::tuple<Tensor, Tensor> arg_reduce_dim(const char* op, const Tensor& x, int64_t d, bool keepdim,
                                          bool is_max, bool with_values) {
  const detail::LineShape l = detail::line_shape(x, d);
  EMBER_CHECK(l.n > 0, op, ": cannot reduce over dimension ", d, " of size 0 (tensor of shape ",
              x.sizes(), ")");
  const DimMask mask = x.dim() == 0 ? 0 : DimMask(1) << d;
  const ReduceShape rs = detail::reduce_shape(x, mask, keepdim);
  Tensor values = with_values ? empty(rs.out, x.options()) : Tensor();
  Tensor indices = empty(rs.out, x.options().dtype(kLong));
  kernels().reduce.arg_reduce.on(x.device(), op)(op, is_max, values, indices, x, d);
  return {values, indices};
}

// The gradient of picking x's elements `indices` along d: g at those
// positions, 0 elsewhere (a one-hot mask from comparing 0..n-1 with the indices).
Tensor value_selecting_backward(const Tensor& g, const Tensor& indices, const DimVector& in_sizes,
                                int64_t d, bool keepdim) {
  const int64_t nd = static_cast<int64_t>(in_sizes.size());
  if (nd == 0) return g;
  const DimMask mask = DimMask(1) << d;
  DimVector line(in_sizes.size(), 1);  // (1, .., n, .., 1)
  line[d] = in_sizes[d];
  const Tensor hit = arange(in_sizes[d], indices.options()).view(line) ==
                     detail::restore_reduced_dims(indices, nd, mask, keepdim);
  return where(hit, detail::restore_reduced_dims(g, nd, mask, keepdim), 0.0);
}

std::tuple<Tensor, Tensor> max_min_dim(const char* op, const Tensor& x, int64_t dim, bool keepdim,
                                       bool is_max) {
  const int64_t d = detail::wrap_reduction_dim(op, x, dim);
  auto [values, indices] = arg_reduce_dim(op, x, d, keepdim, is_max, /*with_values=*/true);
  if (autograd::needs_grad(x)) {
    const DimVector in_sizes(x.sizes());
    auto node = autograd::make_node(
        // derivative of max(dim), min(dim): d/dx = g at the returned index, 0 elsewhere
        is_max ? "MaxBackward" : "MinBackward", {x},
        [in_sizes, d, keepdim](Node& n, const tensor_list& g) {
          return tensor_list{value_selecting_backward(g[0], n.saved(0), in_sizes, d, keepdim)};
        });
    node->save(indices);
    autograd::set_history(values, node);
  }
  return {values, indices};
}

Tensor arg_max_min(const char* op, const Tensor& x, std::optional<int64_t> dim, bool keepdim,
                   bool is_max) {
  EMBER_CHECK(x.scalar_type() != kBool, op, ": not implemented for bool tensors (as PyTorch); "
              "convert to int64 first");
  if (dim) {
    const int64_t d = detail::wrap_reduction_dim(op, x, *dim);
    return std::get<1>(arg_reduce_dim(op, x, d, keepdim, is_max, /*with_values=*/false));
  }
  EMBER_CHECK(x.numel() > 0, op, ": cannot reduce an empty tensor (shape ", x.sizes(),
              ") over all elements; pass a dim");
  // The flat index into x, as PyTorch; keepdim keeps x's rank with all sizes 1.
  Tensor flat;
  {
    NoGradGuard guard;
    flat = x.reshape({-1});
  }
  Tensor index = std::get<1>(arg_reduce_dim(op, flat, 0, false, is_max, false));
  return keepdim ? index.reshape(DimVector(static_cast<size_t>(x.dim()), 1)) : index;
}

}  // namespace

Tensor max(const Tensor& x) { return max_min_all("max", x, true); }
Tensor min(const Tensor& x) { return max_min_all("min", x, false); }
std::tuple<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim) {
  return max_min_dim("max", x, dim, keepdim, true);
}
std::tuple<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim) {
  return max_min_dim("min", x, dim, keepdim, false);
}
Tensor amax(const Tensor& x, IntArrayRef dim, bool keepdim) {
  return max_min_over("amax", x, detail::reduction_mask("amax", x, dim), keepdim, true);
}
Tensor amin(const Tensor& x, IntArrayRef dim, bool keepdim) {
  return max_min_over("amin", x, detail::reduction_mask("amin", x, dim), keepdim, false);
}
Tensor argmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  return arg_max_min("argmax", x, dim, keepdim, true);
}
Tensor argmin(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  return arg_max_min("argmin", x, dim, keepdim, false);
}

// ---- var / std ----

namespace {

// d var / dx = g * 2 (x - mean) / divisor, g broadcast over the reduced dims.
Tensor var_backward(const Tensor& g, const Tensor& x, const DimVector& dims, DimMask mask,
                    bool keepdim, double divisor) {
  const Tensor g_full = detail::restore_reduced_dims(g, x.dim(), mask, keepdim) * (2.0 / divisor);
  return g_full * (x - mean(x, dims, /*keepdim=*/true));
}

Tensor var_std(const char* op, const Tensor& x, IntArrayRef dim, bool unbiased, bool keepdim,
               bool take_sqrt) {
  EMBER_CHECK(x.is_floating_point(), op, ": expected a floating point tensor, got ",
              x.scalar_type());
  const DimMask mask = detail::reduction_mask(op, x, dim);
  const ReduceShape rs = detail::reduce_shape(x, mask, keepdim);
  // n - 1 (Bessel) or n; at most 0 gives nan, as PyTorch.
  const double divisor = static_cast<double>(std::max<int64_t>(0, rs.count - (unbiased ? 1 : 0)));
  const DimVector dims(dim);
  Tensor deviation;
  {
    NoGradGuard guard;
    deviation = x - mean(x, dims, /*keepdim=*/true);
  }
  Tensor out =
      launch_reduce(op, take_sqrt ? ReduceOp::kStd : ReduceOp::kVar, deviation, rs, divisor);
  if (autograd::needs_grad(x)) {
    auto node = autograd::make_node(
        // derivative of var, std: var: d/dx = g·2(x - mean(x))/divisor; std: the same with g/(2·std) for g (0 where std = 0)
        take_sqrt ? "StdBackward" : "VarBackward", {x},
        [dims, mask, keepdim, divisor, take_sqrt](Node& n, const tensor_list& g) {
          const Tensor x = n.saved(0);
          if (!take_sqrt) return tensor_list{var_backward(g[0], x, dims, mask, keepdim, divisor)};
          // d std = d var / (2 std); where std == 0 the gradient is 0, as PyTorch.
          const Tensor s = n.saved(1);
          const Tensor g_var = where(s == 0, 0.0, g[0] / (s * 2.0));
          return tensor_list{var_backward(g_var, x, dims, mask, keepdim, divisor)};
        });
    node->save(x);
    if (take_sqrt) node->save(out, /*is_output=*/true);
    autograd::set_history(out, node);
  }
  return out;
}

}  // namespace

Tensor var(const Tensor& x, IntArrayRef dim, bool unbiased, bool keepdim) {
  return var_std("var", x, dim, unbiased, keepdim, false);
}
Tensor std(const Tensor& x, IntArrayRef dim, bool unbiased, bool keepdim) {
  return var_std("std", x, dim, unbiased, keepdim, true);
}

// ---- norm ----

namespace {

// d||x||_p / dx = sign(x) |x|^(p-1) / ||x||^(p-1) (x / ||x|| for p = 2, sign(x)
// for p = 1); where the norm is 0 the gradient is 0, as PyTorch.
Tensor norm_backward(const Tensor& g, const Tensor& x, const Tensor& norm, double p, DimMask mask,
                     bool keepdim) {
  const Tensor g_full = detail::restore_reduced_dims(g, x.dim(), mask, keepdim);
  if (p == 1) return sign(x) * g_full;
  const Tensor nrm = detail::restore_reduced_dims(norm, x.dim(), mask, keepdim);
  if (p == 2) return x * where(nrm == 0, 0.0, g_full / nrm);
  const Tensor scale = where(nrm == 0, 0.0, g_full / pow(nrm, p - 1));
  // |x|^(p-1) is inf at x == 0 for p < 1; the gradient there is 0, as PyTorch.
  const Tensor slope = p < 1 ? where(x == 0, 0.0, pow(abs(x), p - 1)) : pow(abs(x), p - 1);
  return sign(x) * slope * scale;
}

// The number of nonzero elements, in x's dtype; its gradient is 0 (recorded,
// so that backward reaches x, as PyTorch).
Tensor zero_norm(const Tensor& x, IntArrayRef dim, bool keepdim) {
  Tensor out;
  {
    NoGradGuard guard;
    out = sum(x != 0, dim, keepdim, x.scalar_type());
  }
  if (autograd::needs_grad(x)) {
    const DimVector in_sizes(x.sizes());
    const TensorOptions options = x.options();
    // derivative of norm: p = 0: d/dx = 0 (counting nonzeros is flat)
    auto node = autograd::make_node("NormBackward", {x}, [in_sizes, options](Node&, const tensor_list&) {
      return tensor_list{zeros(in_sizes, options)};
    });
    autograd::set_history(out, node);
  }
  return out;
}

}  // namespace

Tensor norm(const Tensor& x, std::optional<Scalar> p_arg, IntArrayRef dim, bool keepdim) {
  EMBER_CHECK(x.is_floating_point(), "norm: expected a floating point tensor, got ",
              x.scalar_type());
  const double p = p_arg ? p_arg->toDouble() : 2.0;
  EMBER_CHECK(p >= 0 || p == -INFINITY, "norm: p must be >= 0 or -inf, got ", p,
              " (negative p-norms are not supported)");
  // The max (min) of |x|: abs and amax/amin carry the gradient, split between ties.
  if (std::isinf(p)) return p > 0 ? amax(abs(x), dim, keepdim) : amin(abs(x), dim, keepdim);
  if (p == 0) return zero_norm(x, dim, keepdim);
  const DimMask mask = detail::reduction_mask("norm", x, dim);
  const ReduceShape rs = detail::reduce_shape(x, mask, keepdim);
  // p = 1 and p = 2 are free of pow().
  const ReduceOp op = p == 2 ? ReduceOp::kNorm2 : p == 1 ? ReduceOp::kNorm1 : ReduceOp::kNormP;
  Tensor out = launch_reduce("norm", op, x, rs, p);
  if (autograd::needs_grad(x)) {
    auto node =
        // derivative: d/dx = g·sign(x)·|x|^(p-1)/‖x‖^(p-1) (g·x/‖x‖ for p = 2, g·sign(x) for p = 1; 0 where ‖x‖ = 0)
        autograd::make_node("NormBackward", {x}, [p, mask, keepdim](Node& n, const tensor_list& g) {
          return tensor_list{norm_backward(g[0], n.saved(0), n.saved(1), p, mask, keepdim)};
        });
    node->save(x);
    node->save(p == 1 ? Tensor() : out, /*is_output=*/true);  // the 1-norm's gradient is sign(x)
    autograd::set_history(out, node);
  }
  return out;
}

// ---- all / any ----

Tensor all(const Tensor& x) {
  const ReduceShape rs = detail::reduce_shape(x, all_dims(x), false);
  return launch_reduce("all", ReduceOp::kAll, x, rs);
}

Tensor any(const Tensor& x) {
  const ReduceShape rs = detail::reduce_shape(x, all_dims(x), false);
  return launch_reduce("any", ReduceOp::kAny, x, rs);
}

// ---- Tensor methods ----

Tensor Tensor::prod(std::optional<ScalarType> dtype) const { return ember::prod(*this, dtype); }
Tensor Tensor::prod(int64_t dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::prod(*this, dim, keepdim, dtype);
}
Tensor Tensor::sum(std::optional<ScalarType> dtype) const {
  return ember::sum(*this, {}, false, dtype);
}
Tensor Tensor::sum(IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::sum(*this, dim, keepdim, dtype);
}
Tensor Tensor::mean(std::optional<ScalarType> dtype) const {
  return ember::mean(*this, {}, false, dtype);
}
Tensor Tensor::mean(IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::mean(*this, dim, keepdim, dtype);
}
Tensor Tensor::max() const { return ember::max(*this); }
std::tuple<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const {
  return ember::max(*this, dim, keepdim);
}
Tensor Tensor::min() const { return ember::min(*this); }
std::tuple<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const {
  return ember::min(*this, dim, keepdim);
}
Tensor Tensor::amax(IntArrayRef dim, bool keepdim) const { return ember::amax(*this, dim, keepdim); }
Tensor Tensor::amin(IntArrayRef dim, bool keepdim) const { return ember::amin(*this, dim, keepdim); }
Tensor Tensor::argmax(std::optional<int64_t> dim, bool keepdim) const {
  return ember::argmax(*this, dim, keepdim);
}
Tensor Tensor::argmin(std::optional<int64_t> dim, bool keepdim) const {
  return ember::argmin(*this, dim, keepdim);
}
Tensor Tensor::var(IntArrayRef dim, bool unbiased, bool keepdim) const {
  return ember::var(*this, dim, unbiased, keepdim);
}
Tensor Tensor::std(IntArrayRef dim, bool unbiased, bool keepdim) const {
  return ember::std(*this, dim, unbiased, keepdim);
}
Tensor Tensor::norm(const Scalar& p) const { return ember::norm(*this, p, {}, false); }
Tensor Tensor::norm(std::optional<Scalar> p, IntArrayRef dim, bool keepdim) const {
  return ember::norm(*this, p, dim, keepdim);
}
Tensor Tensor::all() const { return ember::all(*this); }
Tensor Tensor::any() const { return ember::any(*this); }

}  // namespace ember
