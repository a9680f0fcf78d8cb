// cov, corrcoef, nansum, nanmean, aminmax, count_nonzero as compositions of
// differentiable ops: no derivative of their own.
#include "ember/core/ops/reduction/statistics_extra.h"

#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/elementwise/compare.h"
#include "ember/core/ops/shape/diagonal.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/linalg/matmul.h"
#include "ember/core/ops/reduction/reduce.h"
#include "ember/core/ops/elementwise/unary.h"
#include "ember/core/ops/shape/views.h"
#include "ember/core/shape.h"

namespace ember {
namespace {

// A 1-d weight per observation: checks its shape, device and sign.
void check_weights(const char* name, const Tensor& w, int64_t observations, const Tensor& x) {
  EMBER_CHECK(w.dim() <= 1, "cov: expected ", name, " to have one or fewer dims, got shape ", w.sizes());
  EMBER_CHECK(w.numel() == observations, "cov: expected ", w.numel(), " ", name,
              " to equal the number of observations ", observations, " (input shape ", x.sizes(), ")");
  EMBER_CHECK(w.device() == x.device(), "cov: ", name, " on ", w.device(), " but the input is on ",
              x.device());
  EMBER_CHECK(w.numel() == 0 || amin(w.detach()).item<double>() >= 0, "cov: ", name,
              " cannot be negative");
}

}  // namespace

Tensor cov(const Tensor& self, int64_t correction, const std::optional<Tensor>& fweights,
           const std::optional<Tensor>& aweights) {
  EMBER_CHECK(self.dim() <= 2, "cov: expected the input to have two or fewer dims, got shape ",
              self.sizes());
  const Tensor x0 = is_floating_point(self.scalar_type()) ? self : self.to(kFloat);
  const Tensor x = x0.dim() < 2 ? x0.reshape({1, -1}) : x0;  // (variables, observations)
  const int64_t n = x.size(1);
  Tensor w;
  if (fweights && fweights->defined()) {
    EMBER_CHECK(!is_floating_point(fweights->scalar_type()) && fweights->scalar_type() != kBool,
                "cov: expected fweights to have an integral dtype, got ", fweights->scalar_type());
    check_weights("fweights", *fweights, n, x);
    w = fweights->reshape({-1}).to(x.scalar_type());
  }
  const bool has_aweights = aweights && aweights->defined();
  if (has_aweights) {
    EMBER_CHECK(is_floating_point(aweights->scalar_type()),
                "cov: expected aweights to have a floating dtype, got ", aweights->scalar_type());
    check_weights("aweights", *aweights, n, x);
    const Tensor aw = aweights->reshape({-1});
    w = w.defined() ? w * aw : aw;
  }
  // mean = sum(w x) / sum(w); divisor = sum(w) - correction * sum(w * aw) / sum(w).
  Tensor mean, divisor, centered;
  if (w.defined()) {
    const Tensor w_sum = sum(w);
    mean = sum(x * w, {1}, true) / w_sum;
    divisor = has_aweights ? w_sum - correction * sum(w * aweights->reshape({-1})) / w_sum
                           : w_sum - correction;
  } else {
    mean = ember::mean(x, {1}, true);
    divisor = full({}, static_cast<double>(n - correction), x.options().requires_grad(false));
  }
  centered = x - mean;
  const Tensor weighted = w.defined() ? centered * w : centered;
  const Tensor c = matmul(weighted, centered.t()) / clamp_min(divisor, 0);
  return c.size(0) == 1 ? c.reshape({}) : c;  // one variable: 0-d, as libtorch's squeeze
}

Tensor corrcoef(const Tensor& self) {
  EMBER_CHECK(self.dim() <= 2, "corrcoef: expected the input to have two or fewer dims, got shape ",
              self.sizes());
  const Tensor c = cov(self);
  if (c.dim() == 0) return c / c;
  const Tensor s = sqrt(diagonal(c));
  return clamp(c / s.unsqueeze(1) / s.unsqueeze(0), -1, 1);
}

Tensor nansum(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  const Tensor x = is_floating_point(self.scalar_type()) ? where(isnan(self), 0, self) : self;
  return sum(x, dim, keepdim, dtype);
}

Tensor nanmean(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  EMBER_CHECK(is_floating_point(self.scalar_type()),
              "nanmean: expected the input to have a floating dtype, got ", self.scalar_type());
  const Tensor present = logical_not(isnan(self));
  return nansum(self, dim, keepdim, dtype) / sum(present, dim, keepdim);
}

std::tuple<Tensor, Tensor> aminmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  if (!dim) {
    EMBER_CHECK(self.numel() > 0, "aminmax: cannot compute aminmax over an empty tensor of shape ",
                self.sizes(), " (no identity)");
    return {amin(self, {}, keepdim), amax(self, {}, keepdim)};
  }
  const int64_t d = wrap_dim(*dim, std::max<int64_t>(self.dim(), 1), "aminmax");
  EMBER_CHECK(self.dim() == 0 || self.size(d) > 0, "aminmax: cannot compute aminmax over the empty dim ",
              d, " of shape ", self.sizes(), " (no identity)");
  if (self.dim() == 0) return {self.clone(), self.clone()};
  return {amin(self, {d}, keepdim), amax(self, {d}, keepdim)};
}

Tensor count_nonzero(const Tensor& self, IntArrayRef dim) { return sum(ne(self, 0), dim); }

Tensor count_nonzero(const Tensor& self, std::optional<int64_t> dim) {
  return dim ? count_nonzero(self, IntArrayRef{*dim}) : count_nonzero(self, IntArrayRef{});
}

Tensor Tensor::cov(int64_t correction, const std::optional<Tensor>& fweights,
                   const std::optional<Tensor>& aweights) const {
  return ember::cov(*this, correction, fweights, aweights);
}
Tensor Tensor::corrcoef() const { return ember::corrcoef(*this); }
Tensor Tensor::nansum(IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::nansum(*this, dim, keepdim, dtype);
}
Tensor Tensor::nanmean(IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::nanmean(*this, dim, keepdim, dtype);
}
std::tuple<Tensor, Tensor> Tensor::aminmax(std::optional<int64_t> dim, bool keepdim) const {
  return ember::aminmax(*this, dim, keepdim);
}
Tensor Tensor::count_nonzero(IntArrayRef dim) const { return ember::count_nonzero(*this, dim); }
Tensor Tensor::count_nonzero(std::optional<int64_t> dim) const { return ember::count_nonzero(*this, dim); }

}  // namespace ember
