#pragma once
// Matrix products: kernels/cpu/gemm (our AVX-512 kernel or Eigen) on the CPU,
// cuBLAS (kernels/cuda/blas) on CUDA, where float32 may use TF32 when
// backends::cuda::set_allow_tf32(true) (default off).
#include "ember/core/tensor.h"

namespace ember {

Tensor mm(const Tensor& a, const Tensor& b);          // (n, k) @ (k, m)
Tensor bmm(const Tensor& a, const Tensor& b);         // (B, n, k) @ (B, k, m)
Tensor matmul(const Tensor& a, const Tensor& b);      // numpy.matmul rules, batch dims broadcast
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
             const Scalar& alpha = 1);                // beta * self + alpha * (mat1 @ mat2)
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = {});  // x @ w^T + b
Tensor dot(const Tensor& a, const Tensor& b);
Tensor outer(const Tensor& a, const Tensor& b);

}  // namespace ember
