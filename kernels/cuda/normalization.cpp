// The CUDA normalization entry points of a build without CUDA: each raises.
// (With CUDA they are in kernels/cuda/normalization_kernels.cu.)
#include "ember/kernels/cuda/normalization.h"

#include "ember/kernels/cuda/host_helpers.h"

namespace ember::cuda {

using detail::no_cuda;

#ifndef EMBER_WITH_CUDA  // a CUDA build has them in normalization_kernels.cu

void batch_norm_train_forward(const Tensor& x, const Tensor&, const Tensor&, double, const Tensor&,
                              const Tensor&, const Tensor&, const Tensor&) {
  no_cuda("batch_norm", x);
}
void batch_norm_apply(const Tensor& x, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                      const Tensor&) {
  no_cuda("batch_norm", x);
}
void batch_norm_backward(const Tensor& x, const Tensor&, const Tensor&, const Tensor&,
                         const Tensor&, bool, const Tensor&, const Tensor&, const Tensor&) {
  no_cuda("batch_norm_backward", x);
}
void layer_norm_forward(const Tensor& x, const Tensor&, const Tensor&, double, const Tensor&,
                        const Tensor&, const Tensor&) {
  no_cuda("layer_norm", x);
}
void layer_norm_backward(const Tensor& x, const Tensor&, const Tensor&, const Tensor&,
                         const Tensor&, const Tensor&, const Tensor&, const Tensor&) {
  no_cuda("layer_norm_backward", x);
}

#endif

}  // namespace ember::cuda
