#pragma once
// The CUDA kernels of the linalg_* ops: the CUDA entries of the linalg kernel
// table (kernels/common/linalg_kernels.h), with the contracts of
// kernels/cpu/linalg_solve.h (contiguous row-major batches on the device),
// except that `info` is a CPU int64 tensor, filled after the device is done
// (a sync). cuSOLVER's 64-bit API (getrf, getrs, potrf) and cuBLAS trsm, one
// call per matrix. Built only with the CUDA backend (linalg_solve.cu).
#include "ember/core/tensor.h"

namespace ember::cuda {

void lu_factor(const Tensor& lu, const Tensor& pivots, const Tensor& info);
void lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool transpose);
void cholesky(const Tensor& a, const Tensor& info);
void triangular_solve(const Tensor& a, const Tensor& b, bool upper, bool unitriangular);

}  // namespace ember::cuda
