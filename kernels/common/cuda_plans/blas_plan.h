#pragma once
// The cuBLAS call behind a row-major ember product, as plain data, so the CPU
// tests check the mapping (tests/cuda_blas_plan_test.cpp). Compiled in every build.
//
// cuBLAS is column-major: a row-major (rows, cols) matrix with leading
// dimension ld is, read column-major, its transpose. So ember's
// C (n, m) = A (n, k) @ B (k, m) is computed as C^T (m, n) = B^T (m, k) @ A^T (k, n):
// cuBLAS's first operand is ember's b, its second ember's a, and a row-major
// operand is passed as is (op N) while a col_major one (a transposed view) is
// passed with op T. Nothing is copied.
#include <cstdint>

#include "ember/core/dtype.h"
#include "ember/kernels/common/gemm_operand.h"

namespace ember::cuda {

enum class BlasOp { kN, kT };
// cuBLAS's compute types for ember's dtypes: float32 exact (CUBLAS_COMPUTE_32F),
// float32 with TF32 tensor cores (CUBLAS_COMPUTE_32F_FAST_TF32), float64 (CUBLAS_COMPUTE_64F).
enum class BlasCompute { k32F, k32FFastTF32, k64F };

// One column-major cublasGemm(StridedBatched)Ex call: for each i < batch,
// C_i (m, n) = alpha * op_a(A_i) @ op_b(B_i) + beta * C_i, with X_i at x + i * stride_x.
struct BlasGemmPlan {
  BlasOp op_a, op_b;
  int64_t m, n, k;
  int64_t lda, ldb, ldc;
  int64_t stride_a, stride_b, stride_c;  // stride 0: one matrix for every batch
  int64_t batch;
};

// The plan for out (batch, rows, cols) contiguous row-major = a (rows, k) @ b (k, cols)
// for each batch, a and b laid out as `a_layout`, `b_layout` with their batch strides
// (0 for a 2-d operand or an expanded batch). The plan's A is ember's b; its B is ember's a.
BlasGemmPlan plan_blas_gemm(int64_t batch, int64_t rows, int64_t cols, int64_t k,
                            GemmLayout a_layout, int64_t a_batch_stride, GemmLayout b_layout,
                            int64_t b_batch_stride);

// Whether every size and leading dimension fits cuBLAS's int arguments
// (strides are 64-bit there).
bool fits_blas_int(const BlasGemmPlan& plan);

// float32 -> k32F, or k32FFastTF32 when TF32 is allowed; float64 -> k64F.
// Other dtypes: an Error naming `op`.
BlasCompute blas_compute(const char* op, ScalarType dtype, bool allow_tf32);

}  // namespace ember::cuda
