// The host half of the CUDA pooling kernels: reads the tensors into plain
// launch arguments for kernels/cuda/pooling_kernels.cu. Compiled in every
// build; without CUDA each entry point raises.
#include "ember/kernels/cuda/pooling.h"

#include "ember/kernels/cuda/host_helpers.h"
#include "ember/kernels/cuda/plane_shape.h"

namespace ember::cuda {

using detail::device_of;
using detail::no_cuda;
using detail::plane_shape;
using functors::PoolWindow;

#ifdef EMBER_WITH_CUDA

void max_pool2d(const Tensor& x, const Tensor& out, const Tensor& indices, const PoolWindow& w) {
  detail::launch_max_pool2d(x.scalar_type(), x.data_ptr(), out.data_ptr(),
                            indices.data_ptr<int64_t>(), plane_shape(x, out), w, device_of(x));
}

void max_pool2d_backward(const Tensor& grad_out, const Tensor& indices, const Tensor& grad_in,
                         const PoolWindow& w) {
  detail::launch_max_pool2d_backward(grad_out.scalar_type(), grad_out.data_ptr(),
                                     indices.data_ptr<int64_t>(), grad_in.data_ptr(),
                                     plane_shape(grad_in, grad_out), w, device_of(grad_out));
}

void avg_pool2d(const Tensor& x, const Tensor& out, const PoolWindow& w, bool count_include_pad) {
  detail::launch_avg_pool2d(x.scalar_type(), x.data_ptr(), out.data_ptr(), plane_shape(x, out), w,
                            count_include_pad, device_of(x));
}

void avg_pool2d_backward(const Tensor& grad_out, const Tensor& grad_in, const PoolWindow& w,
                         bool count_include_pad) {
  detail::launch_avg_pool2d_backward(grad_out.scalar_type(), grad_out.data_ptr(),
                                     grad_in.data_ptr(), plane_shape(grad_in, grad_out), w,
                                     count_include_pad, device_of(grad_out));
}

void adaptive_avg_pool2d(const Tensor& x, const Tensor& out) {
  detail::launch_adaptive_avg_pool2d(x.scalar_type(), x.data_ptr(), out.data_ptr(),
                                     plane_shape(x, out), device_of(x));
}

void adaptive_max_pool2d(const Tensor& x, const Tensor& out, const Tensor& indices) {
  detail::launch_adaptive_max_pool2d(x.scalar_type(), x.data_ptr(), out.data_ptr(),
                                     indices.data_ptr<int64_t>(), plane_shape(x, out),
                                     device_of(x));
}

void adaptive_avg_pool2d_backward(const Tensor& grad_out, const Tensor& grad_in) {
  detail::launch_adaptive_avg_pool2d_backward(grad_out.scalar_type(), grad_out.data_ptr(),
                                              grad_in.data_ptr(), plane_shape(grad_in, grad_out),
                                              device_of(grad_out));
}

#else

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
