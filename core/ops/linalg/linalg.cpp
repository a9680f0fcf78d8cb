// Composites: each op is permutes, reshapes and one mm/bmm (or elementwise
// ops), so autograd and CUDA come from those.
#include "ember/core/ops/linalg/linalg.h"

#include <iostream>
#include <mutex>
#include <vector>

#include "ember/autograd/function.h"
#include "ember/core/autocast.h"
#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/linalg/matmul.h"
#include "ember/core/ops/reduction/reduce.h"
#include "ember/core/ops/shape/views.h"
#include "ember/core/shape.h"

namespace ember {

namespace {

void check_same_kind(const char* op, const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.device() == b.device(), op, ": expected tensors on one device, got ", a.device(),
              " and ", b.device());
  EMBER_CHECK(a.scalar_type() == b.scalar_type(), op, ": expected one dtype, got ", a.scalar_type(),
              " and ", b.scalar_type());
}

// beta * self + alpha * product (Scalars compared as doubles: 1 and 0 skip work).
Tensor add_scaled(const char* op, const Tensor& self, const Tensor& product, const Scalar& beta,
                  const Scalar& alpha) {
  check_same_kind(op, self, product);
  EMBER_CHECK(is_expandable_to(self.sizes(), product.sizes()), op, ": self of shape ", self.sizes(),
              " does not broadcast to the product's shape ", product.sizes());
  Tensor out = alpha.toDouble() == 1 ? product : product * alpha;
  if (beta.toDouble() == 0) {
    // self's values are not read (its NaN/inf do not leak), but it still gets
    // a (zero) gradient, as libtorch's.
    if (!autograd::needs_grad(self)) return out;
    return out + where(zeros(self.sizes(), self.options().dtype(kBool)), self, 0);
  }
  return out + (beta.toDouble() == 1 ? self : self * beta);
}

}  // namespace

Tensor tensordot(const Tensor& a, const Tensor& b, IntArrayRef dims_a, IntArrayRef dims_b) {
  if (const auto to = autocast::cast_dtype(autocast::kCudaPromoteOp, {&a, &b})) {
    const autocast::Suspend as_listed(DeviceType::CUDA);  // its products as called
    return tensordot(autocast::cast(a, *to), autocast::cast(b, *to), dims_a, dims_b);
  }
  EMBER_CHECK(dims_a.size() == dims_b.size(), "tensordot: dims_a ", dims_a, " and dims_b ", dims_b,
              " must have the same length");
  Tensor x = a, y = b;
  std::vector<bool> summed_a(static_cast<size_t>(a.dim()), false),
      summed_b(static_cast<size_t>(b.dim()), false);
  DimVector da, db;
  for (size_t i = 0; i < dims_a.size(); ++i) {
    const int64_t p = wrap_dim(dims_a[i], a.dim(), "tensordot"),
                  q = wrap_dim(dims_b[i], b.dim(), "tensordot");
    EMBER_CHECK(!summed_a[static_cast<size_t>(p)] && !summed_b[static_cast<size_t>(q)],
                "tensordot: a dim repeats in dims_a ", dims_a, " or dims_b ", dims_b);
    summed_a[static_cast<size_t>(p)] = summed_b[static_cast<size_t>(q)] = true;
    const int64_t sp = a.size(p), sq = b.size(q);
    EMBER_CHECK(sp == sq || sp == 1 || sq == 1, "tensordot: contracted dims differ: a's dim ", p,
                " has size ", sp, ", b's dim ", q, " has size ", sq, " (shapes ", a.sizes(), " and ",
                b.sizes(), ")");
    // A size 1 against n: the other side is summed alone first (as libtorch).
    if (sp != sq && sq == 1) x = x.sum({p}, /*keepdim=*/true);
    if (sp != sq && sp == 1) y = y.sum({q}, /*keepdim=*/true);
    da.push_back(p);
    db.push_back(q);
  }
  // x: (free_a, summed) @ y: (summed, free_b)
  DimVector perm_a, perm_b = db, out_shape;
  int64_t rows = 1, cols = 1, inner = 1;
  for (int64_t d = 0; d < a.dim(); ++d)
    if (!summed_a[static_cast<size_t>(d)]) {
      perm_a.push_back(d);
      out_shape.push_back(x.size(d));
      rows *= x.size(d);
    }
  for (int64_t d : da) {
    perm_a.push_back(d);
    inner *= x.size(d);
  }
  for (int64_t d = 0; d < b.dim(); ++d)
    if (!summed_b[static_cast<size_t>(d)]) {
      perm_b.push_back(d);
      out_shape.push_back(y.size(d));
      cols *= y.size(d);
    }
  return mm(x.permute(perm_a).reshape({rows, inner}), y.permute(perm_b).reshape({inner, cols}))
      .view(out_shape);
}

Tensor mv(const Tensor& mat, const Tensor& vec) {
  if (const auto to = autocast::cast_dtype(autocast::kCudaLowerPrecisionOp, {&mat, &vec}))
    return mv(autocast::cast(mat, *to), autocast::cast(vec, *to));
  EMBER_CHECK(mat.dim() == 2 && vec.dim() == 1, "mv: expected a matrix and a vector, got shapes ",
              mat.sizes(), " and ", vec.sizes());
  EMBER_CHECK(mat.size(1) == vec.size(0), "mv: ", mat.sizes(), " @ ", vec.sizes(),
              ": inner sizes differ (", mat.size(1), " vs ", vec.size(0), ")");
  const autocast::Suspend as_called(mat.device().type());  // not autocast on the CPU
  return mm(mat, vec.unsqueeze(1)).squeeze(1);
}

Tensor vdot(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.dim() == 1 && b.dim() == 1, "vdot: expected 1-d tensors, got ", a.sizes(), " and ",
              b.sizes());
  return dot(a, b);
}

Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
               const Scalar& alpha) {
  if (const auto to = autocast::cast_dtype(autocast::kLowerPrecisionOp, {&self, &batch1, &batch2}))
    return baddbmm(autocast::cast(self, *to), autocast::cast(batch1, *to), autocast::cast(batch2, *to), beta, alpha);
  return add_scaled("baddbmm", self, bmm(batch1, batch2), beta, alpha);
}

// Summing the batch of products is one mm: (n, B*k) @ (B*k, m).
Tensor addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
              const Scalar& alpha) {
  if (const auto to = autocast::cast_dtype(autocast::kLowerPrecisionOp, {&self, &batch1, &batch2}))
    return addbmm(autocast::cast(self, *to), autocast::cast(batch1, *to), autocast::cast(batch2, *to), beta, alpha);
  EMBER_CHECK(batch1.dim() == 3 && batch2.dim() == 3, "addbmm: expected 3-d tensors, got ",
              batch1.sizes(), " and ", batch2.sizes());
  EMBER_CHECK(batch1.size(0) == batch2.size(0) && batch1.size(2) == batch2.size(1),
              "addbmm: ", batch1.sizes(), " @ ", batch2.sizes(), ": batch or inner sizes differ");
  const int64_t nb = batch1.size(0), n = batch1.size(1), k = batch1.size(2), m = batch2.size(2);
  const Tensor rows = batch1.permute({1, 0, 2}).reshape({n, nb * k});
  return add_scaled("addbmm", self, mm(rows, batch2.reshape({nb * k, m})), beta, alpha);
}

Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta,
             const Scalar& alpha) {
  if (const auto to = autocast::cast_dtype(autocast::kCudaLowerPrecisionOp, {&self, &mat, &vec}))
    return addmv(autocast::cast(self, *to), autocast::cast(mat, *to), autocast::cast(vec, *to), beta, alpha);
  return add_scaled("addmv", self, mv(mat, vec), beta, alpha);
}

Tensor addr(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta,
            const Scalar& alpha) {
  check_same_kind("addr", vec1, vec2);
  return add_scaled("addr", self, outer(vec1, vec2), beta, alpha);
}

Tensor linalg_cross(const Tensor& a, const Tensor& b, int64_t dim) {
  if (const auto to = autocast::cast_dtype(autocast::kCudaPromoteOp, {&a, &b}))
    return linalg_cross(autocast::cast(a, *to), autocast::cast(b, *to), dim);
  check_same_kind("linalg.cross", a, b);
  EMBER_CHECK(a.dim() == b.dim(), "linalg.cross: inputs must have the same number of dims, got ",
              a.sizes(), " and ", b.sizes());
  const int64_t d = wrap_dim(dim, a.dim(), "linalg.cross");
  EMBER_CHECK(a.size(d) == 3 && b.size(d) == 3, "linalg.cross: dim ", dim,
              " must have size 3 in both inputs, got shapes ", a.sizes(), " and ", b.sizes());
  broadcast_shapes(a.sizes(), b.sizes(), "linalg.cross");  // checks the other dims
  auto ai = [&](int64_t i) { return a.select(d, i); };
  auto bi = [&](int64_t i) { return b.select(d, i); };
  return stack(
      {ai(1) * bi(2) - ai(2) * bi(1), ai(2) * bi(0) - ai(0) * bi(2), ai(0) * bi(1) - ai(1) * bi(0)},
      d);
}

Tensor cross(const Tensor& a, const Tensor& b, std::optional<int64_t> dim) {
  if (dim) return linalg_cross(a, b, *dim);
  static std::once_flag warned;
  std::call_once(warned, [] {
    std::cerr
        << "ember warning: cross without dim is deprecated (as in libtorch 1.13); it uses the "
           "first dim of size 3, which may change: pass dim, or use linalg_cross\n";
  });
  for (int64_t d = 0; d < a.dim(); ++d)
    if (a.size(d) == 3) return linalg_cross(a, b, d);
  EMBER_ERROR("cross: no dim of size 3 in input of shape ", a.sizes());
}

// a viewed as (a0, 1, a1, 1, ...) times b as (1, b0, 1, b1, ...), then the pairs merged.
Tensor kron(const Tensor& a, const Tensor& b) {
  const int64_t nd = std::max(a.dim(), b.dim());
  DimVector sa, sb, out_shape;
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t pa = i - (nd - a.dim()), pb = i - (nd - b.dim());
    const int64_t x = pa >= 0 ? a.size(pa) : 1, y = pb >= 0 ? b.size(pb) : 1;
    sa.push_back(x);
    sa.push_back(1);
    sb.push_back(1);
    sb.push_back(y);
    out_shape.push_back(x * y);
  }
  return (a.reshape(sa) * b.reshape(sb)).reshape(out_shape);
}

Tensor Tensor::dot(const Tensor& other) const { return ember::dot(*this, other); }
Tensor Tensor::vdot(const Tensor& other) const { return ember::vdot(*this, other); }
Tensor Tensor::mv(const Tensor& vec) const { return ember::mv(*this, vec); }
Tensor Tensor::outer(const Tensor& vec2) const { return ember::outer(*this, vec2); }
Tensor Tensor::baddbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                       const Scalar& alpha) const {
  return ember::baddbmm(*this, batch1, batch2, beta, alpha);
}
Tensor Tensor::addbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                      const Scalar& alpha) const {
  return ember::addbmm(*this, batch1, batch2, beta, alpha);
}
Tensor Tensor::addmv(const Tensor& mat, const Tensor& vec, const Scalar& beta,
                     const Scalar& alpha) const {
  return ember::addmv(*this, mat, vec, beta, alpha);
}
Tensor Tensor::addr(const Tensor& vec1, const Tensor& vec2, const Scalar& beta,
                    const Scalar& alpha) const {
  return ember::addr(*this, vec1, vec2, beta, alpha);
}
Tensor Tensor::cross(const Tensor& other, std::optional<int64_t> dim) const {
  return ember::cross(*this, other, dim);
}
Tensor Tensor::kron(const Tensor& other) const { return ember::kron(*this, other); }

}  // namespace ember
