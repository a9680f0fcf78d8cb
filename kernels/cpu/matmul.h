#pragma once
// The matmul table's CPU entry points (kernels/common/matmul_kernels.h),
// over the GEMM and dot of gemm.h.
#include "ember/core/scalar.h"
#include "ember/core/tensor.h"
#include "ember/kernels/common/dtype_set.h"
#include "ember/kernels/common/gemm_operand.h"

namespace ember::cpu {

// One cpu::gemm per batch, spread over threads; int64, float32 and float64.
void gemm_kernel(const char* op, const Tensor& out, int64_t k, const GemmOperandRef& a,
                 const GemmOperandRef& b, const Scalar& alpha, const Scalar& beta);
DtypeSet gemm_dtypes();
// cpu::dot on the strided vectors; int64, float32 and float64.
void dot_kernel(const Tensor& out, const Tensor& a, const Tensor& b);

}  // namespace ember::cpu
