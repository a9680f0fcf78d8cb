// What the CUDA linalg solvers answer in a build without the CUDA backend;
// cuSOLVER and cuBLAS calls themselves are in linalg_solve.cu, built only with it.
#include "ember/kernels/cuda/linalg_solve.h"

#include "ember/kernels/cuda/host_helpers.h"

namespace ember::cuda {

#ifndef EMBER_WITH_CUDA

void lu_factor(const Tensor& lu, const Tensor&, const Tensor&) { detail::no_cuda("lu_factor", lu); }
void lu_solve(const Tensor&, const Tensor&, const Tensor& b, bool) { detail::no_cuda("lu_solve", b); }
void cholesky(const Tensor& a, const Tensor&) { detail::no_cuda("cholesky", a); }
void triangular_solve(const Tensor&, const Tensor& b, bool, bool) {
  detail::no_cuda("triangular_solve", b);
}

#endif

}  // namespace ember::cuda
