#pragma once
// Dense solvers and factorizations of libtorch's linalg namespace and their
// older torch:: names: inverse, solve, determinants, Cholesky, triangular
// solves and LU. Every op takes float32 or float64 matrices in the last two
// dims, batched over the leading dims, on the CPU (Eigen) or CUDA (cuSOLVER,
// cuBLAS). A singular matrix (inv, solve, lu_factor) or one that is not
// positive-definite (cholesky) is an Error naming the op and the batch
// element (on CUDA this waits for the device).
#include <tuple>

#include "ember/core/tensor.h"

namespace ember {

// --- inverse, solve, determinants (ops/linalg_solve.cpp) ---
Tensor linalg_inv(const Tensor& A);
// The _ex forms return info (batch shape, int64: libtorch's is int32): 0, or
// lu_factor's / cholesky's code for that matrix; they raise for it only when
// check_errors.
std::tuple<Tensor, Tensor> linalg_inv_ex(const Tensor& A, bool check_errors = false);
Tensor inverse(const Tensor& A);
// X with A X = B (left) or X A = B (!left). B is a batch of vectors when it is
// 1-d or has A's shape without its last dim; batch dims broadcast.
Tensor linalg_solve(const Tensor& A, const Tensor& B, bool left = true);
// The gradients of det, slogdet and logdet use A's inverse: A must be invertible.
Tensor linalg_det(const Tensor& A);
Tensor det(const Tensor& A);
std::tuple<Tensor, Tensor> linalg_slogdet(const Tensor& A);  // (sign, log|det|)
std::tuple<Tensor, Tensor> slogdet(const Tensor& A);
Tensor logdet(const Tensor& A);  // log(det): NaN for a negative det, -inf for 0

// --- Cholesky (ops/linalg_cholesky.cpp) ---
// L lower triangular with A = L L^T (or U = L^T when upper); reads A's lower triangle.
Tensor linalg_cholesky(const Tensor& A, bool upper = false);
std::tuple<Tensor, Tensor> linalg_cholesky_ex(const Tensor& A, bool upper = false,
                                              bool check_errors = false);  // (L, info)
Tensor cholesky(const Tensor& A, bool upper = false);
// X with A X = B, A = L L^T given L (or U^T U given U when upper).
Tensor cholesky_solve(const Tensor& B, const Tensor& L, bool upper = false);
Tensor cholesky_inverse(const Tensor& L, bool upper = false);  // (L L^T)^-1

// --- triangular solves (ops/linalg_triangular.cpp) ---
// X with A X = B (left) or X A = B, A the upper or lower triangle of its
// argument (diagonal of ones when unitriangular). B has at least 2 dims.
Tensor linalg_solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left = true,
                               bool unitriangular = false);
// The old form: (X with op(A) X = b, a copy of A), op(A) = A^T when transpose.
std::tuple<Tensor, Tensor> triangular_solve(const Tensor& b, const Tensor& A, bool upper = true,
                                            bool transpose = false, bool unitriangular = false);

// --- LU (ops/linalg_lu.cpp) ---
// (LU, pivots): A = P L U packed as LAPACK's getrf, pivots int64 and 1-based.
// pivot = false is not supported (libtorch has it on CUDA only).
std::tuple<Tensor, Tensor> linalg_lu_factor(const Tensor& A, bool pivot = true);
std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex(const Tensor& A, bool pivot = true,
                                                       bool check_errors = false);  // + info
// (P, L, U) unpacked from lu_factor's results.
std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU, const Tensor& pivots,
                                             bool unpack_data = true, bool unpack_pivots = true);
std::tuple<Tensor, Tensor, Tensor> linalg_lu(const Tensor& A, bool pivot = true);
// X with A X = B (left) or X A = B, or with A^T in place of A when adjoint,
// A given by lu_factor's (LU, pivots).
Tensor linalg_lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left = true,
                       bool adjoint = false);
Tensor lu_solve(const Tensor& b, const Tensor& LU_data, const Tensor& LU_pivots);

// libtorch's torch::linalg:: spellings.
namespace linalg {
inline Tensor inv(const Tensor& A) { return linalg_inv(A); }
inline std::tuple<Tensor, Tensor> inv_ex(const Tensor& A, bool check_errors = false) {
  return linalg_inv_ex(A, check_errors);
}
inline std::tuple<Tensor, Tensor> cholesky_ex(const Tensor& A, bool upper = false,
                                              bool check_errors = false) {
  return linalg_cholesky_ex(A, upper, check_errors);
}
inline std::tuple<Tensor, Tensor, Tensor> lu_factor_ex(const Tensor& A, bool pivot = true,
                                                       bool check_errors = false) {
  return linalg_lu_factor_ex(A, pivot, check_errors);
}
inline Tensor solve(const Tensor& A, const Tensor& B, bool left = true) {
  return linalg_solve(A, B, left);
}
inline Tensor det(const Tensor& A) { return linalg_det(A); }
inline std::tuple<Tensor, Tensor> slogdet(const Tensor& A) { return linalg_slogdet(A); }
inline Tensor cholesky(const Tensor& A) { return linalg_cholesky(A); }
inline Tensor solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left = true,
                               bool unitriangular = false) {
  return linalg_solve_triangular(A, B, upper, left, unitriangular);
}
inline std::tuple<Tensor, Tensor> lu_factor(const Tensor& A, bool pivot = true) {
  return linalg_lu_factor(A, pivot);
}
inline std::tuple<Tensor, Tensor, Tensor> lu(const Tensor& A, bool pivot = true) {
  return linalg_lu(A, pivot);
}
inline Tensor lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left = true,
                       bool adjoint = false) {
  return linalg_lu_solve(LU, pivots, B, left, adjoint);
}
}  // namespace linalg

}  // namespace ember
