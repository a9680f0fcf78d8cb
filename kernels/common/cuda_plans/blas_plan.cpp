#include "ember/kernels/common/cuda_plans/blas_plan.h"

#include <algorithm>
#include <limits>

#include "ember/core/error.h"

namespace ember::cuda {

BlasGemmPlan plan_blas_gemm(int64_t batch, int64_t rows, int64_t cols, int64_t k,
                            GemmLayout a_layout, int64_t a_batch_stride, GemmLayout b_layout,
                            int64_t b_batch_stride) {
  auto op = [](const GemmLayout& l) { return l.col_major ? BlasOp::kT : BlasOp::kN; };
  BlasGemmPlan p;
  p.op_a = op(b_layout);
  p.op_b = op(a_layout);
  p.m = cols;
  p.n = rows;
  p.k = k;
  p.lda = b_layout.ld;
  p.ldb = a_layout.ld;
  p.ldc = std::max<int64_t>(cols, 1);
  p.stride_a = b_batch_stride;
  p.stride_b = a_batch_stride;
  p.stride_c = rows * cols;
  p.batch = batch;
  return p;
}

bool fits_blas_int(const BlasGemmPlan& p) {
  constexpr int64_t kMax = std::numeric_limits<int>::max();
  for (int64_t v : {p.m, p.n, p.k, p.lda, p.ldb, p.ldc, p.batch})
    if (v > kMax) return false;
  return true;
}

BlasCompute blas_compute(const char* op, ScalarType dtype, bool allow_tf32) {
  if (dtype == kFloat) return allow_tf32 ? BlasCompute::k32FFastTF32 : BlasCompute::k32F;
  if (dtype == kDouble) return BlasCompute::k64F;
  // bfloat16 and float16 operands accumulate in float32 (cuBLAS's tensor cores).
  if (dtype == kBFloat16 || dtype == kHalf) return BlasCompute::k32F;
  EMBER_ERROR(op, ": ", dtype, " matrices are not supported on CUDA (cuBLAS multiplies "
              "floating matrices)");
}

}  // namespace ember::cuda
