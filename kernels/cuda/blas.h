#pragma once
// Matrix products on CUDA tensors through cuBLAS: the device half of
// core/ops/matmul.cpp. Compiled in every build; without the CUDA backend it
// raises an Error.
#include "ember/core/tensor.h"
#include "ember/kernels/common/gemm_operand.h"

namespace ember::cuda {

// One operand as the product reads it: element (i, j) of batch b at
// data + b * batch_stride, then as `layout` says. `data` points at element 0
// (the tensor's data_ptr), in out's dtype and on out's device.
struct GemmOperandRef {
  const void* data;
  GemmLayout layout;
  int64_t batch_stride;  // 0 for a single matrix or an expanded batch
};

// out[b] = alpha * a[b] @ b[b] + beta * out[b] for each batch b, with out a
// contiguous (rows, cols) or (batch, rows, cols) float32 or float64 tensor on a
// CUDA device, a (rows, k), b (k, cols). beta == 0 never reads out. float32
// uses TF32 when backends::cuda::allow_tf32(). Asynchronous on stream 0.
void gemm(const char* op, const Tensor& out, int64_t k, const GemmOperandRef& a,
          const GemmOperandRef& b, double alpha, double beta);

}  // namespace ember::cuda
