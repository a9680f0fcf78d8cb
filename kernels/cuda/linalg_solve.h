#pragma once
// The CUDA kernels of the linalg_* ops: the CUDA entries of the linalg kernel
// table (kernels/common/linalg_kernels.h), with the contracts of
// kernels/cpu/linalg_solve.h (contiguous row-major batches on the device),
// except that `info` is a CPU int64 tensor, filled after the device is done
// (a sync). cuSOLVER's 64-bit API (getrf, getrs, potrf) and cuBLAS trsm, one
// call per matrix. Built only with the CUDA backend (linalg_solve.cu).
#include "ember/core/tensor.h"
#include "ember/kernels/common/linalg_kernels.h"

namespace ember::cuda {

decltype(LinalgKernels::lu_factor)::Signature lu_factor;
decltype(LinalgKernels::lu_solve)::Signature lu_solve;
decltype(LinalgKernels::cholesky)::Signature cholesky;
decltype(LinalgKernels::triangular_solve)::Signature triangular_solve;

}  // namespace ember::cuda
