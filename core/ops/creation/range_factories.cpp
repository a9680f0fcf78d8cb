// Computed on the host in float64 / int64 (small outputs), then converted to
// the options' dtype and device.
#include "ember/core/ops/creation/range_factories.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "ember/core/ops/creation/factory.h"

namespace ember {

namespace {

Tensor finish(Tensor host, const TensorOptions& options) {
  Tensor t = host.to(options.device(), options.dtype());
  if (options.requires_grad()) t.requires_grad_();
  return t;
}

// keep(r, c): whether position (r, c) is listed.
template <typename Keep>
Tensor triangle_indices(const char* op, int64_t row, int64_t col, const TensorOptions& options,
                        Keep keep) {
  EMBER_CHECK(row >= 0 && col >= 0, op, ": row and col must be non-negative, got ", row, " and ",
              col);
  std::vector<int64_t> rows, cols;
  for (int64_t r = 0; r < row; ++r)
    for (int64_t c = 0; c < col; ++c)
      if (keep(r, c)) {
        rows.push_back(r);
        cols.push_back(c);
      }
  const int64_t n = static_cast<int64_t>(rows.size());
  Tensor host = empty({2, n}, kLong);
  int64_t* p = host.data_ptr<int64_t>();
  std::copy(rows.begin(), rows.end(), p);
  std::copy(cols.begin(), cols.end(), p + n);
  return finish(host, options);
}

}  // namespace

Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base,
                const TensorOptions& options) {
  EMBER_CHECK(steps >= 0, "logspace: number of steps must be non-negative, got ", steps);
  const double a = start.toDouble(), b = end.toDouble();
  const double step = steps > 1 ? (b - a) / static_cast<double>(steps - 1) : 0.0;
  Tensor host = empty({steps}, kDouble);
  double* p = host.data_ptr<double>();
  // The second half counts back from end, so that the last exponent is exactly
  // end; one step is start alone.
  for (int64_t i = 0; i < steps; ++i) {
    const double e = i < steps / 2 || steps == 1 ? a + step * static_cast<double>(i)
                                                 : b - step * static_cast<double>(steps - 1 - i);
    p[i] = std::pow(base, e);
  }
  return finish(host, options);
}

Tensor tril_indices(int64_t row, int64_t col, int64_t offset, const TensorOptions& options) {
  return triangle_indices("tril_indices", row, col, options,
                          [offset](int64_t r, int64_t c) { return c - r <= offset; });
}

Tensor triu_indices(int64_t row, int64_t col, int64_t offset, const TensorOptions& options) {
  return triangle_indices("triu_indices", row, col, options,
                          [offset](int64_t r, int64_t c) { return c - r >= offset; });
}

}  // namespace ember
