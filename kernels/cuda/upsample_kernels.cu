// The upsampling kernels: one thread per output element (forward, bilinear
// backward: scatter with atomicAdd into a zeroed grad_in) or per input element
// (nearest backward, gather form), grid-stride loops on the legacy default
// stream. Source coordinates are kernels/common/pooling_functors.h's, as the CPU's.
// Then the tensor-level entry points (kernels/cuda/upsample.h), which read the
// tensors into the launches' plain arguments.
#include "ember/kernels/common/pooling_functors.h"
#include "ember/kernels/cuda/cuda_check.h"
#include "ember/kernels/cuda/device_guard.h"
#include "ember/kernels/cuda/grid_stride.cuh"
#include "ember/kernels/common/cuda_plans/normalization_plan.h"
#include "ember/kernels/common/cuda_plans/host_helpers.h"
#include "ember/kernels/cuda/plane_shape.h"
#include "ember/kernels/cuda/pooling_launch.h"
#include "ember/kernels/cuda/upsample.h"

namespace ember::cuda::detail {
namespace {

using functors::BilinearTaps;

template <typename T>
__global__ void nearest_kernel(const T* x, T* out, PlaneShape s) {
  const int64_t n = s.planes * s.out_h * s.out_w;
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    const int64_t ow = i % s.out_w, oh = i / s.out_w % s.out_h, plane = i / (s.out_w * s.out_h);
    const int64_t ih = functors::nearest_source(oh, s.in_h, s.out_h);
    const int64_t iw = functors::nearest_source(ow, s.in_w, s.out_w);
    out[i] = x[(plane * s.in_h + ih) * s.in_w + iw];
  }
}

template <typename T>
__global__ void nearest_backward_kernel(const T* grad_out, T* grad_in, PlaneShape s) {
  const int64_t n = s.planes * s.in_h * s.in_w;
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    const int64_t iw = i % s.in_w, ih = i / s.in_w % s.in_h, plane = i / (s.in_w * s.in_h);
    const functors::PoolSpan rows = functors::nearest_outputs(ih, s.in_h, s.out_h);
    const functors::PoolSpan cols = functors::nearest_outputs(iw, s.in_w, s.out_w);
    const T* gp = grad_out + plane * s.out_h * s.out_w;
    T sum = 0;
    for (int64_t oh = rows.begin; oh < rows.end; ++oh)
      for (int64_t ow = cols.begin; ow < cols.end; ++ow) sum += gp[oh * s.out_w + ow];
    grad_in[i] = sum;
  }
}

template <typename T>
__global__ void bilinear_kernel(const T* x, T* out, PlaneShape s, T scale_h, T scale_w,
                                bool align_corners) {
  const int64_t n = s.planes * s.out_h * s.out_w;
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    const int64_t ow = i % s.out_w, oh = i / s.out_w % s.out_h, plane = i / (s.out_w * s.out_h);
    const BilinearTaps<T> r = functors::bilinear_source(oh, s.in_h, scale_h, align_corners);
    const BilinearTaps<T> c = functors::bilinear_source(ow, s.in_w, scale_w, align_corners);
    const T* top = x + (plane * s.in_h + r.i0) * s.in_w;
    const T* bottom = x + (plane * s.in_h + r.i1) * s.in_w;
    out[i] = r.l0 * (c.l0 * top[c.i0] + c.l1 * top[c.i1]) +
             r.l1 * (c.l0 * bottom[c.i0] + c.l1 * bottom[c.i1]);
  }
}

template <typename T>
__global__ void bilinear_backward_kernel(const T* grad_out, T* grad_in, PlaneShape s, T scale_h,
                                         T scale_w, bool align_corners) {
  const int64_t n = s.planes * s.out_h * s.out_w;
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    const int64_t ow = i % s.out_w, oh = i / s.out_w % s.out_h, plane = i / (s.out_w * s.out_h);
    const BilinearTaps<T> r = functors::bilinear_source(oh, s.in_h, scale_h, align_corners);
    const BilinearTaps<T> c = functors::bilinear_source(ow, s.in_w, scale_w, align_corners);
    T* top = grad_in + (plane * s.in_h + r.i0) * s.in_w;
    T* bottom = grad_in + (plane * s.in_h + r.i1) * s.in_w;
    const T v = grad_out[i];
    atomicAdd(top + c.i0, r.l0 * c.l0 * v);
    atomicAdd(top + c.i1, r.l0 * c.l1 * v);
    atomicAdd(bottom + c.i0, r.l1 * c.l0 * v);
    atomicAdd(bottom + c.i1, r.l1 * c.l1 * v);
  }
}

}  // namespace

void launch_upsample_nearest2d(ScalarType t, const void* x, void* out, const PlaneShape& s,
                               int device) {
  const int64_t n = s.planes * s.out_h * s.out_w;
  if (n == 0) return;
  DeviceGuard guard(device);
  dispatch_floating(t, "upsample_nearest2d", [&]<typename T>() {
    nearest_kernel<T><<<blocks_for(n), kNnThreads, 0, 0>>>(static_cast<const T*>(x),
                                                           static_cast<T*>(out), s);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

void launch_upsample_nearest2d_backward(ScalarType t, const void* grad_out, void* grad_in,
                                        const PlaneShape& s, int device) {
  const int64_t n = s.planes * s.in_h * s.in_w;
  if (n == 0) return;
  DeviceGuard guard(device);
  dispatch_floating(t, "upsample_nearest2d_backward", [&]<typename T>() {
    nearest_backward_kernel<T><<<blocks_for(n), kNnThreads, 0, 0>>>(
        static_cast<const T*>(grad_out), static_cast<T*>(grad_in), s);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

void launch_upsample_bilinear2d(ScalarType t, const void* x, void* out, const PlaneShape& s,
                                bool align_corners, int device) {
  const int64_t n = s.planes * s.out_h * s.out_w;
  if (n == 0) return;
  DeviceGuard guard(device);
  dispatch_floating(t, "upsample_bilinear2d", [&]<typename T>() {
    // The scales on the host, in T, exactly as the CPU computes them.
    const T scale_h = functors::bilinear_scale<T>(s.in_h, s.out_h, align_corners);
    const T scale_w = functors::bilinear_scale<T>(s.in_w, s.out_w, align_corners);
    bilinear_kernel<T><<<blocks_for(n), kNnThreads, 0, 0>>>(
        static_cast<const T*>(x), static_cast<T*>(out), s, scale_h, scale_w, align_corners);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

void launch_upsample_bilinear2d_backward(ScalarType t, const void* grad_out, void* grad_in,
                                         const PlaneShape& s, bool align_corners, int device) {
  const int64_t in_numel = s.planes * s.in_h * s.in_w, n = s.planes * s.out_h * s.out_w;
  if (in_numel == 0) return;
  DeviceGuard guard(device);
  dispatch_floating(t, "upsample_bilinear2d_backward", [&]<typename T>() {
    EMBER_CUDA_CHECK(cudaMemsetAsync(grad_in, 0, in_numel * sizeof(T), 0));
    const T scale_h = functors::bilinear_scale<T>(s.in_h, s.out_h, align_corners);
    const T scale_w = functors::bilinear_scale<T>(s.in_w, s.out_w, align_corners);
    bilinear_backward_kernel<T><<<blocks_for(n), kNnThreads, 0, 0>>>(
        static_cast<const T*>(grad_out), static_cast<T*>(grad_in), s, scale_h, scale_w,
        align_corners);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace ember::cuda::detail

namespace ember::cuda {

using detail::device_of;
using detail::plane_shape;

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

}  // namespace ember::cuda
