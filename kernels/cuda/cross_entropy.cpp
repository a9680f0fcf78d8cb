// The CUDA cross-entropy entry points of a build without CUDA: each raises.
// (With CUDA they are in kernels/cuda/cross_entropy.cu.)
#include "ember/kernels/cuda/cross_entropy.h"

#include "ember/kernels/cuda/host_helpers.h"

namespace ember::cuda {

using detail::no_cuda;

#ifndef EMBER_WITH_CUDA  // a CUDA build has them in cross_entropy.cu

void cross_entropy_forward(const Tensor& x, const CrossEntropyArgs& args, const Tensor& lse,
                           const Tensor& loss, const Tensor& line_weight) {
  (void)args, (void)lse, (void)loss, (void)line_weight;
  no_cuda("cross_entropy", x);
}

void cross_entropy_backward(const Tensor& x, const CrossEntropyArgs& args, const Tensor& lse,
                            const Tensor& grad, int64_t grad_stride, const Tensor& scale,
                            const Tensor& dx) {
  (void)args, (void)lse, (void)grad, (void)grad_stride, (void)scale, (void)dx;
  no_cuda("cross_entropy", x);
}

void check_class_targets(const char* op, const Tensor& target, int64_t classes,
                         int64_t ignore_index) {
  (void)classes, (void)ignore_index;
  no_cuda(op, target);
}

#endif

}  // namespace ember::cuda
