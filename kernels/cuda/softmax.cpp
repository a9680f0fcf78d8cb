// The CUDA softmax entry points of a build without CUDA: each raises. (With
// CUDA they are in kernels/cuda/softmax.cu.)
#include "ember/kernels/cuda/softmax.h"

#include "ember/kernels/cuda/host_helpers.h"

namespace ember::cuda {

#ifndef EMBER_WITH_CUDA  // a CUDA build has them in softmax.cu

void softmax_kernel(const char* name, bool, const Tensor&, const Tensor& x, int64_t, int64_t n) {
  if (n == 0) return;  // no elements
  detail::no_cuda(name, x);
}

void softmax_columns_kernel(const char* name, bool, const Tensor&, const Tensor& x, int64_t,
                            int64_t, int64_t) {
  detail::no_cuda(name, x);
}

void logsumexp_kernel(const Tensor&, const Tensor& x, int64_t, int64_t) {
  detail::no_cuda("logsumexp", x);
}

#endif

}  // namespace ember::cuda
