#pragma once
// Matrix products on CUDA tensors through cuBLAS: the CUDA entries of the
// matmul kernel table (kernels/common/matmul_kernels.h, which says what the op
// has checked), built only with the CUDA backend (blas.cu).
#include "ember/core/scalar.h"
#include "ember/core/tensor.h"
#include "ember/kernels/common/dtype_set.h"
#include "ember/kernels/common/gemm_operand.h"
#include "ember/kernels/common/matmul_kernels.h"

namespace ember::cuda {

// out[b] = alpha * a[b] @ b[b] + beta * out[b] for each batch b, with out a
// contiguous (rows, cols) or (batch, rows, cols) float32 or float64 tensor on a
// CUDA device, a (rows, k), b (k, cols). beta == 0 never reads out. float32
// uses TF32 when backends::cuda::allow_tf32(). Asynchronous on stream 0.
decltype(MatmulKernels::gemm)::Signature gemm;
// cuBLAS multiplies float32 and float64.
decltype(MatmulKernels::gemm_dtypes)::Signature gemm_dtypes;

}  // namespace ember::cuda
