// The pooling kernels: one thread per output element (forward) or per input
// element (backward, gather form: each input sums the outputs whose windows
// cover it, so no atomics), grid-stride loops on the legacy default stream.
// The index maths is kernels/common/pooling_functors.h, as the CPU's. Then the
// tensor-level entry points (kernels/cuda/pooling.h), which read the tensors
// into the launches' plain arguments.
#include <limits>

#include "ember/kernels/common/pooling_functors.h"
#include "ember/kernels/cuda/cuda_check.h"
#include "ember/kernels/cuda/device_guard.h"
#include "ember/kernels/cuda/grid_stride.cuh"
#include "ember/kernels/common/cuda_plans/normalization_plan.h"
#include "ember/kernels/common/cuda_plans/host_helpers.h"
#include "ember/kernels/cuda/plane_shape.h"
#include "ember/kernels/cuda/pooling.h"
#include "ember/kernels/cuda/pooling_launch.h"

namespace ember::cuda::detail {
namespace {

using functors::PoolSpan;
using functors::PoolWindow;

template <typename T>
__global__ void max_pool2d_kernel(const T* x, T* out, int64_t* indices, PlaneShape s,
                                  PoolWindow w) {
  const int64_t n = s.planes * s.out_h * s.out_w;
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    const int64_t ow = i % s.out_w, oh = i / s.out_w % s.out_h, plane = i / (s.out_w * s.out_h);
    const PoolSpan r =
        functors::max_pool_span(oh, s.in_h, w.kernel_h, w.stride_h, w.pad_h, w.dilation_h);
    const PoolSpan c =
        functors::max_pool_span(ow, s.in_w, w.kernel_w, w.stride_w, w.pad_w, w.dilation_w);
    const T* xp = x + plane * s.in_h * s.in_w;
    // Row-major over the window, as the CPU: ties keep the first maximum.
    T best = -std::numeric_limits<T>::infinity();
    int64_t at = r.begin * s.in_w + c.begin;
    for (int64_t ih = r.begin; ih < r.end; ih += w.dilation_h)
      for (int64_t iw = c.begin; iw < c.end; iw += w.dilation_w) {
        const T v = xp[ih * s.in_w + iw];
        if (functors::max_pool_takes(v, best)) {
          best = v;
          at = ih * s.in_w + iw;
        }
      }
    out[i] = best;
    indices[i] = at;
  }
}

template <typename T>
__global__ void max_pool2d_backward_kernel(const T* grad_out, const int64_t* indices, T* grad_in,
                                           PlaneShape s, PoolWindow w) {
  const int64_t n = s.planes * s.in_h * s.in_w;
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    const int64_t iw = i % s.in_w, ih = i / s.in_w % s.in_h, plane = i / (s.in_w * s.in_h);
    const int64_t pos = ih * s.in_w + iw, base = plane * s.out_h * s.out_w;
    // Kernel offsets downwards visit the outputs in ascending flat order: the
    // order the CPU's scatter_add adds them in, so the sums are the same bits.
    T sum = 0;
    for (int64_t kh = w.kernel_h - 1; kh >= 0; --kh) {
      int64_t oh;
      if (!functors::pool_output_reading(ih, kh, w.stride_h, w.pad_h, w.dilation_h, s.out_h, oh))
        continue;
      for (int64_t kw = w.kernel_w - 1; kw >= 0; --kw) {
        int64_t ow;
        if (!functors::pool_output_reading(iw, kw, w.stride_w, w.pad_w, w.dilation_w, s.out_w, ow))
          continue;
        const int64_t o = base + oh * s.out_w + ow;
        if (indices[o] == pos) sum += grad_out[o];
      }
    }
    grad_in[i] = sum;
  }
}

// The divisor of output (oh, ow), 0 meaning the output is 0 (as the CPU).
__device__ __forceinline__ int64_t avg_divisor(int64_t oh, int64_t ow, const PlaneShape& s,
                                               const PoolWindow& w, bool count_include_pad) {
  return functors::avg_pool_span(oh, s.in_h, w.kernel_h, w.stride_h, w.pad_h, count_include_pad)
             .factor *
         functors::avg_pool_span(ow, s.in_w, w.kernel_w, w.stride_w, w.pad_w, count_include_pad)
             .factor;
}

template <typename T>
__global__ void avg_pool2d_kernel(const T* x, T* out, PlaneShape s, PoolWindow w,
                                  bool count_include_pad) {
  const int64_t n = s.planes * s.out_h * s.out_w;
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    const int64_t ow = i % s.out_w, oh = i / s.out_w % s.out_h, plane = i / (s.out_w * s.out_h);
    const PoolSpan r =
        functors::avg_pool_span(oh, s.in_h, w.kernel_h, w.stride_h, w.pad_h, count_include_pad);
    const PoolSpan c =
        functors::avg_pool_span(ow, s.in_w, w.kernel_w, w.stride_w, w.pad_w, count_include_pad);
    const T* xp = x + plane * s.in_h * s.in_w;
    T sum = 0;
    for (int64_t ih = r.begin; ih < r.end; ++ih)
      for (int64_t iw = c.begin; iw < c.end; ++iw) sum += xp[ih * s.in_w + iw];
    const int64_t divisor = r.factor * c.factor;
    out[i] = divisor > 0 ? sum / static_cast<T>(divisor) : T(0);
  }
}

template <typename T>
__global__ void avg_pool2d_backward_kernel(const T* grad_out, T* grad_in, PlaneShape s,
                                           PoolWindow w, bool count_include_pad) {
  const int64_t n = s.planes * s.in_h * s.in_w;
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    const int64_t iw = i % s.in_w, ih = i / s.in_w % s.in_h, plane = i / (s.in_w * s.in_h);
    const T* gp = grad_out + plane * s.out_h * s.out_w;
    // Output rows ascending (kh downwards), and within a row kw upwards: the
    // CPU kernel's order of additions, so the sums are the same bits.
    T sum = 0;
    for (int64_t kh = w.kernel_h - 1; kh >= 0; --kh) {
      int64_t oh;
      if (!functors::pool_output_reading(ih, kh, w.stride_h, w.pad_h, 1, s.out_h, oh)) continue;
      for (int64_t kw = 0; kw < w.kernel_w; ++kw) {
        int64_t ow;
        if (!functors::pool_output_reading(iw, kw, w.stride_w, w.pad_w, 1, s.out_w, ow)) continue;
        const int64_t divisor = avg_divisor(oh, ow, s, w, count_include_pad);
        if (divisor > 0) sum += gp[oh * s.out_w + ow] / static_cast<T>(divisor);
      }
    }
    grad_in[i] = sum;
  }
}

template <typename T>
__global__ void adaptive_avg_pool2d_kernel(const T* x, T* out, PlaneShape s) {
  const int64_t n = s.planes * s.out_h * s.out_w;
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    const int64_t ow = i % s.out_w, oh = i / s.out_w % s.out_h, plane = i / (s.out_w * s.out_h);
    const PoolSpan r = functors::adaptive_span(oh, s.in_h, s.out_h);
    const PoolSpan c = functors::adaptive_span(ow, s.in_w, s.out_w);
    const T* xp = x + plane * s.in_h * s.in_w;
    T sum = 0;
    for (int64_t ih = r.begin; ih < r.end; ++ih)
      for (int64_t iw = c.begin; iw < c.end; ++iw) sum += xp[ih * s.in_w + iw];
    out[i] = sum / static_cast<T>(r.factor * c.factor);
  }
}

template <typename T>
__global__ void adaptive_max_pool2d_kernel(const T* x, T* out, int64_t* indices, PlaneShape s) {
  const int64_t n = s.planes * s.out_h * s.out_w;
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    const int64_t ow = i % s.out_w, oh = i / s.out_w % s.out_h, plane = i / (s.out_w * s.out_h);
    out[i] = functors::adaptive_window_max(x + plane * s.in_h * s.in_w, s.in_w,
                                           functors::adaptive_span(oh, s.in_h, s.out_h),
                                           functors::adaptive_span(ow, s.in_w, s.out_w),
                                           indices[i]);
  }
}

template <typename T>
__global__ void adaptive_avg_pool2d_backward_kernel(const T* grad_out, T* grad_in, PlaneShape s) {
  const int64_t n = s.planes * s.in_h * s.in_w;
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    const int64_t iw = i % s.in_w, ih = i / s.in_w % s.in_h, plane = i / (s.in_w * s.in_h);
    // The outputs whose windows hold (ih, iw): the adaptive span, sizes swapped.
    const PoolSpan rows = functors::adaptive_span(ih, s.out_h, s.in_h);
    const PoolSpan cols = functors::adaptive_span(iw, s.out_w, s.in_w);
    const T* gp = grad_out + plane * s.out_h * s.out_w;
    T sum = 0;
    for (int64_t oh = rows.begin; oh < rows.end; ++oh) {
      const int64_t rf = functors::adaptive_span(oh, s.in_h, s.out_h).factor;
      for (int64_t ow = cols.begin; ow < cols.end; ++ow) {
        const int64_t cf = functors::adaptive_span(ow, s.in_w, s.out_w).factor;
        sum += gp[oh * s.out_w + ow] / static_cast<T>(rf * cf);
      }
    }
    grad_in[i] = sum;
  }
}

}  // namespace

void launch_max_pool2d(ScalarType t, const void* x, void* out, int64_t* indices,
                       const PlaneShape& s, const PoolWindow& w, int device) {
  const int64_t n = s.planes * s.out_h * s.out_w;
  if (n == 0) return;
  DeviceGuard guard(device);
  dispatch_floating(t, "max_pool2d", [&]<typename T>() {
    max_pool2d_kernel<T><<<blocks_for(n), kNnThreads, 0, 0>>>(
        static_cast<const T*>(x), static_cast<T*>(out), indices, s, w);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

void launch_max_pool2d_backward(ScalarType t, const void* grad_out, const int64_t* indices,
                                void* grad_in, const PlaneShape& s, const PoolWindow& w,
                                int device) {
  const int64_t n = s.planes * s.in_h * s.in_w;
  if (n == 0) return;
  DeviceGuard guard(device);
  dispatch_floating(t, "max_pool2d_backward", [&]<typename T>() {
    max_pool2d_backward_kernel<T><<<blocks_for(n), kNnThreads, 0, 0>>>(
        static_cast<const T*>(grad_out), indices, static_cast<T*>(grad_in), s, w);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

void launch_avg_pool2d(ScalarType t, const void* x, void* out, const PlaneShape& s,
                       const PoolWindow& w, bool count_include_pad, int device) {
  const int64_t n = s.planes * s.out_h * s.out_w;
  if (n == 0) return;
  DeviceGuard guard(device);
  dispatch_floating(t, "avg_pool2d", [&]<typename T>() {
    avg_pool2d_kernel<T><<<blocks_for(n), kNnThreads, 0, 0>>>(
        static_cast<const T*>(x), static_cast<T*>(out), s, w, count_include_pad);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

void launch_avg_pool2d_backward(ScalarType t, const void* grad_out, void* grad_in,
                                const PlaneShape& s, const PoolWindow& w, bool count_include_pad,
                                int device) {
  const int64_t n = s.planes * s.in_h * s.in_w;
  if (n == 0) return;
  DeviceGuard guard(device);
  dispatch_floating(t, "avg_pool2d_backward", [&]<typename T>() {
    avg_pool2d_backward_kernel<T><<<blocks_for(n), kNnThreads, 0, 0>>>(
        static_cast<const T*>(grad_out), static_cast<T*>(grad_in), s, w, count_include_pad);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

void launch_adaptive_avg_pool2d(ScalarType t, const void* x, void* out, const PlaneShape& s,
                                int device) {
  const int64_t n = s.planes * s.out_h * s.out_w;
  if (n == 0) return;
  DeviceGuard guard(device);
  dispatch_floating(t, "adaptive_avg_pool2d", [&]<typename T>() {
    adaptive_avg_pool2d_kernel<T><<<blocks_for(n), kNnThreads, 0, 0>>>(
        static_cast<const T*>(x), static_cast<T*>(out), s);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

void launch_adaptive_max_pool2d(ScalarType t, const void* x, void* out, int64_t* indices,
                                const PlaneShape& s, int device) {
  const int64_t n = s.planes * s.out_h * s.out_w;
  if (n == 0) return;
  DeviceGuard guard(device);
  dispatch_floating(t, "adaptive_max_pool2d", [&]<typename T>() {
    adaptive_max_pool2d_kernel<T><<<blocks_for(n), kNnThreads, 0, 0>>>(
        static_cast<const T*>(x), static_cast<T*>(out), indices, s);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

void launch_adaptive_avg_pool2d_backward(ScalarType t, const void* grad_out, void* grad_in,
                                         const PlaneShape& s, int device) {
  const int64_t n = s.planes * s.in_h * s.in_w;
  if (n == 0) return;
  DeviceGuard guard(device);
  dispatch_floating(t, "adaptive_avg_pool2d_backward", [&]<typename T>() {
    adaptive_avg_pool2d_backward_kernel<T><<<blocks_for(n), kNnThreads, 0, 0>>>(
        static_cast<const T*>(grad_out), static_cast<T*>(grad_in), s);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace ember::cuda::detail

namespace ember::cuda {

using detail::device_of;
using detail::plane_shape;
using functors::PoolWindow;

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

}  // namespace ember::cuda
