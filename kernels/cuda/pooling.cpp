// The CUDA pooling entry points of a build without CUDA: each raises. (With
// CUDA they are in kernels/cuda/pooling_kernels.cu.)
#include "ember/kernels/cuda/pooling.h"

#include "ember/kernels/cuda/host_helpers.h"

namespace ember::cuda {

using detail::no_cuda;
using functors::PoolWindow;

#ifndef EMBER_WITH_CUDA  // a CUDA build has them in pooling_kernels.cu

void max_pool2d(const Tensor& x, const Tensor&, const Tensor&, const PoolWindow&) {
  no_cuda("max_pool2d", x);
}
void max_pool2d_backward(const Tensor& grad_out, const Tensor&, const Tensor&, const PoolWindow&) {
  no_cuda("max_pool2d_backward", grad_out);
}
void avg_pool2d(const Tensor& x, const Tensor&, const PoolWindow&, bool) {
  no_cuda("avg_pool2d", x);
}
void avg_pool2d_backward(const Tensor& grad_out, const Tensor&, const PoolWindow&, bool) {
  no_cuda("avg_pool2d_backward", grad_out);
}
void adaptive_avg_pool2d(const Tensor& x, const Tensor&) { no_cuda("adaptive_avg_pool2d", x); }
void adaptive_max_pool2d(const Tensor& x, const Tensor&, const Tensor&) {
  no_cuda("adaptive_max_pool2d", x);
}
void adaptive_avg_pool2d_backward(const Tensor& grad_out, const Tensor&) {
  no_cuda("adaptive_avg_pool2d_backward", grad_out);
}

#endif

}  // namespace ember::cuda
