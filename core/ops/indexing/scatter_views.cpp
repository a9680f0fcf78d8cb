// Note [Scatter into a view]: select/slice/diagonal_scatter copy self, write
// src into a view of the copy without recording, and record one node whose
// backward is the same op with zeros (self's gradient: g with the view's
// positions cleared) and the view of g (src's gradient). Both are recorded
// ember ops, so double backward works. masked_scatter and fill_diagonal_ are
// compositions of where/take and masked_fill_.
#include "ember/core/ops/indexing/scatter_views.h"

#include <functional>

#include "ember/autograd/function.h"
#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/indexing/index_ops.h"
#include "ember/core/ops/indexing/indexing.h"
#include "ember/core/ops/reduction/reduce.h"
#include "ember/core/ops/reduction/scan.h"
#include "ember/core/ops/elementwise/unary.h"
#include "ember/core/shape.h"

namespace ember {
namespace {

// The view of a tensor (of self's shape) that src replaces.
using Place = std::function<Tensor(const Tensor&)>;

Tensor scatter_into(const char* op, const char* node_name, const Tensor& self, const Tensor& src,
                    const Place& place) {
  EMBER_CHECK(self.device() == src.device(), op, ": expected self and src on the same device, got ",
              self.toString(), " and ", src.toString());
  Tensor out;
  {
    NoGradGuard no_grad;
    out = self.clone();
    const Tensor view = place(out);
    EMBER_CHECK(view.sizes() == src.sizes(), op, ": expected src of shape ", view.sizes(),
                " (the part of self of shape ", self.sizes(), " it replaces), got ", src.sizes());
    view.copy_(src);
  }
  if (autograd::needs_grad(self, src)) {
    auto node = autograd::make_node(node_name, {self, src},
        [op, node_name, place](autograd::Node& n, const tensor_list& g) {
          Tensor g_self, g_src;
          if (n.needs_input_grad(0)) {
            const Tensor cleared = zeros(place(g[0]).sizes(), g[0].options());
            g_self = scatter_into(op, node_name, g[0], cleared, place);
          }
          if (n.needs_input_grad(1)) g_src = place(g[0]);
          return tensor_list{g_self, g_src};
        });
    autograd::set_history(out, node);
  }
  return out;
}

// The flat row-major positions of the diagonal fill_diagonal_ writes.
Tensor diagonal_positions(const Tensor& self, bool wrap) {
  EMBER_CHECK(self.dim() >= 2, "fill_diagonal_: expected a tensor with at least 2 dims, got shape ",
              self.sizes());
  int64_t count = self.size(0), step = 0, stride = 1;
  for (int64_t d = self.dim() - 1; d >= 0; --d) {
    if (self.dim() > 2)
      EMBER_CHECK(self.size(d) == self.size(0),
                  "fill_diagonal_: all dims of a tensor with more than 2 dims must have the same size, "
                  "got shape ", self.sizes());
    step += stride;
    stride *= self.size(d);
  }
  if (self.dim() == 2) {
    count = std::min(self.size(0), self.size(1));
    // A tall matrix wraps: the diagonal starts again every step (= cols + 1) elements.
    if (wrap && self.size(0) > self.size(1) + 1) count = (self.numel() + step - 1) / step;
  }
  return arange(0, count * step, step, TensorOptions(kLong).device(self.device()));
}

}  // namespace

Tensor select_scatter(const Tensor& self, const Tensor& src, int64_t dim, int64_t index) {
  EMBER_CHECK(self.dim() > 0, "select_scatter: expected self with at least 1 dim, got a 0-d tensor");
  const int64_t d = wrap_dim(dim, self.dim(), "select_scatter");
  const int64_t n = self.size(d);
  EMBER_CHECK(index >= -n && index < n, "select_scatter: index ", index, " out of range for dim ", d,
              " of size ", n, " (self of shape ", self.sizes(), ")");
  const int64_t i = index < 0 ? index + n : index;
  // derivative: d/dself = g with the selected slice zeroed, d/dsrc = g.select(dim, index)
  return scatter_into("select_scatter", "SelectScatterBackward", self, src,
                      [d, i](const Tensor& t) { return t.select(d, i); });
}

Tensor slice_scatter(const Tensor& self, const Tensor& src, int64_t dim, std::optional<int64_t> start,
                     std::optional<int64_t> end, int64_t step) {
  EMBER_CHECK(self.dim() > 0, "slice_scatter: expected self with at least 1 dim, got a 0-d tensor");
  EMBER_CHECK(step > 0, "slice_scatter: step must be positive, got ", step);
  const int64_t d = wrap_dim(dim, self.dim(), "slice_scatter");
  // derivative: d/dself = g with the slice zeroed, d/dsrc = g.slice(dim, start, end, step)
  return scatter_into("slice_scatter", "SliceScatterBackward", self, src,
                      [d, start, end, step](const Tensor& t) { return t.slice(d, start, end, step); });
}

Tensor diagonal_scatter(const Tensor& self, const Tensor& src, int64_t offset, int64_t dim1, int64_t dim2) {
  EMBER_CHECK(self.dim() >= 2, "diagonal_scatter: expected self with at least 2 dims, got shape ",
              self.sizes());
  const int64_t d1 = wrap_dim(dim1, self.dim(), "diagonal_scatter");
  const int64_t d2 = wrap_dim(dim2, self.dim(), "diagonal_scatter");
  EMBER_CHECK(d1 != d2, "diagonal_scatter: dim1 and dim2 must differ, got ", dim1, " and ", dim2);
  // derivative: d/dself = g with the diagonal zeroed, d/dsrc = g.diagonal(offset, dim1, dim2)
  return scatter_into("diagonal_scatter", "DiagonalScatterBackward", self, src,
                      [offset, d1, d2](const Tensor& t) { return t.diagonal(offset, d1, d2); });
}

Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  EMBER_CHECK(mask.scalar_type() == kBool, "masked_scatter: expected a bool mask, got ", mask.scalar_type());
  EMBER_CHECK(self.scalar_type() == source.scalar_type(),
              "masked_scatter: expected self and source of the same dtype, got ", self.scalar_type(),
              " and ", source.scalar_type());
  EMBER_CHECK(self.device() == mask.device() && self.device() == source.device(),
              "masked_scatter: expected all tensors on the same device, got ", self.toString(), ", ",
              mask.toString(), " and ", source.toString());
  const DimVector shape = broadcast_shapes(self.sizes(), mask.sizes(), "masked_scatter");
  const Tensor m = mask.expand(shape);
  const int64_t count = sum(m).item<int64_t>();
  EMBER_CHECK(count <= source.numel(), "masked_scatter: source of shape ", source.sizes(), " has ",
              source.numel(), " elements, fewer than the ", count, " true elements of mask");
  if (count == 0) return where(m, self, self);
  // The k-th true position (row-major) reads source's k-th element.
  const Tensor k = clamp_min(cumsum(m.reshape({-1}), 0) - 1, 0).reshape(shape);
  return where(m, take(source, k), self);
}

Tensor Tensor::select_scatter(const Tensor& src, int64_t dim, int64_t index) const {
  return ember::select_scatter(*this, src, dim, index);
}
Tensor Tensor::slice_scatter(const Tensor& src, int64_t dim, std::optional<int64_t> start,
                             std::optional<int64_t> end, int64_t step) const {
  return ember::slice_scatter(*this, src, dim, start, end, step);
}
Tensor Tensor::diagonal_scatter(const Tensor& src, int64_t offset, int64_t dim1, int64_t dim2) const {
  return ember::diagonal_scatter(*this, src, offset, dim1, dim2);
}
Tensor Tensor::masked_scatter(const Tensor& mask, const Tensor& source) const {
  return ember::masked_scatter(*this, mask, source);
}
// Out of place, then copied in (self's shape must be the broadcast shape), as masked_fill_.
Tensor& Tensor::masked_scatter_(const Tensor& mask, const Tensor& source) const {
  autograd::check_inplace(*this, "masked_scatter_", {source});
  const DimVector shape = broadcast_shapes(sizes(), mask.sizes(), "masked_scatter_");
  EMBER_CHECK(IntArrayRef(shape) == sizes(), "masked_scatter_: mask of shape ", mask.sizes(),
              " does not broadcast to self's shape ", sizes());
  return copy_(ember::masked_scatter(*this, mask, source));
}

Tensor& Tensor::fill_diagonal_(const Scalar& fill_value, bool wrap) const {
  const Tensor positions = diagonal_positions(*this, wrap);
  const Tensor mask = zeros({numel()}, TensorOptions(kBool).device(device()))
                          .index_fill(0, positions, true)
                          .view(sizes());
  return masked_fill_(mask, fill_value);
}

}  // namespace ember
