// The cuBLAS calls behind mm / bmm / addmm on CUDA tensors: the plan
// (kernels/common/cuda_plans/blas_plan.h) turned into one cublasGemmEx, or one
// cublasGemmStridedBatchedEx for a batch. Built only with the CUDA backend.
#include "ember/kernels/cuda/blas.h"

#include "ember/autograd/grad_mode.h"
#include "ember/core/backends.h"
#include "ember/core/error.h"
#include "ember/kernels/common/cuda_plans/blas_plan.h"
#include "ember/kernels/cuda/cublas_check.h"
#include "ember/kernels/cuda/cublas_handle.h"
#include "ember/kernels/cuda/device_guard.h"
#include "ember/kernels/common/cuda_plans/host_helpers.h"

namespace ember::cuda {

namespace {

cublasOperation_t to_cublas(BlasOp op) { return op == BlasOp::kT ? CUBLAS_OP_T : CUBLAS_OP_N; }

cublasComputeType_t to_cublas(BlasCompute c) {
  switch (c) {
    case BlasCompute::k32F: return CUBLAS_COMPUTE_32F;
    case BlasCompute::k32FFastTF32: return CUBLAS_COMPUTE_32F_FAST_TF32;
    case BlasCompute::k64F: return CUBLAS_COMPUTE_64F;
  }
  return CUBLAS_COMPUTE_32F;
}

// C = alpha * op(A) @ op(B) + beta * C as `p` says, alpha and beta of type T
// (cuBLAS reads them from host memory: the handle's pointer mode is host).
template <typename T>
void run_plan(cublasHandle_t handle, const BlasGemmPlan& p, cudaDataType type,
              cublasComputeType_t compute, const void* a, const void* b, void* c, T alpha,
              T beta) {
  const cublasOperation_t ta = to_cublas(p.op_a), tb = to_cublas(p.op_b);
  const int m = int(p.m), n = int(p.n), k = int(p.k);
  const int lda = int(p.lda), ldb = int(p.ldb), ldc = int(p.ldc);
  if (p.batch == 1) {
    EMBER_CUBLAS_CHECK(cublasGemmEx(handle, ta, tb, m, n, k, &alpha, a, type, lda, b, type, ldb,
                                    &beta, c, type, ldc, compute, CUBLAS_GEMM_DEFAULT));
  } else {
    EMBER_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
        handle, ta, tb, m, n, k, &alpha, a, type, lda, p.stride_a, b, type, ldb, p.stride_b,
        &beta, c, type, ldc, p.stride_c, int(p.batch), compute, CUBLAS_GEMM_DEFAULT));
  }
}

}  // namespace

void gemm(const char* op, const Tensor& out, int64_t k, const GemmOperandRef& a,
          const GemmOperandRef& b, const Scalar& alpha_value, const Scalar& beta_value) {
  const double alpha = alpha_value.toDouble(), beta = beta_value.toDouble();
  EMBER_INTERNAL_ASSERT(out.is_cuda() && out.is_contiguous() && out.dim() >= 2, op,
                        ": gemm output ", out.toString());
  if (out.numel() == 0) return;
  const int device = detail::device_of(out);
  const BlasCompute compute = blas_compute(op, out.scalar_type(), backends::cuda::allow_tf32());
  const int64_t batch = out.dim() == 3 ? out.size(0) : 1;
  const BlasGemmPlan plan = plan_blas_gemm(batch, out.size(-2), out.size(-1), k, a.layout,
                                           a.batch_stride, b.layout, b.batch_stride);
  EMBER_CHECK(fits_blas_int(plan), op, ": ", out.toString(), " with inner size ", k,
              ": a size or leading dimension exceeds cuBLAS's 32-bit limit");
  DeviceGuard guard(device);
  if (k == 0) {
    // An empty sum: out = beta * out, without calling cuBLAS on empty operands.
    NoGradGuard no_grad;
    Tensor c = out;
    if (beta == 0)
      c.zero_();
    else if (beta != 1)
      c.mul_(beta);
    return;
  }
  cublasHandle_t handle = cublas_handle(device);
  // The plan's A is ember's b and its B ember's a (C^T = B^T A^T).
  switch (out.scalar_type()) {
    case kDouble:
      return run_plan<double>(handle, plan, CUDA_R_64F, to_cublas(compute), b.data, a.data,
                              out.data_ptr(), alpha, beta);
    case kBFloat16:  // float32 alpha and beta with CUBLAS_COMPUTE_32F
      return run_plan<float>(handle, plan, CUDA_R_16BF, to_cublas(compute), b.data, a.data,
                             out.data_ptr(), float(alpha), float(beta));
    case kHalf:
      return run_plan<float>(handle, plan, CUDA_R_16F, to_cublas(compute), b.data, a.data,
                             out.data_ptr(), float(alpha), float(beta));
    default:
      return run_plan<float>(handle, plan, CUDA_R_32F, to_cublas(compute), b.data, a.data,
                             out.data_ptr(), float(alpha), float(beta));
  }
}

DtypeSet gemm_dtypes() { return DtypeSet::kFloating; }

}  // namespace ember::cuda
