// searchsorted (one thread per value, a binary search in its row), bincount
// and histc (one thread per element, atomicAdd into the bins). The per-element
// maths is kernels/common/bucketing_functors.h's, shared with the CPU. Then
// the entry points of kernels/cuda/bucketing.h, which launch them, each
// dispatching the dtype set of kernels/common/bucketing_kernels.h, as the CPU.
#include <cstdint>

#include "ember/kernels/common/bucketing_functors.h"
#include "ember/kernels/cuda/bucketing.h"
#include "ember/kernels/cuda/cuda_check.h"
#include "ember/kernels/cuda/device_guard.h"
#include "ember/kernels/cuda/grid_stride.cuh"
#include "ember/kernels/common/cuda_plans/host_helpers.h"

namespace ember::cuda::detail {
namespace {

template <typename T>
__global__ void searchsorted_kernel(const T* seq, const T* values, const int64_t* sorter, int64_t* out,
                                    int64_t total, int64_t seq_rows, int64_t n, bool right) {
  const int64_t m = seq_rows == 1 ? total : total / seq_rows;
  for (int64_t i = first_index(); i < total; i += grid_step()) {
    const int64_t row = seq_rows == 1 ? 0 : i / m;
    out[i] = functors::search_sorted(seq + row * n, sorter ? sorter + row * n : nullptr, n, values[i],
                                     right);
  }
}

// atomicAdd for the bin dtypes; int64 through its unsigned 64-bit twin.
__device__ __forceinline__ void add_to(int64_t* p, int64_t v) {
  atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}
__device__ __forceinline__ void add_to(float* p, float v) { atomicAdd(p, v); }
__device__ __forceinline__ void add_to(double* p, double v) { atomicAdd(p, v); }

template <typename T>
__global__ void bincount_kernel(const int64_t* x, const T* weights, T* out, int64_t count) {
  for (int64_t i = first_index(); i < count; i += grid_step()) add_to(out + x[i], weights ? weights[i] : T(1));
}

template <typename T>
__global__ void histc_kernel(const T* x, T* out, int64_t count, T lo, T hi, int64_t bins) {
  for (int64_t i = first_index(); i < count; i += grid_step()) {
    const int64_t b = functors::histc_bin(x[i], lo, hi, bins);
    if (b >= 0) add_to(out + b, T(1));
  }
}

void launch_searchsorted(ScalarType t, const void* seq, const void* values, const int64_t* sorter,
                         int64_t* out, int64_t total, int64_t seq_rows, int64_t n, bool right,
                         int device) {
  if (total == 0) return;
  DeviceGuard guard(device);
  dispatch_dtypes<kSearchsortedDtypes>(t, "searchsorted", [&]<typename T>() {
    searchsorted_kernel<T><<<blocks_for(total), kNnThreads, 0, 0>>>(
        static_cast<const T*>(seq), static_cast<const T*>(values), sorter, out, total, seq_rows, n, right);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

void launch_bincount(ScalarType t, const int64_t* x, const void* weights, void* out, int64_t count,
                     int device) {
  if (count == 0) return;
  DeviceGuard guard(device);
  dispatch_dtypes<kBincountDtypes>(t, "bincount", [&]<typename T>() {
    bincount_kernel<T><<<blocks_for(count), kNnThreads, 0, 0>>>(x, static_cast<const T*>(weights),
                                                         static_cast<T*>(out), count);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

void launch_histc(ScalarType t, const void* x, void* out, int64_t count, double lo, double hi,
                  int64_t bins, int device) {
  if (count == 0) return;
  DeviceGuard guard(device);
  dispatch_dtypes<kHistcDtypes>(t, "histc", [&]<typename T>() {
    histc_kernel<T><<<blocks_for(count), kNnThreads, 0, 0>>>(static_cast<const T*>(x), static_cast<T*>(out),
                                                      count, static_cast<T>(lo), static_cast<T>(hi), bins);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace
}  // namespace ember::cuda::detail

namespace ember::cuda {

void searchsorted(const Tensor& out, const Tensor& seq, const Tensor& values, const Tensor& sorter,
                  int64_t seq_rows, int64_t n, bool right) {
  const int64_t* s = sorter.defined() ? sorter.data_ptr<int64_t>() : nullptr;
  detail::launch_searchsorted(seq.scalar_type(), seq.data_ptr(), values.data_ptr(), s,
                              out.data_ptr<int64_t>(), values.numel(), seq_rows, n, right,
                              detail::device_of(values));
}

void bincount(const Tensor& out, const Tensor& x, const Tensor& weights) {
  detail::launch_bincount(out.scalar_type(), x.data_ptr<int64_t>(), detail::data_or_null(weights),
                          out.data_ptr(), x.numel(), detail::device_of(x));
}

void histc(const Tensor& out, const Tensor& x, double lo, double hi) {
  detail::launch_histc(x.scalar_type(), x.data_ptr(), out.data_ptr(), x.numel(), lo, hi, out.numel(),
                       detail::device_of(x));
}

}  // namespace ember::cuda
