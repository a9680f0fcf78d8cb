// diagonal is a view (a stride of stride(dim1) + stride(dim2)); its gradient
// places g on the diagonal of zeros, an op of its own so that double backward
// goes through it, and the same op is diag_embed. diag and trace compose them.
#include "ember/core/autocast.h"
#include "ember/core/ops/shape/diagonal.h"

#include "ember/autograd/function.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/reduction/reduce.h"
#include "ember/core/ops/shape/view_helpers.h"
#include "ember/core/shape.h"

namespace ember {

using autograd::Node;

namespace {

// Zeros of `sizes` with g written at diagonal(offset, d1, d2); d1, d2 wrapped.
Tensor place_on_diagonal(const char* name, const Tensor& g, const DimVector& sizes, int64_t offset,
                         int64_t d1, int64_t d2) {
  Tensor out = zeros(sizes, g.options());
  {
    NoGradGuard guard;
    out.diagonal(offset, d1, d2).copy_(g);
  }
  if (autograd::needs_grad(g)) {
    autograd::set_history(
        out, autograd::make_node(name, {g}, [offset, d1, d2](Node&, const tensor_list& gg) {
          return tensor_list{gg[0].diagonal(offset, d1, d2)};
        }));
  }
  return out;
}

}  // namespace

Tensor Tensor::diagonal(int64_t offset, int64_t dim1, int64_t dim2) const {
  EMBER_CHECK(dim() >= 2, "diagonal: expected a tensor with at least 2 dims, got shape ", sizes());
  const int64_t d1 = wrap_dim(dim1, dim(), "diagonal"), d2 = wrap_dim(dim2, dim(), "diagonal");
  EMBER_CHECK(d1 != d2, "diagonal: dim1 and dim2 name the same dim ", d1, " (shape ", sizes(), ")");
  const int64_t n =
      offset >= 0 ? std::min(size(d1), size(d2) - offset) : std::min(size(d1) + offset, size(d2));
  const int64_t len = std::max<int64_t>(n, 0);
  int64_t start = storage_offset();
  if (len > 0) start += offset >= 0 ? offset * stride(d2) : -offset * stride(d1);
  DimVector sz, st;
  for (int64_t d = 0; d < dim(); ++d) {
    if (d == d1 || d == d2) continue;
    sz.push_back(size(d));
    st.push_back(stride(d));
  }
  sz.push_back(len);
  st.push_back(stride(d1) + stride(d2));
  const DimVector in_sizes(sizes());
  // derivative: d/dx = g written on the diagonal of zeros of x's shape
  return detail::record_view("DiagonalBackward", *this, detail::make_view(*this, sz, st, start),
                             [in_sizes, offset, d1, d2](const Tensor& g) {
                               // derivative: d/dg = diagonal(gg)
                               return place_on_diagonal("DiagonalBackwardBackward", g, in_sizes,
                                                        offset, d1, d2);
                             });
}
Tensor diagonal(const Tensor& x, int64_t offset, int64_t dim1, int64_t dim2) {
  return x.diagonal(offset, dim1, dim2);
}

Tensor Tensor::diag_embed(int64_t offset, int64_t dim1, int64_t dim2) const {
  EMBER_CHECK(dim() >= 1, "diag_embed: expected a tensor with at least 1 dim, got a 0-d tensor");
  const int64_t nd = dim() + 1;
  const int64_t d1 = wrap_dim(dim1, nd, "diag_embed"), d2 = wrap_dim(dim2, nd, "diag_embed");
  EMBER_CHECK(d1 != d2, "diag_embed: dim1 and dim2 name the same dim ", d1, " of the ", nd,
              "-d result (input shape ", sizes(), ")");
  // The result's shape: x's without its last dim, with the diagonal's two
  // dims (size n + |offset|) inserted at d1 and d2.
  const int64_t n = size(-1) + std::abs(offset);
  DimVector out_sizes(sizes().slice(0, dim() - 1));
  out_sizes.insert(static_cast<size_t>(std::min(d1, d2)), n);
  out_sizes.insert(static_cast<size_t>(std::max(d1, d2)), n);
  // derivative: d/dx = diagonal(g, offset, dim1, dim2)
  return place_on_diagonal("DiagEmbedBackward", *this, out_sizes, offset, d1, d2);
}
Tensor diag_embed(const Tensor& x, int64_t offset, int64_t dim1, int64_t dim2) {
  return x.diag_embed(offset, dim1, dim2);
}

Tensor Tensor::diag(int64_t diagonal) const {
  EMBER_CHECK(dim() == 1 || dim() == 2, "diag: expected a 1-d or 2-d tensor, got shape ", sizes());
  return dim() == 1 ? diag_embed(diagonal, 0, 1) : this->diagonal(diagonal).clone();
}
Tensor diag(const Tensor& x, int64_t diagonal) { return x.diag(diagonal); }

Tensor Tensor::trace() const {
  if (const auto to = autocast::cast_dtype(autocast::kCpuFloat32Op, {this})) {
    const autocast::Suspend as_listed(DeviceType::CPU);  // its inner ops as called
    return autocast::cast(*this, *to).trace();
  }
  EMBER_CHECK(dim() == 2, "trace: expected a matrix, got shape ", sizes());
  EMBER_CHECK(scalar_type() != kBool, "trace: dtype bool is not supported");
  return diagonal().sum();
}
Tensor trace(const Tensor& x) { return x.trace(); }

}  // namespace ember
