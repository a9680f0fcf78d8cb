// The scan kernels: one thread per line (outer, inner), walking its n elements
// with kernels/common/scan_functors.h, as the CPU. Simple rather than fast:
// lines run in parallel, elements of a line in sequence.
#include "ember/kernels/common/scan_functors.h"
#include "ember/kernels/cuda/cuda_check.h"
#include "ember/kernels/cuda/device_guard.h"
#include "ember/kernels/cuda/grid_stride.cuh"
#include "ember/kernels/cuda/normalization_plan.h"
#include "ember/kernels/cuda/scan_launch.h"

namespace ember::cuda::detail {
namespace {

template <typename T, bool kProd>
__global__ void scan_lines(const T* in, T* out, int64_t outer, int64_t n, int64_t inner) {
  const int64_t lines = outer * inner;
  for (int64_t i = first_index(); i < lines; i += grid_step()) {
    const int64_t offset = i / inner * n * inner + i % inner;
    functors::scan_line<T, kProd>(in + offset, out + offset, n, inner);
  }
}

template <typename T>
__global__ void logcumsumexp_lines(const T* in, T* out, int64_t outer, int64_t n, int64_t inner) {
  const int64_t lines = outer * inner;
  for (int64_t i = first_index(); i < lines; i += grid_step()) {
    const int64_t offset = i / inner * n * inner + i % inner;
    functors::logcumsumexp_line<T>(in + offset, out + offset, n, inner);
  }
}

template <typename T, bool kMax>
__global__ void cum_extreme_lines(const T* in, T* values, int64_t* indices, int64_t outer,
                                  int64_t n, int64_t inner) {
  const int64_t lines = outer * inner;
  for (int64_t i = first_index(); i < lines; i += grid_step()) {
    const int64_t offset = i / inner * n * inner + i % inner;
    functors::cum_extreme_line<T, kMax>(in + offset, values + offset, indices + offset, n, inner);
  }
}

}  // namespace

void launch_scan(const char* name, bool is_prod, ScalarType t, const void* in, void* out,
                 int64_t outer, int64_t n, int64_t inner, int device) {
  const int64_t lines = outer * inner;
  if (lines == 0 || n == 0) return;
  DeviceGuard guard(device);
  dispatch_numeric(t, name, [&]<typename T>() {
    const T* x = static_cast<const T*>(in);
    T* y = static_cast<T*>(out);
    if (is_prod)
      scan_lines<T, true><<<blocks_for(lines), kNnThreads, 0, 0>>>(x, y, outer, n, inner);
    else
      scan_lines<T, false><<<blocks_for(lines), kNnThreads, 0, 0>>>(x, y, outer, n, inner);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

void launch_logcumsumexp(ScalarType t, const void* in, void* out, int64_t outer, int64_t n,
                         int64_t inner, int device) {
  const int64_t lines = outer * inner;
  if (lines == 0 || n == 0) return;
  DeviceGuard guard(device);
  dispatch_floating(t, "logcumsumexp", [&]<typename T>() {
    logcumsumexp_lines<T><<<blocks_for(lines), kNnThreads, 0, 0>>>(
        static_cast<const T*>(in), static_cast<T*>(out), outer, n, inner);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

void launch_cum_extreme(const char* name, bool is_max, ScalarType t, const void* in, void* values,
                        int64_t* indices, int64_t outer, int64_t n, int64_t inner, int device) {
  const int64_t lines = outer * inner;
  if (lines == 0 || n == 0) return;
  DeviceGuard guard(device);
  dispatch_all(t, name, [&]<typename T>() {
    const T* x = static_cast<const T*>(in);
    T* v = static_cast<T*>(values);
    if (is_max)
      cum_extreme_lines<T, true><<<blocks_for(lines), kNnThreads, 0, 0>>>(x, v, indices, outer, n, inner);
    else
      cum_extreme_lines<T, false><<<blocks_for(lines), kNnThreads, 0, 0>>>(x, v, indices, outer, n, inner);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace ember::cuda::detail
