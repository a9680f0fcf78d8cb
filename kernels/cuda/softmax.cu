// The softmax row kernel: a group of lanes per contiguous row (RowPlan).
// Numerically stable as kernels/cpu/softmax.h: the row's maximum is
// subtracted before exp() (functors::softmax_shift), exp() is computed in the
// input's compute type T (expf for float32) and summed in double. Elements of
// storage type S: float16 and bfloat16 are read as float (T) and each output
// rounds once, as the float32 kernel on float32 copies would give.
// Then the tensor-level entry points (kernels/cuda/softmax.h).
#include <cmath>

#include "ember/kernels/common/dtype_set.h"
#include "ember/kernels/common/reduce_functors.h"
#include "ember/kernels/common/unary_functors.h"
#include "ember/kernels/common/cuda_plans/host_helpers.h"
#include "ember/kernels/cuda/loops.cuh"
#include "ember/kernels/cuda/reduce_kernels.cuh"
#include "ember/kernels/cuda/softmax.h"

namespace ember::cuda::detail {
namespace {

using reduce_kernels::allreduce_lanes_x;

constexpr int kSoftmax = 0, kLogSoftmax = 1, kLogsumexp = 2;

// An element of storage type S as a double, through its compute type T (a
// 16-bit float widens to float first: exact either way).
template <typename T, typename S>
__device__ double widened(S v) {
  return static_cast<double>(static_cast<T>(v));
}

template <typename S, int Mode>
__global__ void __launch_bounds__(kReduceThreads)
    softmax_rows_kernel(S* y, const S* x, int64_t rows, int64_t n, int slots) {
  using T = opmath_t<S>;
  const int lane = threadIdx.x, lanes = blockDim.x, slot = threadIdx.y;
  const int64_t row = blockIdx.x * int64_t(slots) + slot;
  const bool active = row < rows;
  const S* xr = x + (active ? row : 0) * n;
  const functors::MaxOps<T> max_ops;
  T m = max_ops.identity();
  if (active)
    for (int64_t k = lane; k < n; k += lanes) m = max_ops.step(m, static_cast<T>(xr[k]));
  m = allreduce_lanes_x(m, max_ops, lane, lanes, slot);
  const double shift = Mode == kLogsumexp ? functors::logsumexp_shift(static_cast<double>(m))
                                          : functors::softmax_shift(m);
  const functors::SumOps<double, double, double> sum_ops;
  double sum = 0;
  if (active)
    for (int64_t k = lane; k < n; k += lanes)
      sum += functors::math::exp(static_cast<T>(widened<T>(xr[k]) - shift));
  sum = allreduce_lanes_x(sum, sum_ops, lane, lanes, slot);
  if (!active) return;
  if constexpr (Mode == kLogsumexp) {
    if (lane == 0) y[row] = static_cast<S>(static_cast<T>(shift + functors::math::log(sum)));
  } else if constexpr (Mode == kLogSoftmax) {
    const double total = shift + functors::math::log(sum);
    S* yr = y + row * n;
    for (int64_t k = lane; k < n; k += lanes)
      yr[k] = static_cast<S>(static_cast<T>(widened<T>(xr[k]) - total));
  } else {
    const T scale = static_cast<T>(1.0 / sum);
    S* yr = y + row * n;
    for (int64_t k = lane; k < n; k += lanes)
      yr[k] = static_cast<S>(
          functors::math::exp(static_cast<T>(widened<T>(xr[k]) - shift)) * scale);
  }
}

// One thread per line (o, j) of a contiguous (outer, n, inner) tensor: the
// threads of a warp read neighbouring j, so every pass over k is coalesced.
template <typename S, int Mode>
__global__ void softmax_columns_kernel(S* y, const S* x, int64_t outer, int64_t n,
                                       int64_t inner) {
  using T = opmath_t<S>;
  const functors::MaxOps<T> max_ops;
  for (int64_t line = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; line < outer * inner;
       line += int64_t(gridDim.x) * blockDim.x) {
    const int64_t base = (line / inner) * n * inner + line % inner;
    T m = max_ops.identity();
    for (int64_t k = 0; k < n; ++k) m = max_ops.step(m, static_cast<T>(x[base + k * inner]));
    const double shift = functors::softmax_shift(m);
    double sum = 0;
    for (int64_t k = 0; k < n; ++k)
      sum += functors::math::exp(static_cast<T>(widened<T>(x[base + k * inner]) - shift));
    if constexpr (Mode == kLogSoftmax) {
      const double total = shift + functors::math::log(sum);
      for (int64_t k = 0; k < n; ++k)
        y[base + k * inner] =
            static_cast<S>(static_cast<T>(widened<T>(x[base + k * inner]) - total));
    } else {
      const T scale = static_cast<T>(1.0 / sum);
      for (int64_t k = 0; k < n; ++k)
        y[base + k * inner] = static_cast<S>(
            functors::math::exp(static_cast<T>(widened<T>(x[base + k * inner]) - shift)) * scale);
    }
  }
}

template <typename T, int Mode>
void launch_rows(T* y, const T* x, int64_t rows, int64_t n, int device) {
  const RowPlan p = make_row_plan(rows, n);
  DeviceGuard guard(device);
  const size_t shared = sizeof(double) * p.lanes * p.slots;
  softmax_rows_kernel<T, Mode><<<static_cast<unsigned>(p.blocks), dim3(p.lanes, p.slots), shared,
                                 0>>>(y, x, rows, n, p.slots);
  EMBER_CUDA_CHECK_LAUNCH();
}

}  // namespace

void launch_softmax_columns(const char* name, int mode, void* y, const void* x, ScalarType dtype,
                            int64_t outer, int64_t n, int64_t inner, int device) {
  dispatch_floating_storage(dtype, name, [&]<typename T>() {
    DeviceGuard guard(device);
    const unsigned blocks = loops::grid_for(outer * inner);
    if (mode == kLogSoftmax)
      softmax_columns_kernel<T, kLogSoftmax><<<blocks, loops::kThreads, 0, 0>>>(
          static_cast<T*>(y), static_cast<const T*>(x), outer, n, inner);
    else
      softmax_columns_kernel<T, kSoftmax><<<blocks, loops::kThreads, 0, 0>>>(
          static_cast<T*>(y), static_cast<const T*>(x), outer, n, inner);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

void launch_softmax(const char* name, int mode, void* y, const void* x, ScalarType dtype,
                    int64_t rows, int64_t n, int device) {
  dispatch_floating_storage(dtype, name, [&]<typename T>() {
    T* out = static_cast<T*>(y);
    const T* in = static_cast<const T*>(x);
    if (mode == kSoftmax)
      launch_rows<T, kSoftmax>(out, in, rows, n, device);
    else if (mode == kLogSoftmax)
      launch_rows<T, kLogSoftmax>(out, in, rows, n, device);
    else
      launch_rows<T, kLogsumexp>(out, in, rows, n, device);
  });
}

}  // namespace ember::cuda::detail

namespace ember::cuda {
namespace {

void run(const char* name, int mode, const Tensor& y, const Tensor& x, int64_t rows, int64_t n) {
  if (rows == 0) return;
  detail::launch_softmax(name, mode, y.data_ptr(), x.data_ptr(), x.scalar_type(), rows, n,
                         detail::device_of(x));
}

}  // namespace

void softmax_kernel(const char* name, bool log, const Tensor& y, const Tensor& x, int64_t rows,
                    int64_t n) {
  if (n == 0) return;  // no elements
  run(name, log ? 1 : 0, y, x, rows, n);
}

void softmax_columns_kernel(const char* name, bool log, const Tensor& y, const Tensor& x,
                            int64_t outer, int64_t n, int64_t inner) {
  if (outer * n * inner == 0) return;
  detail::launch_softmax_columns(name, log ? 1 : 0, y.data_ptr(), x.data_ptr(), x.scalar_type(),
                                 outer, n, inner, detail::device_of(x));
}

void logsumexp_kernel(const Tensor& y, const Tensor& x, int64_t rows, int64_t n) {
  run("logsumexp", 2, y, x, rows, n);
}

}  // namespace ember::cuda
