// quantile, nanquantile, nanmedian: sort the reduced dim (moved last), find
// each quantile's position from the count of values, and gather there.
#include "ember/core/ops/reduction/quantile.h"

#include <cmath>
#include <limits>

#include "ember/autograd/grad_mode.h"
#include "ember/core/autocast.h"
#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/elementwise/binary_math.h"
#include "ember/core/ops/elementwise/compare.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/indexing/indexing.h"
#include "ember/core/ops/reduction/reduce.h"
#include "ember/core/ops/reduction/sort.h"
#include "ember/core/ops/elementwise/unary.h"
#include "ember/core/ops/elementwise/unary_math.h"
#include "ember/core/ops/shape/views.h"
#include "ember/core/shape.h"

namespace ember {
namespace {

enum class Interpolation { kLinear, kLower, kHigher, kMidpoint, kNearest };

Interpolation parse_interpolation(const char* op, std::string_view s) {
  if (s == "linear") return Interpolation::kLinear;
  if (s == "lower") return Interpolation::kLower;
  if (s == "higher") return Interpolation::kHigher;
  if (s == "midpoint") return Interpolation::kMidpoint;
  EMBER_CHECK(s == "nearest", op, ": interpolation must be one of linear, lower, higher, midpoint or ",
              "nearest, got '", std::string(s), "'");
  return Interpolation::kNearest;
}

void check_q(const char* op, const Tensor& self, const Tensor& q) {
  EMBER_CHECK(is_floating_point(self.scalar_type()), op, ": expected a float32 or float64 input, got ",
              self.scalar_type());
  EMBER_CHECK(self.numel() > 0, op, ": expected a non-empty input, got shape ", self.sizes());
  EMBER_CHECK(q.dim() <= 1, op, ": expected q to be 0-d or 1-d, got shape ", q.sizes());
  EMBER_CHECK(q.scalar_type() == self.scalar_type(), op, ": expected q of the input's dtype ",
              self.scalar_type(), ", got ", q.scalar_type());
  EMBER_CHECK(q.device() == self.device(), op, ": expected q on the input's device ", self.device(),
              ", got ", q.device());
  if (q.numel() > 0) {
    NoGradGuard no_grad;
    const Tensor qd = q.reshape({-1});
    EMBER_CHECK(amin(qd).item<double>() >= 0 && amax(qd).item<double>() <= 1, op,
                ": q values must be in [0, 1]");
  }
}

Tensor quantile_impl(const char* op, const Tensor& self, const Tensor& q, std::optional<int64_t> dim,
                     bool keepdim, std::string_view interpolation, bool ignore_nan) {
  if (const auto to = autocast::cast_dtype(autocast::kCpuFloat32Op, {&self, &q}))
    return quantile_impl(op, autocast::cast(self, *to), autocast::cast(q, *to), dim, keepdim,
                         interpolation, ignore_nan);
  check_q(op, self, q);
  const Interpolation mode = parse_interpolation(op, interpolation);
  // rows: (..., n) with the reduced dim last; `reduced`: the result's shape without q's dim.
  Tensor rows;
  DimVector reduced;
  if (!dim) {
    rows = self.reshape({-1});
    if (keepdim) reduced.assign(static_cast<size_t>(self.dim()), 1);
  } else {
    const int64_t d = wrap_dim(*dim, std::max<int64_t>(self.dim(), 1), op);
    rows = self.dim() == 0 ? self.reshape({1}) : self.movedim(d, -1);
    reduced = DimVector(self.sizes());
    if (self.dim() > 0) {
      if (keepdim)
        reduced[d] = 1;
      else
        reduced.erase(static_cast<size_t>(d));
    }
  }
  const Tensor sorted = std::get<0>(sort(rows, -1));  // NaN last
  const int64_t n = rows.size(-1);
  const Tensor qs = q.reshape({-1});  // (Q)
  DimVector rank_shape(sorted.sizes());
  rank_shape.back() = qs.numel();
  Tensor rank;  // (..., Q): q * (count - 1), the position in the sorted values
  {
    NoGradGuard no_grad;
    const Tensor count = ignore_nan ? sum(logical_not(isnan(sorted)), {-1}, true).to(self.scalar_type())
                                    : full({1}, static_cast<double>(n), self.options());
    rank = clamp_min(qs * (count - 1), 0).expand(rank_shape).contiguous();
    if (mode == Interpolation::kLower) rank = floor(rank);
    if (mode == Interpolation::kHigher) rank = ceil(rank);
    if (mode == Interpolation::kNearest) rank = round(rank);
  }
  Tensor out;
  if (mode == Interpolation::kLinear || mode == Interpolation::kMidpoint) {
    Tensor lo_index, hi_index, weight;
    {
      NoGradGuard no_grad;
      const Tensor below = floor(rank);
      lo_index = below.to(kLong);
      hi_index = ceil(rank).to(kLong);
      weight = mode == Interpolation::kLinear ? rank - below : full_like(rank, 0.5);
    }
    const Tensor lo = gather(sorted, -1, lo_index), hi = gather(sorted, -1, hi_index);
    out = lo + (hi - lo) * weight;
  } else {
    out = gather(sorted, -1, rank.to(kLong));
  }
  if (!ignore_nan)  // a NaN sorts last: its row's quantiles are all NaN
    out = where(isnan(sorted.narrow(-1, n - 1, 1)), std::numeric_limits<double>::quiet_NaN(), out);
  // (..., Q) -> (Q, reduced...), or reduced alone for a 0-d q.
  DimVector shape;
  if (q.dim() == 1) shape.push_back(qs.numel());
  for (int64_t s : reduced) shape.push_back(s);
  return out.movedim(-1, 0).reshape(shape);
}

Tensor scalar_q(double q, const Tensor& self) {
  return full({}, q, TensorOptions(self.scalar_type()).device(self.device()));
}

}  // namespace

Tensor quantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                std::string_view interpolation) {
  return quantile_impl("quantile", self, q, dim, keepdim, interpolation, false);
}
Tensor quantile(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                std::string_view interpolation) {
  return quantile_impl("quantile", self, scalar_q(q, self), dim, keepdim, interpolation, false);
}
Tensor nanquantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                   std::string_view interpolation) {
  return quantile_impl("nanquantile", self, q, dim, keepdim, interpolation, true);
}
Tensor nanquantile(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                   std::string_view interpolation) {
  return quantile_impl("nanquantile", self, scalar_q(q, self), dim, keepdim, interpolation, true);
}

std::tuple<Tensor, Tensor> nanmedian(const Tensor& self, int64_t dim, bool keepdim) {
  const int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1), "nanmedian");
  const Tensor x = self.dim() == 0 ? self.reshape({1}) : self;
  EMBER_CHECK(x.size(d) > 0, "nanmedian: cannot take the median over dim ", d, " of size 0 (shape ",
              self.sizes(), ")");
  const auto [values, indices] = sort(x, d);  // NaN last
  Tensor position;  // (count - 1) / 2 rounded down, 0 for an all-NaN row
  {
    NoGradGuard no_grad;
    const Tensor count = sum(logical_not(isnan(values)), {d}, true);
    position = clamp_min(floor_divide(count - 1, 2), 0);
  }
  Tensor v = gather(values, d, position), i = gather(indices, d, position);
  if (self.dim() == 0) return {v.reshape({}), i.reshape({})};
  if (!keepdim) return {v.squeeze(d), i.squeeze(d)};
  return {v, i};
}

Tensor nanmedian(const Tensor& self) {
  if (self.numel() == 0) return full({}, std::numeric_limits<double>::quiet_NaN(), self.options());
  return std::get<0>(nanmedian(self.reshape({-1}), 0));
}

Tensor Tensor::quantile(const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                        std::string_view interpolation) const {
  return ember::quantile(*this, q, dim, keepdim, interpolation);
}
Tensor Tensor::quantile(double q, std::optional<int64_t> dim, bool keepdim,
                        std::string_view interpolation) const {
  return ember::quantile(*this, q, dim, keepdim, interpolation);
}
Tensor Tensor::nanquantile(const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                           std::string_view interpolation) const {
  return ember::nanquantile(*this, q, dim, keepdim, interpolation);
}
Tensor Tensor::nanquantile(double q, std::optional<int64_t> dim, bool keepdim,
                           std::string_view interpolation) const {
  return ember::nanquantile(*this, q, dim, keepdim, interpolation);
}
Tensor Tensor::nanmedian() const { return ember::nanmedian(*this); }
std::tuple<Tensor, Tensor> Tensor::nanmedian(int64_t dim, bool keepdim) const {
  return ember::nanmedian(*this, dim, keepdim);
}

}  // namespace ember
