// LU: lu_factor is the CPU kernel (kernels/cpu/linalg_lu.cpp) with its own
// derivative; lu_unpack, linalg_lu and lu_solve are composed of it, a
// permutation matrix and triangular solves, which differentiate themselves.
#include <algorithm>
#include <utility>
#include <vector>

#include "ember/autograd/function.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/linalg/linalg_helpers.h"
#include "ember/core/ops/linalg/linalg_solve.h"
#include "ember/core/ops/linalg/matmul.h"
#include "ember/core/ops/shape/shape_ops.h"

namespace ember {
namespace {

using detail::batch_dims;
using detail::with_matrix;

Tensor mT(const Tensor& x) { return x.transpose(-2, -1); }

// P (*, m, m) with A = P L U from LAPACK's 1-based interchanges (*, k), with
// `options`' dtype and device (built on the host); records nothing.
Tensor permutation_matrix(const char* op, const Tensor& pivots, int64_t m,
                          const TensorOptions& options) {
  EMBER_CHECK(pivots.scalar_type() == kLong && pivots.dim() >= 1, op,
              ": pivots must be an int64 tensor of at least 1 dim, got ", pivots.toString());
  EMBER_CHECK(pivots.device() == options.device(), op, ": pivots on ", pivots.device(),
              " and LU on ", options.device(), " must be on one device");
  NoGradGuard no_grad;
  const Tensor piv = pivots.cpu().contiguous();
  const int64_t k = piv.size(-1), count = piv.numel() / std::max<int64_t>(k, 1);
  const DimVector shape(piv.sizes().slice(0, static_cast<size_t>(piv.dim() - 1)));
  Tensor P = zeros({count, m, m}, options.device(kCPU));
  const int64_t* p = piv.data_ptr<int64_t>();
  std::vector<int64_t> perm(static_cast<size_t>(m));  // row i of P^T A is A's row perm[i]
  dispatch_floating(P.scalar_type(), op, [&]<typename T>() {
    T* out = P.data_ptr<T>();
    for (int64_t b = 0; b < count; ++b) {
      for (int64_t i = 0; i < m; ++i) perm[i] = i;
      for (int64_t i = 0; i < k; ++i) {
        const int64_t j = p[b * k + i];
        EMBER_CHECK(j >= i + 1 && j <= m, op, ": pivots[", b, ", ", i, "] = ", j,
                    " is out of range (expected ", i + 1, " to ", m, ")");
        std::swap(perm[i], perm[j - 1]);
      }
      for (int64_t i = 0; i < m; ++i) out[b * m * m + perm[i] * m + i] = T(1);
    }
  });
  return P.view(with_matrix(shape, m, m)).to(options.device());
}

// lu_factor, raising for a singular matrix when `check`; *info_out (if
// given) gets the info codes.
std::tuple<Tensor, Tensor> lu_factor_named(const char* op, const Tensor& A, bool pivot, bool check,
                                           Tensor* info_out = nullptr) {
  detail::check_matrix(op, "A", A, /*square=*/false);
  EMBER_CHECK(pivot, op, ": LU without pivoting is not implemented on the CPU");
  const DimVector batch = batch_dims(A);
  const int64_t m = A.size(-2), n = A.size(-1);
  const detail::LuFactors f = detail::lu_factors(A, batch);
  if (check)
    detail::raise_on_info(op, f.info, !batch.empty(), [](int64_t i) {
      return detail::str_cat("U[", i, ", ", i, "] is zero: the matrix is singular (linalg_lu factors it anyway)");
    });
  DimVector piv_shape = batch;
  piv_shape.push_back(std::min(m, n));
  Tensor lu = f.lu.view(A.sizes()), pivots = f.pivots.view(piv_shape);
  if (info_out) *info_out = f.info.view(batch).to(A.device());
  if (autograd::needs_grad(A)) {
    EMBER_CHECK(m == n, op, ": the derivative is implemented for square matrices only, got shape ",
                A.sizes());
    // derivative of linalg_lu_factor, linalg_lu_factor_ex, linalg_lu: d/dA = P·L⁻ᵀ·(tril(Lᵀ·gL, -1) + triu(gU·Uᵀ))·U⁻ᵀ
    // A = P L U gives L^-1 P^T dA U^-1 = L^-1 dL + dU U^-1, strictly lower
    // plus upper, so gA = P L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T with
    // gL, gU the parts of g below and on/above the diagonal.
    auto node = autograd::make_node("LinalgLuFactorBackward", {A}, [](autograd::Node& nd, const tensor_list& g) {
      const Tensor LU = nd.saved(0), piv = nd.saved(1);
      const Tensor L = LU.tril(-1) + eye(LU.size(-1), LU.options()), U = LU.triu();
      const Tensor phi = matmul(mT(L), g[0].tril(-1)).tril(-1) + matmul(g[0].triu(), mT(U)).triu();
      const Tensor y = linalg_solve_triangular(mT(LU), phi, /*upper=*/true, /*left=*/true,
                                               /*unitriangular=*/true);
      const Tensor z = linalg_solve_triangular(mT(LU), y, /*upper=*/false, /*left=*/false);
      return tensor_list{matmul(permutation_matrix("linalg.lu_factor (backward)", piv, LU.size(-1), LU.options()), z)};
    });
    autograd::set_history(lu, node);
    node->save(lu, /*is_output=*/true);
    node->save(pivots);
  }
  return {lu, pivots};
}

}  // namespace

std::tuple<Tensor, Tensor> linalg_lu_factor(const Tensor& A, bool pivot) {
  return lu_factor_named("linalg.lu_factor", A, pivot, /*check=*/true);
}

std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex(const Tensor& A, bool pivot,
                                                       bool check_errors) {
  Tensor info;
  auto [lu, pivots] = lu_factor_named("linalg.lu_factor_ex", A, pivot, check_errors, &info);
  return {lu, pivots, info};
}

std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU, const Tensor& pivots,
                                             bool unpack_data, bool unpack_pivots) {
  const char* op = "lu_unpack";
  detail::check_matrix(op, "LU_data", LU, /*square=*/false);
  const int64_t m = LU.size(-2), n = LU.size(-1), k = std::min(m, n);
  EMBER_CHECK(!unpack_pivots || (pivots.dim() >= 1 && pivots.size(-1) == k), op,
              ": pivots of shape ", pivots.sizes(), " do not match LU_data of shape ", LU.sizes());
  Tensor P, L, U;
  if (unpack_pivots) P = permutation_matrix(op, pivots, m, LU.options());
  else P = empty({0}, LU.options());
  if (unpack_data) {
    L = LU.narrow(-1, 0, k).tril(-1) + eye(m, LU.options()).narrow(1, 0, k);
    U = LU.narrow(-2, 0, k).triu();
  } else {
    L = empty({0}, LU.options());
    U = empty({0}, LU.options());
  }
  return {P, L, U};
}

std::tuple<Tensor, Tensor, Tensor> linalg_lu(const Tensor& A, bool pivot) {
  auto [lu, pivots] = lu_factor_named("linalg.lu", A, pivot, /*check=*/false);
  return lu_unpack(lu, pivots);
}

Tensor linalg_lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left,
                       bool adjoint) {
  const char* op = "linalg.lu_solve";
  detail::check_matrix(op, "LU", LU, /*square=*/true);
  detail::check_same_kind(op, LU, B);
  detail::check_matrix(op, "B", B, /*square=*/false);
  const int64_t n = LU.size(-1);
  EMBER_CHECK(pivots.dim() == LU.dim() - 1 && pivots.size(-1) == n, op, ": pivots of shape ",
              pivots.sizes(), " do not match LU of shape ", LU.sizes());
  detail::check_rhs(op, LU, B, left);
  // X A = B is A^T X^T = B^T (and X A^T = B is A X^T = B^T).
  if (!left) return mT(linalg_lu_solve(LU, pivots, mT(B), /*left=*/true, !adjoint));
  const Tensor P = permutation_matrix(op, pivots, n, LU.options());
  if (!adjoint) {  // A = P L U: X = U^-1 L^-1 P^T B
    const Tensor y = linalg_solve_triangular(LU, matmul(mT(P), B), /*upper=*/false, /*left=*/true,
                                             /*unitriangular=*/true);
    return linalg_solve_triangular(LU, y, /*upper=*/true);
  }
  // A^T = U^T L^T P^T: X = P L^-T U^-T B
  const Tensor y = linalg_solve_triangular(mT(LU), B, /*upper=*/false);
  return matmul(P, linalg_solve_triangular(mT(LU), y, /*upper=*/true, /*left=*/true,
                                           /*unitriangular=*/true));
}

Tensor lu_solve(const Tensor& b, const Tensor& LU_data, const Tensor& LU_pivots) {
  return linalg_lu_solve(LU_data, LU_pivots, b);
}

Tensor Tensor::lu_solve(const Tensor& LU_data, const Tensor& LU_pivots) const {
  return ember::lu_solve(*this, LU_data, LU_pivots);
}

}  // namespace ember
