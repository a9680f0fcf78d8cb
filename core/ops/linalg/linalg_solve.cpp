// inv, solve, det, slogdet, logdet: one LU factorization each (the CPU kernel
// in kernels/cpu/linalg_lu.cpp), derivatives written with these same ops so
// that they differentiate again.
#include "ember/core/autocast.h"
#include "ember/core/ops/linalg/linalg_solve.h"

#include <cmath>

#include "ember/autograd/function.h"
#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/linalg/linalg_helpers.h"
#include "ember/core/ops/linalg/matmul.h"
#include "ember/core/ops/reduction/reduce.h"
#include "ember/core/ops/elementwise/unary.h"

namespace ember {
namespace {

using detail::batch_dims;
using detail::with_matrix;

Tensor mT(const Tensor& x) { return x.transpose(-2, -1); }

// lu_factors of A, raising when a matrix is singular (unless !check).
detail::LuFactors invertible_lu(const char* op, const Tensor& A, IntArrayRef batch,
                                bool check = true) {
  detail::LuFactors f = detail::lu_factors(A, batch);
  if (check)
    detail::raise_on_info(op, f.info, !batch.empty(), [](int64_t i) {
      return detail::str_cat("the matrix is singular (diagonal element ", i,
                             " of its LU factor U is zero)");
    });
  return f;
}

// A^-1; *info (if given) gets lu_factor's info codes, and a singular matrix
// raises only when `check`.
Tensor inv_named(const char* op, const Tensor& A, bool check = true, Tensor* info = nullptr) {
  detail::check_matrix(op, "A", A, /*square=*/true);
  const int64_t n = A.size(-1);
  const DimVector batch = batch_dims(A);
  Tensor out;
  {
    NoGradGuard no_grad;
    const detail::LuFactors f = invertible_lu(op, A, batch, check);
    Tensor x = eye(n, A.options()).expand({f.lu.size(0), n, n}).contiguous();
    detail::lu_solve_kernel(f.lu, f.pivots, x, /*transpose=*/false);
    out = x.view(A.sizes());
    if (info) *info = f.info.view(batch).to(A.device());
  }
  if (autograd::needs_grad(A)) {
    // derivative of linalg_inv, linalg_inv_ex, inverse: d/dA = -Xᵀ·g·Xᵀ, X = A⁻¹ (from d(A⁻¹) = -A⁻¹·dA·A⁻¹)
    auto node = autograd::make_node("LinalgInvBackward", {A}, [](autograd::Node& n, const tensor_list& g) {
      const Tensor xt = mT(n.saved(0));
      return tensor_list{-matmul(matmul(xt, g[0]), xt)};
    });
    autograd::set_history(out, node);
    node->save(out, /*is_output=*/true);
  }
  return out;
}

// X with A X = B, B: (*, n, k); batch dims broadcast.
Tensor solve_left(const char* op, const Tensor& A, const Tensor& B) {
  const int64_t n = A.size(-1), k = B.size(-1);
  const DimVector batch = broadcast_shapes(batch_dims(A), batch_dims(B), op);
  Tensor out;
  {
    NoGradGuard no_grad;
    const detail::LuFactors f = invertible_lu(op, A, batch);
    Tensor x = detail::batch_copy(B, batch);
    detail::lu_solve_kernel(f.lu, f.pivots, x, /*transpose=*/false);
    out = x.view(with_matrix(batch, n, k));
  }
  if (autograd::needs_grad(A, B)) {
    // derivative of linalg_solve: d/dB = A⁻ᵀ·g, d/dA = -(d/dB)·Xᵀ (from dX = A⁻¹(dB - dA·X))
    auto node = autograd::make_node("LinalgSolveBackward", {A, B}, [op](autograd::Node& n, const tensor_list& g) {
      const Tensor gb = solve_left(op, mT(n.saved(0)), g[0]);
      return tensor_list{n.needs_input_grad(0) ? -matmul(gb, mT(n.saved(1))) : Tensor(), gb};
    });
    node->save(A);
    autograd::set_history(out, node);
    node->save(out, /*is_output=*/true);
  }
  return out;
}

// A's determinant as (sign of the row interchanges, U's diagonal), both
// without history: (B), (B, n).
std::tuple<Tensor, Tensor> det_parts(const Tensor& A) {
  NoGradGuard no_grad;
  const detail::LuFactors f = detail::lu_factors(A, batch_dims(A));
  Tensor parity = empty({f.pivots.size(0)}, A.options().device(kCPU));
  const Tensor pivots = f.pivots.cpu();
  const int64_t* p = pivots.data_ptr<int64_t>();
  const int64_t n = f.pivots.size(1);
  dispatch_floating(A.scalar_type(), "det", [&]<typename T>() {
    T* s = parity.data_ptr<T>();
    for (int64_t b = 0; b < parity.numel(); ++b) {
      bool odd = false;
      for (int64_t j = 0; j < n; ++j) odd ^= p[b * n + j] != j + 1;
      s[b] = odd ? T(-1) : T(1);
    }
  });
  return {parity.to(A.device()), f.lu.diagonal(0, -2, -1)};
}

// The gradient of log|det A| (or of det A over det A): A^-T. It needs A invertible.
Tensor inverse_transpose(const char* op, const Tensor& A) { return mT(inv_named(op, A)); }

Tensor unsqueeze2(const Tensor& g) { return g.unsqueeze(-1).unsqueeze(-1); }

}  // namespace

Tensor linalg_inv(const Tensor& A) {
  if (const auto to = autocast::cast_dtype(autocast::kCpuFloat32Op, {&A})) {
    const autocast::Suspend as_listed(DeviceType::CPU);  // its inner ops as called
    return linalg_inv(autocast::cast(A, *to));
  }
  return inv_named("linalg.inv", A);
}
Tensor inverse(const Tensor& A) {
  if (const auto to = autocast::cast_dtype(autocast::kCpuFloat32Op, {&A})) {
    const autocast::Suspend as_listed(DeviceType::CPU);  // its inner ops as called
    return inverse(autocast::cast(A, *to));
  }
  return inv_named("inverse", A);
}

std::tuple<Tensor, Tensor> linalg_inv_ex(const Tensor& A, bool check_errors) {
  if (const auto to = autocast::cast_dtype(autocast::kCpuFloat32Op, {&A})) {
    const autocast::Suspend as_listed(DeviceType::CPU);  // its inner ops as called
    return linalg_inv_ex(autocast::cast(A, *to), check_errors);
  }
  Tensor info;
  Tensor inv = inv_named("linalg.inv_ex", A, check_errors, &info);
  return {inv, info};
}

Tensor linalg_solve(const Tensor& A, const Tensor& B, bool left) {
  if (const auto to = autocast::cast_dtype(autocast::kCpuFloat32Op, {&A, &B})) {
    const autocast::Suspend as_listed(DeviceType::CPU);  // its inner ops as called
    return linalg_solve(autocast::cast(A, *to), autocast::cast(B, *to), left);
  }
  const char* op = "linalg.solve";
  detail::check_matrix(op, "A", A, /*square=*/true);
  detail::check_same_kind(op, A, B);
  EMBER_CHECK(B.dim() >= 1, op, ": B must have at least 1 dim, got shape ", B.sizes());
  // B is a batch of vectors when it is 1-d or has exactly A's shape without the last dim.
  const IntArrayRef a_rows = A.sizes().slice(0, static_cast<size_t>(A.dim() - 1));
  const bool vector = B.dim() == 1 || (B.dim() == A.dim() - 1 && B.sizes() == a_rows);
  if (vector)
    EMBER_CHECK(B.size(-1) == A.size(-1), op, ": A of shape ", A.sizes(), " and B of shape ",
                B.sizes(), " do not match (B is a vector of size ", B.size(-1), ", A has ",
                A.size(-1), " columns)");
  else
    detail::check_rhs(op, A, B, left);
  if (left) {
    if (vector) return solve_left(op, A, B.unsqueeze(-1)).squeeze(-1);
    return solve_left(op, A, B);
  }
  // X A = B is A^T X^T = B^T.
  if (vector) return solve_left(op, mT(A), B.unsqueeze(-1)).squeeze(-1);
  return mT(solve_left(op, mT(A), mT(B)));
}

Tensor linalg_det(const Tensor& A) {
  detail::check_matrix("linalg.det", "A", A, /*square=*/true);
  auto [parity, diag] = det_parts(A);
  Tensor out;
  {
    NoGradGuard no_grad;
    out = (parity * diag.prod(-1)).view(batch_dims(A));
  }
  if (autograd::needs_grad(A)) {
    // derivative: d/dA = g·det(A)·A⁻ᵀ (from d det = det·tr(A⁻¹dA))
    auto node = autograd::make_node("LinalgDetBackward", {A}, [](autograd::Node& n, const tensor_list& g) {
      return tensor_list{unsqueeze2(g[0] * n.saved(1)) * inverse_transpose("linalg.det (backward)", n.saved(0))};
    });
    node->save(A);
    autograd::set_history(out, node);
    node->save(out, /*is_output=*/true);
  }
  return out;
}

Tensor det(const Tensor& A) { return linalg_det(A); }

std::tuple<Tensor, Tensor> linalg_slogdet(const Tensor& A) {
  detail::check_matrix("linalg.slogdet", "A", A, /*square=*/true);
  auto [parity, diag] = det_parts(A);
  Tensor sign, logabs;
  {
    NoGradGuard no_grad;
    sign = (parity * diag.sign().prod(-1)).view(batch_dims(A));
    logabs = diag.abs().log().sum({-1}).view(batch_dims(A));
  }
  if (autograd::needs_grad(A)) {
    // derivative: d/dA = g·A⁻ᵀ for logabsdet (from d log|det A| = tr(A⁻¹dA)); sign has no gradient
    auto node = autograd::make_node("LinalgSlogdetBackward", {A}, [](autograd::Node& n, const tensor_list& g) {
      return tensor_list{unsqueeze2(g[0]) * inverse_transpose("linalg.slogdet (backward)", n.saved(0))};
    });
    node->save(A);
    autograd::set_history(logabs, node);
  }
  return {sign, logabs};
}

std::tuple<Tensor, Tensor> slogdet(const Tensor& A) { return linalg_slogdet(A); }

Tensor logdet(const Tensor& A) {
  auto [sign, logabs] = linalg_slogdet(A);
  return logabs + sign.log();  // + log(-1) = NaN, log(0) = -inf (where logabs is -inf too)
}

Tensor Tensor::inverse() const { return ember::inverse(*this); }
Tensor Tensor::det() const { return ember::det(*this); }
std::tuple<Tensor, Tensor> Tensor::slogdet() const { return ember::slogdet(*this); }
Tensor Tensor::logdet() const { return ember::logdet(*this); }

}  // namespace ember
