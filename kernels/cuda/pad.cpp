// The CUDA padding entry points of a build without CUDA: each raises. (With
// CUDA they are in kernels/cuda/pad_kernels.cu.)
#include "ember/kernels/cuda/pad.h"

#include "ember/kernels/cuda/host_helpers.h"

namespace ember::cuda {

using detail::no_cuda;

#ifndef EMBER_WITH_CUDA  // a CUDA build has them in pad_kernels.cu

void pad_axis(const Tensor& x, const functors::PadAxis&, int64_t, double, const Tensor&) {
  no_cuda("pad", x);
}
void pad_axis_backward(const Tensor& grad_out, const functors::PadAxis&, int64_t,
                       const Tensor&) {
  no_cuda("pad_backward", grad_out);
}

#endif

}  // namespace ember::cuda
