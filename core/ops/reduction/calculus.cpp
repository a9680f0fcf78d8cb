// diff, trapezoid, cumulative_trapezoid: narrow, sub, sum and cumsum, whose
// gradients autograd already has.
#include "ember/core/ops/reduction/calculus.h"

#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/elementwise/logical.h"
#include "ember/core/ops/reduction/reduce.h"
#include "ember/core/ops/reduction/scan.h"
#include "ember/core/ops/shape/views.h"
#include "ember/core/shape.h"

namespace ember {
namespace {

Tensor first_difference(const Tensor& x, int64_t d) {
  const int64_t m = x.size(d) - 1;
  const Tensor hi = x.narrow(d, 1, m), lo = x.narrow(d, 0, m);
  return x.scalar_type() == kBool ? logical_xor(hi, lo) : hi - lo;
}

// (y[i] + y[i + 1]) along d: the trapezoids' parallel sides.
Tensor side_sums(const Tensor& y, int64_t d) {
  const int64_t m = y.size(d) - 1;
  return y.narrow(d, 1, m) + y.narrow(d, 0, m);
}

int64_t integration_dim(const char* op, const Tensor& y, int64_t dim) {
  EMBER_CHECK(y.dim() > 0, op, ": expected y to have at least 1 dim, got a 0-d tensor");
  return wrap_dim(dim, y.dim(), op);
}

// The spacings x[i + 1] - x[i] along d, shaped to broadcast with y's trapezoids.
Tensor spacings(const char* op, const Tensor& y, const Tensor& x, int64_t d) {
  if (x.dim() == 1) {
    EMBER_CHECK(x.size(0) == y.size(d), op, ": x of shape ", x.sizes(), " must have as many samples as y ",
                "(shape ", y.sizes(), ") along dim ", d);
    DimVector shape(static_cast<size_t>(y.dim()), 1);
    shape[d] = std::max<int64_t>(x.size(0) - 1, 0);
    return x.size(0) == 0 ? x.reshape(shape) : diff(x).reshape(shape);
  }
  const int64_t xd = d - y.dim() + x.dim();
  EMBER_CHECK(xd >= 0 && x.size(xd) == y.size(d), op, ": x of shape ", x.sizes(),
              " does not match y of shape ", y.sizes(), " along dim ", d);
  return x.size(xd) == 0 ? x : diff(x, 1, xd);
}

}  // namespace

Tensor diff(const Tensor& self, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
            const std::optional<Tensor>& append) {
  EMBER_CHECK(self.dim() > 0, "diff: expected the input to have at least 1 dim, got a 0-d tensor");
  EMBER_CHECK(n >= 0, "diff: order n must be non-negative, got ", n);
  const int64_t d = wrap_dim(dim, self.dim(), "diff");
  std::vector<Tensor> parts;
  for (const std::optional<Tensor>& extra : {prepend, append}) {
    if (extra && extra->defined())
      EMBER_CHECK(extra->dim() == self.dim(), "diff: prepend/append of shape ", extra->sizes(),
                  " must have as many dims as the input of shape ", self.sizes());
  }
  if (prepend && prepend->defined()) parts.push_back(*prepend);
  parts.push_back(self);
  if (append && append->defined()) parts.push_back(*append);
  Tensor out = parts.size() == 1 ? self : cat(parts, d);
  for (int64_t i = 0; i < n && out.size(d) > 0; ++i) out = first_difference(out, d);
  return out;
}

Tensor trapezoid(const Tensor& y, const Tensor& x, int64_t dim) {
  const int64_t d = integration_dim("trapezoid", y, dim);
  const Tensor dx = spacings("trapezoid", y, x, d);
  if (y.size(d) == 0) return sum(y, {d}) * 0.0;
  return sum(side_sums(y, d) * dx, {d}) / 2;
}

Tensor trapezoid(const Tensor& y, const Scalar& dx, int64_t dim) {
  const int64_t d = integration_dim("trapezoid", y, dim);
  if (y.size(d) == 0) return sum(y, {d}) * 0.0;
  return sum(side_sums(y, d), {d}) * dx / 2;
}

Tensor trapz(const Tensor& y, const Tensor& x, int64_t dim) { return trapezoid(y, x, dim); }
Tensor trapz(const Tensor& y, double dx, int64_t dim) { return trapezoid(y, Scalar(dx), dim); }

Tensor cumulative_trapezoid(const Tensor& y, const Tensor& x, int64_t dim) {
  const int64_t d = integration_dim("cumulative_trapezoid", y, dim);
  const Tensor dx = spacings("cumulative_trapezoid", y, x, d);
  if (y.size(d) == 0) return y * 0.0;
  return cumsum(side_sums(y, d) * dx / 2, d);
}

Tensor cumulative_trapezoid(const Tensor& y, const Scalar& dx, int64_t dim) {
  const int64_t d = integration_dim("cumulative_trapezoid", y, dim);
  if (y.size(d) == 0) return y * 0.0;
  return cumsum(side_sums(y, d) * dx / 2, d);
}

Tensor Tensor::diff(int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
                    const std::optional<Tensor>& append) const {
  return ember::diff(*this, n, dim, prepend, append);
}

}  // namespace ember
