#pragma once
// The matmul table's CPU entry points (kernels/common/matmul_kernels.h),
// over the GEMM and dot of gemm.h.
#include "ember/core/scalar.h"
#include "ember/core/tensor.h"
#include "ember/kernels/common/dtype_set.h"
#include "ember/kernels/common/gemm_operand.h"
#include "ember/kernels/common/matmul_kernels.h"

namespace ember::cpu {

// One cpu::gemm per batch, spread over threads; int64, float32 and float64.
decltype(MatmulKernels::gemm)::Signature gemm_kernel;
decltype(MatmulKernels::gemm_dtypes)::Signature gemm_dtypes;
// cpu::dot on the strided vectors; int64, float32 and float64.
decltype(MatmulKernels::dot)::Signature dot_kernel;

}  // namespace ember::cpu
