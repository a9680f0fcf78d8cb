// The host half of the CUDA padding kernels (kernels/cuda/pad_kernels.cu).
// Compiled in every build; without CUDA each entry point raises.
#include "ember/kernels/cuda/pad.h"

#include "ember/kernels/cuda/host_helpers.h"
#include "ember/kernels/cuda/pad_launch.h"

namespace ember::cuda {

using detail::device_of;
using detail::no_cuda;

#ifdef EMBER_WITH_CUDA

void pad_axis(const Tensor& x, const functors::PadAxis& a, int64_t inner, double value,
              const Tensor& out) {
  detail::launch_pad_axis(x.scalar_type(), x.data_ptr(), out.data_ptr(), a,
                          out.numel() / (a.out * inner), inner, value, device_of(x));
}

void pad_axis_backward(const Tensor& grad_out, const functors::PadAxis& a, int64_t inner,
                       const Tensor& grad_in) {
  detail::launch_pad_axis_backward(grad_out.scalar_type(), grad_out.data_ptr(),
                                   grad_in.data_ptr(), a, grad_in.numel() / (a.in * inner),
                                   inner, device_of(grad_in));
}

#else

void pad_axis(const Tensor& x, const functors::PadAxis&, int64_t, double, const Tensor&) {
  no_cuda("pad", x);
}
void pad_axis_backward(const Tensor& grad_out, const functors::PadAxis&, int64_t,
                       const Tensor&) {
  no_cuda("pad_backward", grad_out);
}

#endif

}  // namespace ember::cuda
