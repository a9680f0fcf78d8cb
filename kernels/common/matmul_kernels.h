#pragma once
// The matrix-product kernel family (Note [Kernel tables]): the batched GEMM
// behind mm, bmm, addmm, matmul and linear, and the CPU's strided dot. The
// op (core/ops/linalg/matmul.cpp) has checked the operands (one device, one dtype
// that gemm_dtypes accepts, matching inner sizes), allocated the output and
// read each operand in place or from a contiguous copy (gemm_layout).
#include "ember/core/scalar.h"
#include "ember/core/tensor.h"
#include "ember/kernels/common/dtype_set.h"
#include "ember/kernels/common/gemm_operand.h"
#include "ember/kernels/common/kernel_table.h"

namespace ember {

struct MatmulKernels {
  // out[i] = alpha * a[i] @ b[i] + beta * out[i] for each batch i, with out a
  // contiguous non-empty (rows, cols) or (batch, rows, cols) tensor, a (rows,
  // k), b (k, cols) in out's dtype on out's device. beta == 0 never reads out;
  // k may be 0 (an empty sum: out = beta * out). op names the caller in errors.
  Kernel<void(const char* op, const Tensor& out, int64_t k, const GemmOperandRef& a,
              const GemmOperandRef& b, const Scalar& alpha, const Scalar& beta)>
      gemm;
  // The dtypes gemm takes on the device: the CPU int64, float32 and float64;
  // cuBLAS float32 and float64. The op checks against it before any other work.
  Kernel<DtypeSet()> gemm_dtypes;
  // out (0-dim) = sum_i a[i] * b[i], a and b 1-d of one length and out's
  // dtype, read through their strides. CPU only: where a device has none, the
  // op computes (1, k) @ (k, 1) through gemm (on CUDA: no host sync).
  Kernel<void(const Tensor& out, const Tensor& a, const Tensor& b)> dot;
};

}  // namespace ember
