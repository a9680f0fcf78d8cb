// The padding kernels: one thread per output element (forward) or per input
// element (backward, gather form: deterministic), grid-stride loops on the
// legacy default stream. Index maths is kernels/common/pad_functors.h's, as the CPU's.
// Then the tensor-level entry points (kernels/cuda/pad.h), which read the
// tensors into the launches' plain arguments.
#include "ember/kernels/common/pad_functors.h"
#include "ember/kernels/cuda/cuda_check.h"
#include "ember/kernels/cuda/device_guard.h"
#include "ember/kernels/cuda/grid_stride.cuh"
#include "ember/kernels/common/cuda_plans/normalization_plan.h"
#include "ember/kernels/common/cuda_plans/host_helpers.h"
#include "ember/kernels/cuda/pad.h"
#include "ember/kernels/cuda/pad_launch.h"

namespace ember::cuda::detail {
namespace {

using functors::PadAxis;

// x: (outer, a.in, inner) -> out: (outer, a.out, inner)
template <typename T>
__global__ void pad_kernel(const T* x, T* out, PadAxis a, int64_t outer, int64_t inner, T fill) {
  const int64_t n = outer * a.out * inner;
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    const int64_t j = i % inner, o = i / inner % a.out, slab = i / (inner * a.out);
    const int64_t src = a.source(o);
    out[i] = src < 0 ? fill : x[(slab * a.in + src) * inner + j];
  }
}

template <typename T>
__global__ void pad_backward_kernel(const T* grad_out, T* grad_in, PadAxis a, int64_t outer,
                                    int64_t inner) {
  const int64_t n = outer * a.in * inner;
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    const int64_t j = i % inner, k = i / inner % a.in, slab = i / (inner * a.in);
    const PadAxis::Runs runs = a.outputs_of(k);
    const T* g = grad_out + slab * a.out * inner + j;
    T sum = 0;
    for (int r = 0; r < runs.count; ++r)
      for (int64_t o = runs.begin[r]; o < runs.end[r]; ++o) sum += g[o * inner];
    grad_in[i] = sum;
  }
}

}  // namespace

void launch_pad_axis(ScalarType t, const void* x, void* out, const PadAxis& a, int64_t outer,
                     int64_t inner, double value, int device) {
  const int64_t n = outer * a.out * inner;
  if (n == 0) return;
  DeviceGuard guard(device);
  dispatch_floating(t, "pad", [&]<typename T>() {
    pad_kernel<T><<<blocks_for(n), kNnThreads, 0, 0>>>(static_cast<const T*>(x),
                                                       static_cast<T*>(out), a, outer, inner,
                                                       static_cast<T>(value));
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

void launch_pad_axis_backward(ScalarType t, const void* grad_out, void* grad_in, const PadAxis& a,
                              int64_t outer, int64_t inner, int device) {
  const int64_t n = outer * a.in * inner;
  if (n == 0) return;
  DeviceGuard guard(device);
  dispatch_floating(t, "pad_backward", [&]<typename T>() {
    pad_backward_kernel<T><<<blocks_for(n), kNnThreads, 0, 0>>>(
        static_cast<const T*>(grad_out), static_cast<T*>(grad_in), a, outer, inner);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace ember::cuda::detail

namespace ember::cuda {

using detail::device_of;

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

}  // namespace ember::cuda
