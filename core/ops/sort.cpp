// sort, argsort, msort, topk, kthvalue, median: a kernel finds the int64
// indices (kernels/cpu/sort.cpp, kernels/cuda/sort_kernels.cu) without
// recording anything, and the values are self.gather(dim, indices), whose
// derivative (and derivative of the derivative) autograd already has.
#include "ember/core/ops/sort.h"

#include <limits>

#include "ember/autograd/grad_mode.h"
#include "ember/core/ops/binary.h"
#include "ember/core/ops/factory.h"
#include "ember/core/ops/indexing.h"
#include "ember/core/ops/reduce.h"
#include "ember/core/ops/reduce_helpers.h"
#include "ember/core/ops/unary.h"
#include "ember/core/ops/views.h"
#include "ember/kernels/cpu/sort.h"
#include "ember/kernels/cuda/sort.h"

namespace ember {
namespace {

cpu::SortRows rows_of(const Tensor& x, int64_t d) {
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
// On CUDA the rows are made contiguous (d moved last) for the kernel.
Tensor sorted_indices(const Tensor& x, int64_t d, bool descending) {
  NoGradGuard no_grad;
  const cpu::SortRows r = rows_of(x, d);
  if (r.n <= 1 || x.numel() == 0) return zeros(x.sizes(), x.options().dtype(kLong));
  if (!x.is_cuda()) {
    Tensor idx = empty(x.sizes(), x.options().dtype(kLong));
    cpu::sort_indices(idx, detail::contiguous_for_kernel(x), r, descending);
    return idx;
  }
  const Tensor rows = movedim(x, d, -1).contiguous();
  Tensor idx = empty(rows.sizes(), x.options().dtype(kLong));
  cuda::sort_kernel(idx, rows, x.numel() / r.n, r.n, descending);
  return movedim(idx, -1, d).contiguous();
}

void check_not_bool(const char* op, const Tensor& x) {
  EMBER_CHECK(x.scalar_type() != kBool, op, ": bool tensors are not supported (tensor of shape ",
              x.sizes(), "); convert to int64 first");
}

// k-th smallest (pos = k - 1) or, when is_median, the lower median with NaN
// winning: the indices with size 1 at d.
Tensor select_index(const Tensor& x, int64_t d, int64_t pos, bool is_median) {
  NoGradGuard no_grad;
  const cpu::SortRows r = rows_of(x, d);
  if (x.numel() == 0) return empty(with_size_at(x, d, 1), x.options().dtype(kLong));
  if (!x.is_cuda()) {
    Tensor idx = empty(with_size_at(x, d, 1), x.options().dtype(kLong));
    cpu::kth_indices(idx, detail::contiguous_for_kernel(x), r, pos, is_median);
    return idx;
  }
  // CUDA reuses the full sort, then picks one position of each sorted row.
  const Tensor order = sorted_indices(x, d, /*descending=*/false);
  if (x.dim() == 0) return order;
  if (!is_median || !x.is_floating_point()) return order.narrow(d, pos, 1).contiguous();
  // NaNs sort last: a row holding NaN takes its first NaN, at n - (number of NaNs).
  const Tensor nans = isnan(x.gather(d, order)).sum(IntArrayRef{d}, /*keepdim=*/true);
  return order.gather(d, where(nans > 0, rsub(nans, r.n), Scalar(pos)));
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
  Tensor idx;
  if (self.is_cuda()) {
    // CUDA reuses the full sort and keeps its first k positions.
    idx = sorted_indices(self, d, largest);
    if (self.dim() > 0) idx = idx.narrow(d, 0, k).contiguous();
  } else {
    NoGradGuard no_grad;
    idx = empty(with_size_at(self, d, k), self.options().dtype(kLong));
    if (self.numel() > 0)
      cpu::topk_indices(idx, detail::contiguous_for_kernel(self), rows_of(self, d),
                        self.dim() == 0 ? 1 : k, largest, sorted);
  }
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
