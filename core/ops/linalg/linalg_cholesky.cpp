// cholesky (the CPU kernel in kernels/cpu/linalg_cholesky.cpp, with its own
// derivative), and cholesky_solve / cholesky_inverse composed of triangular
// solves, which differentiate themselves.
#include "ember/core/autocast.h"
#include "ember/autograd/function.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/linalg/linalg_helpers.h"
#include "ember/core/ops/linalg/linalg_solve.h"
#include "ember/core/ops/linalg/matmul.h"
#include "ember/core/ops/shape/shape_ops.h"

namespace ember {
namespace {

Tensor mT(const Tensor& x) { return x.transpose(-2, -1); }

// L; *info_out (if given) gets the info codes, and a matrix that is not
// positive-definite raises only when `check`.
Tensor cholesky_lower(const char* op, const Tensor& A, bool check = true,
                      Tensor* info_out = nullptr) {
  detail::check_matrix(op, "A", A, /*square=*/true);
  Tensor out;
  {
    NoGradGuard no_grad;
    Tensor l = detail::batch_copy(A, detail::batch_dims(A));
    Tensor info = empty({l.size(0)}, TensorOptions().dtype(kLong));
    detail::cholesky_kernel(l, info);
    if (check)
      detail::raise_on_info(op, info, A.dim() > 2, [](int64_t order) {
        return detail::str_cat("the input is not positive-definite (its leading minor of order ",
                               order, " is not positive-definite)");
      });
    out = l.view(A.sizes());
    if (info_out) *info_out = info.view(detail::batch_dims(A)).to(A.device());
  }
  if (autograd::needs_grad(A)) {
    // derivative of linalg_cholesky, linalg_cholesky_ex, cholesky: d/dA = sym(L⁻ᵀ·Phi(Lᵀ·g)·L⁻¹), Phi = lower triangle, diagonal halved
    // A = L L^T gives L^-1 dA L^-T = X + X^T with X = L^-1 dL lower
    // triangular, so dL = L Phi(L^-1 dA L^-T), Phi = the lower triangle with
    // the diagonal halved, and gA = L^-T Phi(L^T g) L^-1, made symmetric as
    // libtorch's (A is taken as symmetric).
    auto node = autograd::make_node("LinalgCholeskyBackward", {A}, [](autograd::Node& n, const tensor_list& g) {
      const Tensor L = n.saved(0);
      const Tensor m = matmul(mT(L), g[0]);
      const Tensor phi = m.tril(-1) + 0.5 * m.diagonal(0, -2, -1).diag_embed();
      const Tensor left = linalg_solve_triangular(mT(L), phi, /*upper=*/true);
      const Tensor ga = linalg_solve_triangular(L, left, /*upper=*/false, /*left=*/false);
      return tensor_list{0.5 * (ga + mT(ga))};
    });
    autograd::set_history(out, node);
    node->save(out, /*is_output=*/true);
  }
  return out;
}

}  // namespace

Tensor linalg_cholesky(const Tensor& A, bool upper) {
  if (const auto to = autocast::cast_dtype(autocast::kCpuFloat32Op, {&A})) {
    const autocast::Suspend as_listed(DeviceType::CPU);  // its inner ops as called
    return linalg_cholesky(autocast::cast(A, *to), upper);
  }
  const Tensor L = cholesky_lower("linalg.cholesky", A);
  return upper ? mT(L).contiguous() : L;
}

std::tuple<Tensor, Tensor> linalg_cholesky_ex(const Tensor& A, bool upper, bool check_errors) {
  if (const auto to = autocast::cast_dtype(autocast::kCpuFloat32Op, {&A})) {
    const autocast::Suspend as_listed(DeviceType::CPU);  // its inner ops as called
    return linalg_cholesky_ex(autocast::cast(A, *to), upper, check_errors);
  }
  Tensor info;
  const Tensor L = cholesky_lower("linalg.cholesky_ex", A, check_errors, &info);
  return {upper ? mT(L).contiguous() : L, info};
}

Tensor cholesky(const Tensor& A, bool upper) {
  if (const auto to = autocast::cast_dtype(autocast::kCpuFloat32Op, {&A})) {
    const autocast::Suspend as_listed(DeviceType::CPU);  // its inner ops as called
    return cholesky(autocast::cast(A, *to), upper);
  }
  const Tensor L = cholesky_lower("cholesky", A);
  return upper ? mT(L).contiguous() : L;
}

Tensor cholesky_solve(const Tensor& B, const Tensor& L, bool upper) {
  if (const auto to = autocast::cast_dtype(autocast::kCpuFloat32Op, {&B, &L})) {
    const autocast::Suspend as_listed(DeviceType::CPU);  // its inner ops as called
    return cholesky_solve(autocast::cast(B, *to), autocast::cast(L, *to), upper);
  }
  const char* op = "cholesky_solve";
  detail::check_matrix(op, "input2", L, /*square=*/true);
  detail::check_same_kind(op, L, B);
  detail::check_matrix(op, "self", B, /*square=*/false);
  // A = L L^T (or U^T U): solve with the lower factor, then its transpose.
  const Tensor lower = upper ? mT(L) : L;
  const Tensor y = linalg_solve_triangular(lower, B, /*upper=*/false);
  return linalg_solve_triangular(mT(lower), y, /*upper=*/true);
}

Tensor cholesky_inverse(const Tensor& L, bool upper) {
  if (const auto to = autocast::cast_dtype(autocast::kCpuFloat32Op, {&L})) {
    const autocast::Suspend as_listed(DeviceType::CPU);  // its inner ops as called
    return cholesky_inverse(autocast::cast(L, *to), upper);
  }
  detail::check_matrix("cholesky_inverse", "input", L, /*square=*/true);
  const Tensor id = eye(L.size(-1), L.options());
  // (L L^T)^-1 = L^-T L^-1; (U^T U)^-1 = U^-1 U^-T.
  const Tensor inv = linalg_solve_triangular(L, id, /*upper=*/upper);
  return upper ? matmul(inv, mT(inv)) : matmul(mT(inv), inv);
}

Tensor Tensor::cholesky(bool upper) const { return ember::cholesky(*this, upper); }
Tensor Tensor::cholesky_solve(const Tensor& input2, bool upper) const {
  return ember::cholesky_solve(*this, input2, upper);
}
Tensor Tensor::cholesky_inverse(bool upper) const { return ember::cholesky_inverse(*this, upper); }

}  // namespace ember
