// The host half of the CUDA upsampling kernels (kernels/cuda/upsample_kernels.cu).
// Compiled in every build; without CUDA each entry point raises.
#include "ember/kernels/cuda/upsample.h"

#include "ember/kernels/cuda/host_helpers.h"
#include "ember/kernels/cuda/plane_shape.h"

namespace ember::cuda {

using detail::device_of;
using detail::no_cuda;
using detail::plane_shape;

#ifdef EMBER_WITH_CUDA

void upsample_nearest2d(const Tensor& x, const Tensor& out) {
  detail::launch_upsample_nearest2d(x.scalar_type(), x.data_ptr(), out.data_ptr(),
                                    plane_shape(x, out), device_of(x));
}

void upsample_nearest2d_backward(const Tensor& grad_out, const Tensor& grad_in) {
  detail::launch_upsample_nearest2d_backward(grad_out.scalar_type(), grad_out.data_ptr(),
                                             grad_in.data_ptr(), plane_shape(grad_in, grad_out),
                                             device_of(grad_out));
}

void upsample_bilinear2d(const Tensor& x, const Tensor& out, bool align_corners) {
  detail::launch_upsample_bilinear2d(x.scalar_type(), x.data_ptr(), out.data_ptr(),
                                     plane_shape(x, out), align_corners, device_of(x));
}

void upsample_bilinear2d_backward(const Tensor& grad_out, const Tensor& grad_in,
                                  bool align_corners) {
  detail::launch_upsample_bilinear2d_backward(grad_out.scalar_type(), grad_out.data_ptr(),
                                              grad_in.data_ptr(), plane_shape(grad_in, grad_out),
                                              align_corners, device_of(grad_out));
}

#else

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
