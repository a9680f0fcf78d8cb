// sort, argsort, msort, topk, kthvalue, median: the sort family's kernel
// table (kernels/common/sort_kernels.h) finds the int64 indices without
// recording anything, and the values are self.gather(dim, indices), whose
// derivative (and derivative of the derivative) autograd already has.
#include "ember/core/ops/reduction/sort.h"

#include <limits>

#include "ember/autograd/grad_mode.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/indexing/indexing.h"
#include "ember/core/ops/reduction/reduce_helpers.h"
#include "ember/kernels/common/kernel_registry.h"

namespace ember {
namespace {

SortRows rows_of(const Tensor& x, int64_t d) {
  const detail::LineShape l = detail::line_shape(x, d);
  return {l.outer, l.n, l.inner};
}

// x's shape with `m` elements along d (a 0-d x keeps its shape).
DimVector with_size_at(const Tensor& x, int64_t d, int64_t m) {
  DimVector s(x.sizes());
  if (x.dim() > 0) s[d] = m;
  return s;
}

// The positions along d of every row of x in sorted order (x's shape).
Tensor sorted_indices(const Tensor& x, int64_t d, bool descending) {
  NoGradGuard no_grad;
  const SortRows r = rows_of(x, d);
  if (r.n <= 1 || x.numel() == 0) return zeros(x.sizes(), x.options().dtype(kLong));
  Tensor idx = empty(x.sizes(), x.options().dtype(kLong));
  kernels().sort.sort.on(x.device(), "sort")(idx, detail::contiguous_for_kernel(x), r, descending);
  return idx;
}

void check_not_bool(const char* op, const Tensor& x) {
  EMBER_CHECK(x.scalar_type() != kBool, op, ": bool tensors are not supported (tensor of shape ",
              x.sizes(), "); convert to int64 first");
}

// k-th smallest (pos = k - 1) or, when is_median, the lower median with NaN
// winning: the indices with size 1 at d.
Tensor select_index(const Tensor& x, int64_t d, int64_t pos, bool is_median) {
  NoGradGuard no_grad;
  Tensor idx = empty(with_size_at(x, d, 1), x.options().dtype(kLong));
  if (x.numel() == 0) return idx;
  kernels().sort.kth.on(x.device(), is_median ? "median" : "kthvalue")(
      idx, detail::contiguous_for_kernel(x), rows_of(x, d), pos, is_median);
  return idx;
}

// The positions of the k largest (smallest) elements: the indices with size k at d.
Tensor topk_index(const Tensor& x, int64_t d, int64_t k, bool largest, bool sorted) {
  NoGradGuard no_grad;
  Tensor idx = empty(with_size_at(x, d, k), x.options().dtype(kLong));
  if (x.numel() == 0) return idx;
  kernels().sort.topk.on(x.device(), "topk")(idx, detail::contiguous_for_kernel(x), rows_of(x, d),
                                             x.dim() == 0 ? 1 : k, largest, sorted);
  return idx;
}

std::tuple<Tensor, Tensor> select_result(const Tensor& self, int64_t d, Tensor idx, bool keepdim) {
  Tensor values = self.gather(d, idx);
  if (!keepdim && self.dim() > 0) return {values.squeeze(d), idx.squeeze(d)};
  return {values, idx};
}

int64_t size_along(const Tensor& x, int64_t d) { return x.dim() == 0 ? 1 : x.size(d); }

}  // namespace

std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending) {
  const int64_t d = detail::wrap_reduction_dim("sort", self, dim);
  Tensor idx = sorted_indices(self, d, descending);
  return {self.gather(d, idx), idx};
}

std::tuple<Tensor, Tensor> sort(const Tensor& self, std::optional<bool>, int64_t dim,
                                bool descending) {
  return sort(self, dim, descending);  // every sort here is stable
}

Tensor argsort(const Tensor& self, int64_t dim, bool descending) {
  return sorted_indices(self, detail::wrap_reduction_dim("argsort", self, dim), descending);
}

Tensor argsort(const Tensor& self, bool, int64_t dim, bool descending) {
  return argsort(self, dim, descending);
}

Tensor msort(const Tensor& self) { return std::get<0>(sort(self, 0)); }

std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim, bool largest,
                                bool sorted) {
  const int64_t d = detail::wrap_reduction_dim("topk", self, dim);
  check_not_bool("topk", self);
  const int64_t n = size_along(self, d);
  EMBER_CHECK(k >= 0 && k <= n, "topk: k = ", k, " is out of range for dim ", d, " of size ", n,
              " (tensor of shape ", self.sizes(), ")");
  const Tensor idx = topk_index(self, d, k, largest, sorted);
  return {self.gather(d, idx), idx};
}

std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
  const int64_t d = detail::wrap_reduction_dim("kthvalue", self, dim);
  check_not_bool("kthvalue", self);
  const int64_t n = size_along(self, d);
  EMBER_CHECK(n > 0, "kthvalue: dim ", d, " of the tensor of shape ", self.sizes(),
              " is empty (a reduction dim needs at least one element)");
  EMBER_CHECK(k >= 1 && k <= n, "kthvalue: k = ", k, " is out of range for dim ", d, " of size ",
              n, " (expected 1 <= k <= ", n, "; tensor of shape ", self.sizes(), ")");
  return select_result(self, d, select_index(self, d, k - 1, false), keepdim);
}

std::tuple<Tensor, Tensor> median(const Tensor& self, int64_t dim, bool keepdim) {
  const int64_t d = detail::wrap_reduction_dim("median", self, dim);
  check_not_bool("median", self);
  const int64_t n = size_along(self, d);
  EMBER_CHECK(n > 0, "median: dim ", d, " of the tensor of shape ", self.sizes(),
              " is empty (a reduction dim needs at least one element)");
  return select_result(self, d, select_index(self, d, (n - 1) / 2, true), keepdim);
}

Tensor median(const Tensor& self) {
  check_not_bool("median", self);
  if (self.numel() == 0) {
    EMBER_CHECK(self.is_floating_point(), "median: the median of an empty ", self.scalar_type(),
                " tensor is undefined (a floating-point one gives NaN)");
    return full({}, std::numeric_limits<double>::quiet_NaN(), self.options());
  }
  return std::get<0>(median(self.reshape({-1}), 0));
}

std::tuple<Tensor, Tensor> Tensor::sort(int64_t dim, bool descending) const {
  return ember::sort(*this, dim, descending);
}
std::tuple<Tensor, Tensor> Tensor::sort(std::optional<bool> stable, int64_t dim,
                                        bool descending) const {
  return ember::sort(*this, stable, dim, descending);
}
Tensor Tensor::argsort(int64_t dim, bool descending) const {
  return ember::argsort(*this, dim, descending);
}
Tensor Tensor::argsort(bool stable, int64_t dim, bool descending) const {
  return ember::argsort(*this, stable, dim, descending);
}
Tensor Tensor::msort() const { return ember::msort(*this); }
std::tuple<Tensor, Tensor> Tensor::topk(int64_t k, int64_t dim, bool largest, bool sorted) const {
  return ember::topk(*this, k, dim, largest, sorted);
}
std::tuple<Tensor, Tensor> Tensor::kthvalue(int64_t k, int64_t dim, bool keepdim) const {
  return ember::kthvalue(*this, k, dim, keepdim);
}
Tensor Tensor::median() const { return ember::median(*this); }
std::tuple<Tensor, Tensor> Tensor::median(int64_t dim, bool keepdim) const {
  return ember::median(*this, dim, keepdim);
}

}  // namespace ember
