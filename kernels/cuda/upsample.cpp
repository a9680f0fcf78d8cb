// The CUDA upsampling entry points of a build without CUDA: each raises. (With
// CUDA they are in kernels/cuda/upsample_kernels.cu.)
#include "ember/kernels/cuda/upsample.h"

#include "ember/kernels/cuda/host_helpers.h"

namespace ember::cuda {

using detail::no_cuda;

#ifndef EMBER_WITH_CUDA  // a CUDA build has them in upsample_kernels.cu

void upsample_nearest2d(const Tensor& x, const Tensor&) { no_cuda("upsample_nearest2d", x); }
void upsample_nearest2d_backward(const Tensor& grad_out, const Tensor&) {
  no_cuda("upsample_nearest2d_backward", grad_out);
}
void upsample_bilinear2d(const Tensor& x, const Tensor&, bool) {
  no_cuda("upsample_bilinear2d", x);
}
void upsample_bilinear2d_backward(const Tensor& grad_out, const Tensor&, bool) {
  no_cuda("upsample_bilinear2d_backward", grad_out);
}

#endif

}  // namespace ember::cuda
