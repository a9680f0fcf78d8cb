// cdist and pdist: differences of rows reduced by norm (core/ops/reduction/reduce.cpp),
// whose gradient is 0 where a distance is 0, as PyTorch's.
#include "ember/core/ops/linalg/distance.h"

#include "ember/core/autocast.h"
#include "ember/core/error.h"
#include "ember/core/ops/indexing/indexing.h"
#include "ember/core/ops/creation/range_factories.h"
#include "ember/core/ops/reduction/reduce.h"

namespace ember {

namespace {

void check_p(const char* op, double p) {
  EMBER_CHECK(p >= 0, op, ": p must be non-negative, got ", p);
}

}  // namespace

Tensor cdist(const Tensor& x1, const Tensor& x2, double p) {
  if (const auto to = autocast::cast_dtype(autocast::kFloat32Op, {&x1, &x2}))
    return cdist(autocast::cast(x1, *to), autocast::cast(x2, *to), p);
  EMBER_CHECK(x1.defined() && x2.defined(), "cdist: x1 and x2 must be defined");
  EMBER_CHECK(x1.dim() >= 2 && x2.dim() >= 2,
              "cdist: expected x1 and x2 of at least 2 dims (..., rows, columns), got shapes ",
              x1.sizes(), " and ", x2.sizes());
  EMBER_CHECK(x1.is_floating_point() && x2.scalar_type() == x1.scalar_type(),
              "cdist: expected x1 and x2 of one floating point dtype, got ", x1.scalar_type(),
              " and ", x2.scalar_type());
  EMBER_CHECK(x1.device() == x2.device(), "cdist: expected x1 and x2 on one device, got ",
              x1.device(), " and ", x2.device());
  EMBER_CHECK(x1.size(-1) == x2.size(-1),
              "cdist: x1 and x2 must have the same number of columns, got shapes ", x1.sizes(),
              " and ", x2.sizes());
  check_p("cdist", p);
  // (B..., P, 1, M) - (B..., 1, R, M): every pair of rows.
  return norm(x1.unsqueeze(-2) - x2.unsqueeze(-3), p, {-1});
}

Tensor pdist(const Tensor& input, double p) {
  if (const auto to = autocast::cast_dtype(autocast::kCudaFloat32Op, {&input})) {
    const autocast::Suspend as_listed(DeviceType::CUDA);  // its inner ops as called
    return pdist(autocast::cast(input, *to), p);
  }
  EMBER_CHECK(input.defined(), "pdist: input must be defined");
  EMBER_CHECK(input.dim() == 2, "pdist: expected a 2-d input (rows, columns), got shape ",
              input.sizes());
  EMBER_CHECK(input.is_floating_point(), "pdist: expected a floating point input, got ",
              input.scalar_type());
  check_p("pdist", p);
  const int64_t n = input.size(0);
  const Tensor pairs = triu_indices(n, n, 1, input.options().dtype(kLong));  // (2, n (n - 1) / 2)
  return norm(index_select(input, 0, pairs[0]) - index_select(input, 0, pairs[1]), p, {1});
}

}  // namespace ember
