// The scan kernels and their entry points (kernels/cuda/scan.h): one thread
// per line (outer, inner), walking its n elements with
// kernels/common/scan_functors.h, as the CPU. Simple rather than fast: lines
// run in parallel, elements of a line in sequence.
#include "ember/kernels/common/scan_functors.h"
#include "ember/kernels/cuda/cuda_check.h"
#include "ember/kernels/cuda/device_guard.h"
#include "ember/kernels/cuda/grid_stride.cuh"
#include "ember/kernels/common/cuda_plans/host_helpers.h"
#include "ember/kernels/common/cuda_plans/normalization_plan.h"
#include "ember/kernels/cuda/scan.h"

namespace ember::cuda {
namespace {

using detail::blocks_for;
using detail::first_index;
using detail::grid_step;

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

void scan_kernel(const char* name, bool is_prod, const Tensor& out, const Tensor& in,
                 int64_t outer, int64_t n, int64_t inner) {
  const int64_t lines = outer * inner;
  if (lines == 0 || n == 0) return;
  DeviceGuard guard(detail::device_of(in));
  dispatch_numeric(in.scalar_type(), name, [&]<typename T>() {
    const T* x = static_cast<const T*>(in.data_ptr());
    T* y = static_cast<T*>(out.data_ptr());
    if (is_prod)
      scan_lines<T, true><<<blocks_for(lines), kNnThreads, 0, 0>>>(x, y, outer, n, inner);
    else
      scan_lines<T, false><<<blocks_for(lines), kNnThreads, 0, 0>>>(x, y, outer, n, inner);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

void logcumsumexp_kernel(const Tensor& out, const Tensor& in, int64_t outer, int64_t n,
                         int64_t inner) {
  const int64_t lines = outer * inner;
  if (lines == 0 || n == 0) return;
  DeviceGuard guard(detail::device_of(in));
  dispatch_floating(in.scalar_type(), "logcumsumexp", [&]<typename T>() {
    logcumsumexp_lines<T><<<blocks_for(lines), kNnThreads, 0, 0>>>(
        static_cast<const T*>(in.data_ptr()), static_cast<T*>(out.data_ptr()), outer, n, inner);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

void cum_extreme_kernel(const char* name, bool is_max, const Tensor& values,
                        const Tensor& indices, const Tensor& in, int64_t outer, int64_t n,
                        int64_t inner) {
  const int64_t lines = outer * inner;
  if (lines == 0 || n == 0) return;
  DeviceGuard guard(detail::device_of(in));
  int64_t* const at = indices.data_ptr<int64_t>();
  dispatch_all(in.scalar_type(), name, [&]<typename T>() {
    const T* x = static_cast<const T*>(in.data_ptr());
    T* v = static_cast<T*>(values.data_ptr());
    if (is_max)
      cum_extreme_lines<T, true><<<blocks_for(lines), kNnThreads, 0, 0>>>(x, v, at, outer, n, inner);
    else
      cum_extreme_lines<T, false><<<blocks_for(lines), kNnThreads, 0, 0>>>(x, v, at, outer, n, inner);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace ember::cuda
