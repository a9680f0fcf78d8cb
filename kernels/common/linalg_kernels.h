#pragma once
// The linear-algebra kernel family (Note [Kernel tables]): the factorizations
// and solves of the linalg_* ops (core/ops/linalg/linalg_helpers.h calls them), one
// slot per entry point. Every tensor is a contiguous row-major (B, r, c)
// batch of float32 or float64 matrices on one device, allocated by the op; a
// kernel records nothing and never throws for numerical trouble: it reports it
// in `info` (a CPU int64 (B) tensor on every device; CUDA fills it after a
// sync) or its return value, and the op raises. Each raises
// dispatch_floating's Error, named as in its comment, for other dtypes. The
// contracts in full are kernels/cpu/linalg_solve.h's and linalg_spectral.h's.
//
// The spectral slots (eigh, svd, qr, upper_triangular_inverse) have only a CPU
// kernel: their ops raise "CUDA is not supported yet" on a CUDA input before
// any work (core/ops/linalg/linalg_spectral.cpp), a clearer message than the lookup's.
#include "ember/core/tensor.h"
#include "ember/kernels/common/kernel_table.h"

namespace ember {

struct LinalgKernels {
  // lu (B, m, n) overwritten with the LU factors of P A = L U; pivots (B,
  // min(m, n)) int64, LAPACK's 1-based interchanges; info: the 1-based index
  // of the first zero pivot, or 0. "lu_factor".
  Kernel<void(const Tensor& lu, const Tensor& pivots, const Tensor& info)> lu_factor;
  // b (B, n, k) overwritten with A^-1 b (A^-T b when transpose), lu and pivots
  // lu_factor's results for A. "lu_solve".
  Kernel<void(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool transpose)> lu_solve;
  // a (B, n, n): its lower triangle overwritten with L of A = L L^T, its strict
  // upper triangle zeroed; info: the order of the first leading minor that is
  // not positive definite, or 0. "cholesky".
  Kernel<void(const Tensor& a, const Tensor& info)> cholesky;
  // b (B, n, k) overwritten with A^-1 b, A the upper or lower triangle of a
  // (unit diagonal when unitriangular). "triangular_solve".
  Kernel<void(const Tensor& a, const Tensor& b, bool upper, bool unitriangular)>
      triangular_solve;

  // CPU only. false when some matrix holds a NaN or an infinity.
  // values (B, n) ascending, vectors (B, n, n) or undefined. "linalg.eigh".
  Kernel<bool(const Tensor& a, bool upper, const Tensor& values, const Tensor& vectors)> eigh;
  // s (B, k) descending; u, vh (full or reduced) or both undefined. "linalg.svd".
  Kernel<bool(const Tensor& a, bool full, const Tensor& u, const Tensor& s, const Tensor& vh)>
      svd;
  // q (complete or reduced, or undefined) and r. "linalg.qr".
  Kernel<bool(const Tensor& a, bool complete, const Tensor& q, const Tensor& r)> qr;
  // out (B, n, n) = the inverse of the upper triangle of r. "linalg.qr".
  Kernel<void(const Tensor& r, const Tensor& out)> upper_triangular_inverse;
};

}  // namespace ember
