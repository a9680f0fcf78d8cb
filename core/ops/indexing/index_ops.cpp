// index_add, index_copy, index_fill (and their in-place forms) as scatters
// of whole slices: the 1-d index, viewed along dim and expanded (stride 0)
// over the other dims, is a scatter index. Their gradients are the
// scatters' (core/ops/indexing/scatter.cpp, core/ops/indexing/indexing.cpp): index_add's
// source gets alpha * grad.index_select(dim, index), index_copy's self
// grad.index_fill(dim, index, 0). take is a flat index_select.
#include "ember/core/ops/indexing/index_ops.h"

#include "ember/autograd/function.h"
#include "ember/core/autocast.h"
#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/elementwise/compare.h"
#include "ember/core/ops/elementwise/elementwise_helpers.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/indexing/indexing.h"
#include "ember/core/ops/indexing/indexing_helpers.h"
#include "ember/core/ops/indexing/scatter.h"
#include "ember/core/shape.h"
#include "ember/kernels/common/kernel_registry.h"

namespace ember {

using detail::at_least_1d;

namespace {

// Checks index (int64, 0-d or 1-d, values in range on the CPU) against
// self's dim; returns the wrapped dim.
int64_t check_dim_index(const char* op, const Tensor& self, int64_t dim, const Tensor& index) {
  detail::check_same_device(op, self, index);
  detail::check_index_dtype(op, index);
  EMBER_CHECK(index.dim() <= 1, op, ": index must be 0-d or 1-d, got shape ", index.sizes());
  dim = wrap_dim(dim, std::max<int64_t>(self.dim(), 1), op);
  detail::check_index_values(op, index, dim, at_least_1d(self).size(dim));
  return dim;
}

// source must be self's shape with index.numel() at dim, and self's dtype.
void check_source(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                  const Tensor& source) {
  detail::check_same_device(op, self, source);
  EMBER_CHECK(source.scalar_type() == self.scalar_type(), op,
              ": expected source to have self's dtype ", self.scalar_type(), ", got ",
              source.scalar_type());
  DimVector want(at_least_1d(self).sizes());
  want[dim] = index.numel();
  const IntArrayRef got = at_least_1d(source).sizes();
  EMBER_CHECK(got == want.ref() && source.dim() == self.dim(), op, ": source ", source.sizes(),
              " must have self's shape ", self.sizes(), " with ", index.numel(),
              " (the index's length) at dimension ", dim);
}

// The 1-d index as a scatter index of `sizes` (index's values along dim,
// repeated over the other dims without a copy). 0-d tensors act as 1-d.
Tensor slice_index(const Tensor& index, int64_t dim, IntArrayRef sizes, int64_t self_dim) {
  DimVector shape(sizes);
  if (shape.empty()) shape.push_back(1);
  DimVector line(shape.size(), 1);
  line[dim] = index.numel();
  const Tensor expanded = index.reshape(line).expand(shape);
  return self_dim == 0 ? expanded.view({}) : expanded;
}

// index_fill's index over self: self's shape with index.numel() at dim.
Tensor fill_index(const Tensor& self, int64_t dim, const Tensor& index) {
  DimVector sizes(at_least_1d(self).sizes());
  sizes[dim] = index.numel();
  return slice_index(index, dim, sizes, self.dim());
}

// alpha * source in source's dtype (alpha 1: source itself).
Tensor scaled(const Tensor& source, const Scalar& alpha) {
  if (alpha.to<double>() == 1.0) return source;
  return (source * alpha).to(source.scalar_type());
}

}  // namespace

Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                 const Scalar& alpha) {
  dim = check_dim_index("index_add", self, dim, index);
  check_source("index_add", self, dim, index, source);
  return scatter_add(self, dim, slice_index(index, dim, source.sizes(), self.dim()),
                     scaled(source, alpha));
}

Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  if (const auto to = autocast::cast_dtype(autocast::kPromoteOp, {&self, &source}))
    return index_copy(autocast::cast(self, *to), dim, index, autocast::cast(source, *to));
  dim = check_dim_index("index_copy", self, dim, index);
  check_source("index_copy", self, dim, index, source);
  return scatter(self, dim, slice_index(index, dim, source.sizes(), self.dim()), source);
}

Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  dim = check_dim_index("index_fill", self, dim, index);
  return scatter(self, dim, fill_index(self, dim, index), value);
}

// where(filled, value, self): value's gradient sums g over the filled
// positions, each counted once however often index repeats it.
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, "index_fill: value must be a 0-d tensor, got shape ",
              value.sizes());
  dim = check_dim_index("index_fill", self, dim, index);
  detail::check_same_device("index_fill", self, value);
  const Tensor filled =
      zeros(self.sizes(), self.options().dtype(kBool).requires_grad(false))
          .scatter(dim, fill_index(self, dim, index), true);
  return where(filled, value.to(self.scalar_type()), self);
}

Tensor take(const Tensor& self, const Tensor& index) {
  detail::check_same_device("take", self, index);
  detail::check_index_dtype("take", index);
  const int64_t n = self.numel();
  // Negative values wrap once: [-n, n) is valid. On CUDA the table sees no
  // value; one still outside [0, n) after wrapping is reported by
  // index_select's kernel.
  const std::optional<int64_t> bad =
      kernels().indexing.find_out_of_range.on(index.device(), "take")(index, -n, n);
  EMBER_CHECK(!bad, "take: index ", bad.value_or(0), " is out of range for a tensor of shape ",
              self.sizes(), " with ", n, " elements (valid range [", -n, ", ", n - 1, "])");
  const Tensor wrapped = where(index < 0, index + n, index).reshape({-1});
  return self.reshape({-1}).index_select(0, wrapped).view(index.sizes());
}

// --- Tensor methods ---

Tensor Tensor::index_add(int64_t dim, const Tensor& index, const Tensor& source,
                         const Scalar& alpha) const {
  return ember::index_add(*this, dim, index, source, alpha);
}
Tensor& Tensor::index_add_(int64_t dim, const Tensor& index, const Tensor& source,
                           const Scalar& alpha) const {
  autograd::check_inplace(*this, "index_add_", {source});
  dim = check_dim_index("index_add_", *this, dim, index);
  check_source("index_add_", *this, dim, index, source);
  return scatter_add_(dim, slice_index(index, dim, source.sizes(), this->dim()),
                      scaled(source, alpha));
}
Tensor Tensor::index_copy(int64_t dim, const Tensor& index, const Tensor& source) const {
  return ember::index_copy(*this, dim, index, source);
}
Tensor& Tensor::index_copy_(int64_t dim, const Tensor& index, const Tensor& source) const {
  autograd::check_inplace(*this, "index_copy_", {source});
  dim = check_dim_index("index_copy_", *this, dim, index);
  check_source("index_copy_", *this, dim, index, source);
  return scatter_(dim, slice_index(index, dim, source.sizes(), this->dim()), source);
}
Tensor Tensor::index_fill(int64_t dim, const Tensor& index, const Scalar& value) const {
  return ember::index_fill(*this, dim, index, value);
}
Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, const Scalar& value) const {
  autograd::check_inplace(*this, "index_fill_");
  dim = check_dim_index("index_fill_", *this, dim, index);
  return scatter_(dim, fill_index(*this, dim, index), value);
}
Tensor Tensor::index_fill(int64_t dim, const Tensor& index, const Tensor& value) const {
  return ember::index_fill(*this, dim, index, value);
}
// Out of place, then copied in, as masked_fill_.
Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, const Tensor& value) const {
  autograd::check_inplace(*this, "index_fill_", {value});
  return copy_(ember::index_fill(*this, dim, index, value));
}
Tensor Tensor::take(const Tensor& index) const { return ember::take(*this, index); }

}  // namespace ember
