#pragma once
// Spectral and orthogonal decompositions, batched over leading dims, float32
// and float64, CPU only so far: eigh/eigvalsh, svd/svdvals (and the old svd),
// qr (and the old qr); and what is built on them: pinv, matrix_rank, cond,
// matrix_power, lstsq. The signs of eigenvectors, singular vectors and of QR's
// factors are fixed as kernels/cpu/linalg_spectral.h's Note [Decomposition
// signs] says. Gradients assume distinct eigenvalues (distinct, nonzero
// singular values), as libtorch's.
#include <optional>
#include <string_view>
#include <tuple>

#include "ember/core/tensor.h"

namespace ember {

// A symmetric (batch of) matrix, read from its lower ("L") or upper ("U")
// triangle: eigenvalues in ascending order, and the eigenvectors as columns.
// The gradient is that of a function of symmetric matrices (as libtorch's).
std::tuple<Tensor, Tensor> linalg_eigh(const Tensor& A, std::string_view UPLO = "L");
Tensor linalg_eigvalsh(const Tensor& A, std::string_view UPLO = "L");
// A = U diag(S) Vh with S descending; full_matrices gives square U (m, m) and
// Vh (n, n), otherwise U (m, k) and Vh (k, n), k = min(m, n).
std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& A, bool full_matrices = true);
Tensor linalg_svdvals(const Tensor& A);
// The old API: (U, S, V) with V = Vh^T; some = reduced. Without compute_uv, U
// and V are zeros of shapes (m, m) and (n, n).
std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& A, bool some = true, bool compute_uv = true);
// A = Q R with R upper triangular (diagonal >= 0). mode "reduced": Q (m, k),
// R (k, n); "complete": Q (m, m), R (m, n); "r": an empty Q and R (k, n).
// The gradient needs mode "reduced" (or "complete" with m <= n) and m >= n.
std::tuple<Tensor, Tensor> linalg_qr(const Tensor& A, std::string_view mode = "reduced");
std::tuple<Tensor, Tensor> qr(const Tensor& A, bool some = true);  // some = "reduced"

// The pseudo-inverse from the SVD (hermitian: from eigh), dropping singular
// values (|eigenvalues|) <= max(atol, rtol * largest). Without either, rtol is
// eps(dtype) * max(m, n); atol alone means rtol = 0.
Tensor linalg_pinv(const Tensor& A, std::optional<double> atol = std::nullopt,
                   std::optional<double> rtol = std::nullopt, bool hermitian = false);
Tensor linalg_pinv(const Tensor& A, double rcond, bool hermitian = false);  // rtol = rcond
Tensor pinverse(const Tensor& A, double rcond = 1e-15);
// The number of singular values (|eigenvalues| when hermitian) above the
// tolerance linalg_pinv uses, as int64.
Tensor linalg_matrix_rank(const Tensor& A, std::optional<double> atol = std::nullopt,
                          std::optional<double> rtol = std::nullopt, bool hermitian = false);
Tensor linalg_matrix_rank(const Tensor& A, double tol, bool hermitian = false);  // atol = tol
// A^n by repeated squaring; a negative n powers A's inverse.
Tensor linalg_matrix_power(const Tensor& A, int64_t n);
// The condition number: for p = 2 (the default) s_max / s_min, p = -2 s_min /
// s_max; for p = 1, -1, inf, -inf, "fro" or "nuc" ||A|| ||A^-1|| in that
// matrix norm (A square; inf where A is singular).
Tensor linalg_cond(const Tensor& A, std::optional<Scalar> p = std::nullopt);
Tensor linalg_cond(const Tensor& A, std::string_view p);
inline Tensor linalg_cond(const Tensor& A, const char* p) {
  return linalg_cond(A, std::string_view(p));
}
// The least-squares solution X of A X = B with the smallest norm, from the
// SVD of A (singular values <= rcond * largest dropped; rcond defaults to
// eps(dtype) * max(m, n)). B: (*, m, k), or (*, m) for one right-hand side;
// batch dims broadcast. Returns (solution (*, n, k), residuals: the squared
// column norms of A X - B when m > n and every A has full rank, else empty;
// rank (int64); singular values). Every driver computes this (libtorch's
// gelsd); driver only has to be one of libtorch's names.
std::tuple<Tensor, Tensor, Tensor, Tensor> linalg_lstsq(
    const Tensor& A, const Tensor& B, std::optional<double> rcond = std::nullopt,
    std::optional<std::string_view> driver = std::nullopt);

// libtorch's torch::linalg:: names.
namespace linalg {
inline std::tuple<Tensor, Tensor> eigh(const Tensor& A, std::string_view UPLO = "L") {
  return linalg_eigh(A, UPLO);
}
inline Tensor eigvalsh(const Tensor& A, std::string_view UPLO = "L") {
  return linalg_eigvalsh(A, UPLO);
}
inline std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& A, bool full_matrices = true) {
  return linalg_svd(A, full_matrices);
}
inline Tensor svdvals(const Tensor& A) { return linalg_svdvals(A); }
inline std::tuple<Tensor, Tensor> qr(const Tensor& A, std::string_view mode = "reduced") {
  return linalg_qr(A, mode);
}
inline Tensor pinv(const Tensor& A, std::optional<double> atol = std::nullopt,
                   std::optional<double> rtol = std::nullopt, bool hermitian = false) {
  return linalg_pinv(A, atol, rtol, hermitian);
}
inline Tensor pinv(const Tensor& A, double rcond, bool hermitian = false) {
  return linalg_pinv(A, rcond, hermitian);
}
inline Tensor matrix_rank(const Tensor& A, std::optional<double> atol = std::nullopt,
                          std::optional<double> rtol = std::nullopt, bool hermitian = false) {
  return linalg_matrix_rank(A, atol, rtol, hermitian);
}
inline Tensor matrix_rank(const Tensor& A, double tol, bool hermitian = false) {
  return linalg_matrix_rank(A, tol, hermitian);
}
inline Tensor matrix_power(const Tensor& A, int64_t n) { return linalg_matrix_power(A, n); }
inline std::tuple<Tensor, Tensor, Tensor, Tensor> lstsq(
    const Tensor& A, const Tensor& B, std::optional<double> rcond = std::nullopt,
    std::optional<std::string_view> driver = std::nullopt) {
  return linalg_lstsq(A, B, rcond, driver);
}
inline Tensor cond(const Tensor& A, std::optional<Scalar> p = std::nullopt) {
  return linalg_cond(A, p);
}
inline Tensor cond(const Tensor& A, std::string_view p) { return linalg_cond(A, p); }
inline Tensor cond(const Tensor& A, const char* p) { return linalg_cond(A, std::string_view(p)); }
}  // namespace linalg

}  // namespace ember
