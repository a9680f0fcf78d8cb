#pragma once
// The CPU kernels of core/ops/linalg/linalg_spectral.cpp: Eigen's decompositions run
// on each matrix of a contiguous batch, in parallel over the batch (defined in
// linalg_eigh.cpp, linalg_svd.cpp and linalg_qr.cpp: Eigen's solvers are slow
// to compile, and in three files they compile in parallel). Inputs are
// contiguous (batch, m, n) float32/float64; outputs are contiguous tensors of
// the input's dtype, allocated by the caller. Each returns false when some
// matrix holds a NaN or an infinity (its outputs are then unspecified).
//
// Note [Decomposition signs]
// Eigenvectors and singular vectors are defined up to sign, and libtorch
// leaves the sign to LAPACK. Ember fixes it: each eigenvector, each column of
// U, and each extra row of a full Vh has its entry of largest magnitude (the
// first of equal ones) positive; the first min(m, n) rows of Vh follow their
// columns of U. QR makes the diagonal of R non-negative. The choice is
// continuous wherever the vectors are unique, so finite differences see a
// smooth function.
#include "ember/core/tensor.h"
#include "ember/kernels/common/linalg_kernels.h"

namespace ember::cpu {

// a: (batch, n, n), read from its lower (upper) triangle. values: (batch, n),
// ascending; vectors: (batch, n, n) with the eigenvectors as columns, or
// undefined for the values only.
decltype(LinalgKernels::eigh)::Signature eigh;
// a: (batch, m, n), k = min(m, n). s: (batch, k), descending. u: (batch, m, m)
// when full else (batch, m, k); vh: (batch, n, n) when full else (batch, k, n);
// u and vh both undefined for the values only.
decltype(LinalgKernels::svd)::Signature svd;
// a: (batch, m, n), k = min(m, n). q: (batch, m, m) when complete else
// (batch, m, k), or undefined for R only; r: (batch, m, n) when complete else
// (batch, k, n).
decltype(LinalgKernels::qr)::Signature qr;
// r: (batch, n, n) upper triangular with a nonzero diagonal (only its upper
// triangle is read); out: (batch, n, n), its inverse.
decltype(LinalgKernels::upper_triangular_inverse)::Signature upper_triangular_inverse;

}  // namespace ember::cpu
