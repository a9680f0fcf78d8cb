// scatter, scatter_reduce and their in-place forms. The shape and index
// checks are gather/scatter_add's (core/ops/indexing/indexing_helpers.h); CUDA
// reports bad indices asynchronously (kernels/cuda/indexing.h). Every
// gradient is made of ops (scatter, gather, scatter_add, scatter_reduce),
// so double backward works.
#include "ember/core/ops/indexing/scatter.h"

#include <limits>
#include <string>

#include "ember/autograd/function.h"
#include "ember/core/memory_overlap.h"
#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/elementwise/binary_math.h"
#include "ember/core/ops/elementwise/compare.h"
#include "ember/core/ops/elementwise/elementwise_helpers.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/indexing/indexing.h"
#include "ember/core/ops/indexing/indexing_helpers.h"
#include "ember/core/ops/elementwise/logical.h"
#include "ember/kernels/common/kernel_registry.h"

namespace ember {

using autograd::Node;
using detail::at_least_1d;
using functors::ScatterReduce;

namespace {

enum class Reduce { kSum, kProd, kMean, kAmax, kAmin };

Reduce parse_reduce(std::string_view reduce) {
  if (reduce == "sum") return Reduce::kSum;
  if (reduce == "prod") return Reduce::kProd;
  if (reduce == "mean") return Reduce::kMean;
  if (reduce == "amax") return Reduce::kAmax;
  if (reduce == "amin") return Reduce::kAmin;
  EMBER_ERROR("scatter_reduce: reduce must be one of \"sum\", \"prod\", \"mean\", \"amax\", "
              "\"amin\", got \"", std::string(reduce), "\"");
}

// Checks for scatter with a src (src_or_null) or a value; returns the wrapped dim.
int64_t check_scatter(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                      const Tensor* src) {
  detail::check_same_device(op, self, index);
  detail::check_index_dtype(op, index);
  if (src) {
    detail::check_same_device(op, self, *src);
    EMBER_CHECK(src->scalar_type() == self.scalar_type(), op,
                ": expected src to have self's dtype ", self.scalar_type(), ", got ",
                src->scalar_type());
  }
  dim = wrap_dim(dim, std::max<int64_t>(self.dim(), 1), op);
  detail::check_index_shape(op, self, dim, index, src);
  detail::check_index_values(op, index, dim, at_least_1d(self).size(dim));
  return dim;
}

// value as a src of index's shape (stride 0), on self's device and dtype.
Tensor value_as_src(const char* op, const Tensor& self, const Tensor& index, const Scalar& value) {
  EMBER_CHECK(converts_without_overflow(value, self.scalar_type()), op, ": value ", value,
              " cannot be converted to type ", self.scalar_type(), " without overflow");
  return full({}, value, self.options().requires_grad(false)).expand(index.sizes());
}

// The kernels, on checked arguments.
void scatter_into(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                  const Tensor& src) {
  kernels().indexing.scatter.on(self.device(), op)(op, at_least_1d(self), dim,
                                                  at_least_1d(index), at_least_1d(src));
}

void reduce_into(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                 const Tensor& src, ScatterReduce reduce) {
  kernels().indexing.scatter_reduce.on(self.device(), op)(
      op, at_least_1d(self), dim, at_least_1d(index), at_least_1d(src), reduce);
}

// derivative of scatter, scatter_: src: d/dself = g, 0 at the written positions; d/dsrc = g gathered at them
std::shared_ptr<Node> scatter_node(const Tensor& self, int64_t dim, const Tensor& index,
                                   const Tensor& src) {
  const DimVector src_sizes(src.sizes());
  auto node = autograd::make_node("ScatterBackward", {self, src},
      [dim, src_sizes](Node& n, const tensor_list& g) {
        const Tensor& index = n.saved(0);
        return tensor_list{
            n.needs_input_grad(0) ? g[0].scatter(dim, index, 0) : Tensor(),
            n.needs_input_grad(1) ? detail::scatter_grad_src(g[0], dim, index, src_sizes)
                                  : Tensor()};
      });
  node->save(index);
  return node;
}

// derivative of scatter, scatter_: value: d/dself = g, 0 at the written positions
std::shared_ptr<Node> scatter_value_node(const Tensor& self, int64_t dim, const Tensor& index) {
  auto node = autograd::make_node("ScatterBackward", {self},
      [dim](Node& n, const tensor_list& g) {
        return tensor_list{g[0].scatter(dim, n.saved(0), 0)};
      });
  node->save(index);
  return node;
}

// The reduction's starting value at the positions that receive src when
// include_self is false: the identity of the reduction.
Scalar reduce_identity(Reduce r, ScalarType t) {
  switch (r) {
    case Reduce::kProd:
      return 1;
    case Reduce::kAmax:
    case Reduce::kAmin:
      return dispatch_numeric_storage(t, "scatter_reduce", [&]<typename T>() -> Scalar {
        const bool is_max = r == Reduce::kAmax;
        if constexpr (std::numeric_limits<T>::is_integer)
          return static_cast<int64_t>(is_max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max());
        else
          return is_max ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
      });
    default:
      return 0;
  }
}

// How many values met at each position of g's shape: self's (when included)
// plus the src elements scattered there; at least 1 (mean divides by it).
Tensor mean_counts(const Tensor& like, int64_t dim, const Tensor& index, bool include_self) {
  const Tensor start = include_self ? ones_like(like) : zeros_like(like);
  const Tensor counts = start.scatter_add(dim, index, ones(index.sizes(), like.options()));
  return counts.masked_fill(counts == 0, 1);
}

// The values forward computes, under no grad: self with src reduced into it.
Tensor scatter_reduce_forward(const Tensor& self, int64_t dim, const Tensor& index,
                              const Tensor& src, Reduce r, bool include_self) {
  NoGradGuard no_grad;
  const char* op = "scatter_reduce";
  Tensor out = self.clone();
  if (!include_self)
    scatter_into(op, out, dim, index,
                 value_as_src(op, out, index, reduce_identity(r, out.scalar_type())));
  switch (r) {
    case Reduce::kSum:
    case Reduce::kMean:
      out.scatter_add_(dim, index, src);
      break;
    case Reduce::kProd:
      reduce_into(op, out, dim, index, src, ScatterReduce::kProd);
      break;
    case Reduce::kAmax:
      reduce_into(op, out, dim, index, src, ScatterReduce::kAmax);
      break;
    case Reduce::kAmin:
      reduce_into(op, out, dim, index, src, ScatterReduce::kAmin);
      break;
  }
  if (r == Reduce::kMean) {
    const Tensor counts = mean_counts(out, dim, index, include_self);
    out = out.is_floating_point() ? out / counts : floor_divide(out, counts);
  }
  return out;
}

// src's leading corner of index's shape: the elements a scatter reads.
Tensor src_corner(const Tensor& src, const Tensor& index) {
  Tensor corner = src;
  for (int64_t d = 0; d < index.dim(); ++d) corner = corner.narrow(d, 0, index.size(d));
  return corner;
}

// amax/amin: the gradient is shared evenly among the values equal to the
// result at each position (self's, when included, and src's), as PyTorch.
std::shared_ptr<Node> extremum_node(const Tensor& self, int64_t dim, const Tensor& index,
                                    const Tensor& src, const Tensor& out, bool include_self) {
  const DimVector src_sizes(src.sizes());
  // derivative of scatter_reduce, scatter_reduce_: amax, amin: g shared evenly among the values (self's, src's) equal to the result at each position
  auto node = autograd::make_node("ScatterReduceBackward", {self, src},
      [dim, src_sizes](Node& n, const tensor_list& g) {
        const Tensor &index = n.saved(0), &self_hit = n.saved(1), &src_hit = n.saved(2);
        const Tensor self_w = self_hit.to(g[0].scalar_type());
        const Tensor src_w = src_hit.to(g[0].scalar_type());
        const Tensor share = g[0] / self_w.scatter_add(dim, index, src_w);
        return tensor_list{
            n.needs_input_grad(0) ? share * self_w : Tensor(),
            n.needs_input_grad(1) ? detail::pad_to(share.gather(dim, index) * src_w, src_sizes, dim)
                                  : Tensor()};
      });
  // Which values won: self's (never at a receiving position without
  // include_self) and src's, over index's shape (src may be larger).
  Tensor self_hit = self == out;
  if (!include_self) self_hit = self_hit.scatter(dim, index, false);
  node->save(index);
  node->save(self_hit);
  node->save(src_corner(src, index) == out.gather(dim, index));
  return node;
}

// prod: each value's gradient is g times the product of the others met at
// its position. Multiplying the others, not dividing by the value, keeps
// zeros right (as PyTorch): self's product is taken with self as 1, and a
// src that is the only zero at its position gets the product with it as 1;
// any other value at a position with a zero gets 0. self_value: self's values
// (a copy when scatter_reduce_ overwrites self).
std::shared_ptr<Node> prod_node(const Tensor& self, int64_t dim, const Tensor& index,
                                const Tensor& src, const Tensor& out, bool include_self,
                                const Tensor& self_value) {
  const DimVector src_sizes(src.sizes());
  // derivative of scatter_reduce, scatter_reduce_: prod: each value gets g times the product of the others met at its position
  auto node = autograd::make_node("ScatterReduceBackward", {self, src},
      [dim, src_sizes, include_self](Node& n, const tensor_list& g) {
        const Tensor &index = n.saved(0), &self = n.saved(1), &src = n.saved(2), &out = n.saved(3);
        Tensor g_self, g_src;
        if (n.needs_input_grad(0) && include_self) {
          const Tensor masked_self = self.masked_fill(self == 0, 1);
          g_self = g[0] * masked_self.scatter_reduce(dim, index, src, "prod") / masked_self;
        } else if (n.needs_input_grad(0)) {
          g_self = g[0].scatter(dim, index, 0);
        }
        if (n.needs_input_grad(1)) {
          const Tensor src_zero = src == 0;
          const Tensor zeros_met = zeros_like(g[0])
                                       .scatter_add(dim, index, src_zero.to(g[0].scalar_type()))
                                       .gather(dim, index);
          const Tensor only_zero = logical_and(src_zero, zeros_met == 1);
          const Tensor without = self.scatter_reduce(dim, index, src.masked_fill(only_zero, 1),
                                                     "prod", include_self);
          g_src = where(only_zero, (g[0] * without).gather(dim, index),
                        (g[0] * out).gather(dim, index) / src.masked_fill(src_zero, 1));
          g_src = detail::pad_to(g_src, src_sizes, dim);
        }
        return tensor_list{g_self, g_src};
      });
  node->save(index);
  node->save(self_value);
  node->save(src_corner(src, index));
  node->save(out, /*is_output=*/true);
  return node;
}

Tensor scatter_reduce_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                           std::string_view reduce, bool include_self, const Tensor& self_value);

}  // namespace

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  dim = check_scatter("scatter", self, dim, index, &src);
  Tensor out = self.detach().clone();
  scatter_into("scatter", out, dim, index, src);
  if (autograd::needs_grad(self, src))
    autograd::set_history(out, scatter_node(self, dim, index, src));
  return out;
}

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  dim = check_scatter("scatter", self, dim, index, nullptr);
  Tensor out = self.detach().clone();
  scatter_into("scatter", out, dim, index, value_as_src("scatter", self, index, value));
  if (autograd::needs_grad(self)) autograd::set_history(out, scatter_value_node(self, dim, index));
  return out;
}

Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      std::string_view reduce, bool include_self) {
  return scatter_reduce_impl(self, dim, index, src, reduce, include_self, self);
}

namespace {

Tensor scatter_reduce_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                           std::string_view reduce, bool include_self, const Tensor& self_value) {
  const Reduce r = parse_reduce(reduce);
  dim = check_scatter("scatter_reduce", self, dim, index, &src);
  dispatch_numeric_storage(self.scalar_type(), "scatter_reduce", []<typename>() {});
  Tensor out = scatter_reduce_forward(self, dim, index, src, r, include_self);
  if (!autograd::needs_grad(self, src)) return out;
  std::shared_ptr<Node> node;
  const DimVector src_sizes(src.sizes());
  switch (r) {
    // derivative of scatter_reduce, scatter_reduce_: sum, mean: d/dself = g (0 at the receiving positions without include_self), d/dsrc = g gathered at index (over the count for mean)
    case Reduce::kSum:
    case Reduce::kMean:
      node = autograd::make_node("ScatterReduceBackward", {self, src},
          [dim, src_sizes, include_self, mean = r == Reduce::kMean](Node& n, const tensor_list& g) {
            const Tensor& index = n.saved(0);
            const Tensor share = mean ? g[0] / mean_counts(g[0], dim, index, include_self) : g[0];
            Tensor g_self;
            if (n.needs_input_grad(0))
              g_self = include_self ? share : share.scatter(dim, index, 0);
            return tensor_list{g_self, n.needs_input_grad(1)
                                           ? detail::scatter_grad_src(share, dim, index, src_sizes)
                                           : Tensor()};
          });
      node->save(index);
      break;
    case Reduce::kProd:
      node = prod_node(self, dim, index, src, out, include_self, self_value);
      break;
    case Reduce::kAmax:
    case Reduce::kAmin:
      node = extremum_node(self, dim, index, src, out, include_self);
      break;
  }
  autograd::set_history(out, node);
  return out;
}

}  // namespace

// --- Tensor methods ---

Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src) const {
  return ember::scatter(*this, dim, index, src);
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Scalar& value) const {
  return ember::scatter(*this, dim, index, value);
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src) const {
  autograd::check_inplace(*this, "scatter_", {src});
  dim = check_scatter("scatter_", *this, dim, index, &src);
  assert_no_internal_overlap("scatter_", *this);
  assert_no_overlap("scatter_", *this, src);
  assert_no_overlap("scatter_", *this, index);
  auto node = autograd::needs_grad(*this, src) ? scatter_node(*this, dim, index, src) : nullptr;
  scatter_into("scatter_", *this, dim, index, src);
  impl()->bump_version();
  if (node) autograd::rebase_history(*this, node);
  return const_cast<Tensor&>(*this);
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Scalar& value) const {
  autograd::check_inplace(*this, "scatter_");
  dim = check_scatter("scatter_", *this, dim, index, nullptr);
  assert_no_internal_overlap("scatter_", *this);
  assert_no_overlap("scatter_", *this, index);
  auto node = autograd::needs_grad(*this) ? scatter_value_node(*this, dim, index) : nullptr;
  scatter_into("scatter_", *this, dim, index, value_as_src("scatter_", *this, index, value));
  impl()->bump_version();
  if (node) autograd::rebase_history(*this, node);
  return const_cast<Tensor&>(*this);
}
Tensor Tensor::scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src,
                              std::string_view reduce, bool include_self) const {
  return ember::scatter_reduce(*this, dim, index, src, reduce, include_self);
}
// Computed out of place, then copied in: copy_ makes the result's history
// self's (as masked_fill_). prod's gradient reads the old self: a copy.
Tensor& Tensor::scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src,
                                std::string_view reduce, bool include_self) const {
  autograd::check_inplace(*this, "scatter_reduce_", {src});
  const bool keep_old = reduce == "prod" && autograd::needs_grad(*this, src);
  return copy_(scatter_reduce_impl(*this, dim, index, src, reduce, include_self,
                                   keep_old ? detach().clone() : *this));
}

}  // namespace ember
