#pragma once
// The CPU kernels of core/ops/linalg/linalg_solve.cpp and its siblings: Eigen
// factorizations and triangular solves, one matrix at a time, matrices of the
// batch in parallel. Every tensor is contiguous (row-major), float32 or
// float64, batched along dim 0; they record nothing and never throw for
// numerical trouble: they report it in `info`, and the op raises.
#include "ember/core/tensor.h"
#include "ember/kernels/common/linalg_kernels.h"

namespace ember::cpu {

// lu: (B, m, n), overwritten with the LU factors of P A = L U (L unit lower
// triangular below the diagonal, U on and above it). pivots: (B, min(m, n))
// int64, LAPACK's 1-based row interchanges (row i was swapped with row
// pivots[i]). info: (B) int64, 0, or the 1-based index of the first zero
// pivot (U is singular).
decltype(LinalgKernels::lu_factor)::Signature lu_factor;

// b: (B, n, k), overwritten with A^-1 b (A^-T b when `transpose`), where
// lu: (B, n, n) and pivots: (B, n) are lu_factor's results for A.
decltype(LinalgKernels::lu_solve)::Signature lu_solve;

// a: (B, n, n), its lower triangle overwritten with the Cholesky factor L of
// A = L L^T (read from the lower triangle), its strict upper triangle zeroed.
// info: (B) int64, 0, or the order of the first leading minor that is not
// positive definite.
decltype(LinalgKernels::cholesky)::Signature cholesky;

// b: (B, n, k), overwritten with A^-1 b, A: (B, n, n) the upper or lower
// triangle of a (its diagonal taken as ones when `unitriangular`).
decltype(LinalgKernels::triangular_solve)::Signature triangular_solve;

}  // namespace ember::cpu
