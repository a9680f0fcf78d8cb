// What the cuBLAS product answers in a build without the CUDA backend; the
// calls themselves are in blas.cu, built only with it.
#include "ember/kernels/cuda/blas.h"

#include "ember/core/error.h"
#include "ember/kernels/cuda/host_helpers.h"

namespace ember::cuda {

#ifndef EMBER_WITH_CUDA

void gemm(const char* op, const Tensor& out, int64_t k, const GemmOperandRef& a,
          const GemmOperandRef& b, double alpha, double beta) {
  (void)k, (void)a, (void)b, (void)alpha, (void)beta;
  detail::no_cuda(op, out);
}

#endif

}  // namespace ember::cuda
