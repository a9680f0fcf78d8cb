// Batch and layer normalization kernels. Sums are in double: each thread
// folds its values in, then warp shuffles and a block reduce combine the
// threads (block_sum). Batch norm splits each channel into chunks
// (plan_channel_reduce): partials per (channel, chunk), then one thread per
// channel adds them up. The per-element maths is kernels/common/
// normalization_functors.h, as the CPU's. Then the tensor-level entry points
// (kernels/cuda/normalization.h), which read the tensors, plan the reductions
// and allocate their scratch as an ember tensor (from the caching allocator,
// freed to it when the call returns: the kernels run in stream order, so a
// later allocation of the block runs after them).
#include <algorithm>
#include <cmath>

#include "ember/core/ops/creation/factory.h"
#include "ember/kernels/common/normalization_functors.h"
#include "ember/kernels/common/normalization_kernels.h"
#include "ember/kernels/cuda/cuda_check.h"
#include "ember/kernels/cuda/device_guard.h"
#include "ember/kernels/cuda/grid_stride.cuh"
#include "ember/kernels/common/cuda_plans/host_helpers.h"
#include "ember/kernels/cuda/normalization.h"
#include "ember/kernels/cuda/normalization_launch.h"

namespace ember::cuda::detail {
namespace {

struct Sum2 {
  double a = 0, b = 0;
};

__device__ __forceinline__ Sum2 warp_sum(Sum2 v) {
  for (int offset = 16; offset > 0; offset >>= 1) {
    v.a += __shfl_down_sync(0xffffffffu, v.a, offset);
    v.b += __shfl_down_sync(0xffffffffu, v.b, offset);
  }
  return v;
}

// The sum over the block (blockDim.x a multiple of 32, at most 1024),
// returned to every thread. Every thread of the block must call it.
__device__ Sum2 block_sum(Sum2 v) {
  __shared__ double part_a[32], part_b[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  v = warp_sum(v);
  if (lane == 0) {
    part_a[warp] = v.a;
    part_b[warp] = v.b;
  }
  __syncthreads();
  if (warp == 0) {
    const int warps = blockDim.x >> 5;
    Sum2 t;
    if (lane < warps) t = {part_a[lane], part_b[lane]};
    t = warp_sum(t);
    if (lane == 0) {
      part_a[0] = t.a;
      part_b[0] = t.b;
    }
  }
  __syncthreads();
  const Sum2 total{part_a[0], part_b[0]};
  __syncthreads();  // the next call may overwrite part_a / part_b
  return total;
}

// ---- batch norm ----

// Terms of the forward's statistics: x - shift and its square, shift the
// channel's first value (as the CPU).
template <typename T>
struct StatsTerms {
  const T* x;
  int64_t s;
  __device__ Sum2 operator()(int64_t at, int64_t c) const {
    const double dev = static_cast<double>(x[at] - x[c * s]);
    return {dev, dev * dev};
  }
};

// Terms of the backward: dy and dy * (x - mean).
template <typename T>
struct GradTerms {
  const T* x;
  const T* dy;
  const T* mean;
  __device__ Sum2 operator()(int64_t at, int64_t c) const {
    const double g = static_cast<double>(dy[at]);
    return {g, g * static_cast<double>(x[at] - mean[c])};
  }
};

// partials[(c * chunks + chunk) * 2 + {0, 1}] = the sums of terms over the
// chunk's values of channel c; grid (channels, chunks).
template <typename Terms>
__global__ void channel_sums_kernel(ChannelReducePlan p, int64_t s, Terms terms,
                                    double* partials) {
  const int64_t chunk = blockIdx.y;
  const IndexRange range = chunk_range(p, chunk);
  for (int64_t c = blockIdx.x; c < p.channels; c += gridDim.x) {
    Sum2 acc;
    for (int64_t j = range.begin + threadIdx.x; j < range.end; j += blockDim.x) {
      const Sum2 t = terms(channel_value_offset(j, c, p.channels, s), c);
      acc.a += t.a;
      acc.b += t.b;
    }
    acc = block_sum(acc);
    if (threadIdx.x == 0) {
      partials[(c * p.chunks + chunk) * 2] = acc.a;
      partials[(c * p.chunks + chunk) * 2 + 1] = acc.b;
    }
  }
}

__device__ __forceinline__ Sum2 channel_total(const double* partials, int64_t c, int64_t chunks) {
  Sum2 total;
  for (int64_t k = 0; k < chunks; ++k) {
    total.a += partials[(c * chunks + k) * 2];
    total.b += partials[(c * chunks + k) * 2 + 1];
  }
  return total;
}

template <typename T>
__global__ void stats_finalize_kernel(const double* partials, ChannelReducePlan p, const T* x,
                                      int64_t s, double eps, T* mean, T* var, T* invstd) {
  for (int64_t c = first_index(); c < p.channels; c += grid_step()) {
    const Sum2 total = channel_total(partials, c, p.chunks);
    const functors::Moments m = functors::moments_from_shifted_sums(
        total.a, total.b, static_cast<double>(x[c * s]), p.per_channel);
    mean[c] = static_cast<T>(m.mean);
    var[c] = static_cast<T>(m.var);
    invstd[c] = static_cast<T>(functors::batch_norm_invstd(m.var, eps));
  }
}

// y = (x - mean) * invstd * weight + bias, channel c = (i / S) % C.
template <typename T>
__global__ void apply_kernel(const T* x, T* y, int64_t numel, int64_t channels, int64_t s,
                             const T* mean, const T* invstd, const T* weight, const T* bias) {
  for (int64_t i = first_index(); i < numel; i += grid_step()) {
    const int64_t c = i / s % channels;
    const T scale = weight ? weight[c] * invstd[c] : invstd[c];
    y[i] = functors::normalize_affine(x[i], mean[c], scale, bias ? bias[c] : T(0));
  }
}

// dbias, dweight and dx's coefficients (k_xmu, mean_dy, coef) per channel;
// partials null: no sums were needed (eval, dx only).
template <typename T>
__global__ void grad_finalize_kernel(const double* partials, ChannelReducePlan p,
                                     const T* invstd, const T* weight, bool training, T* dweight,
                                     T* dbias, double* coefficients) {
  for (int64_t c = first_index(); c < p.channels; c += grid_step()) {
    const Sum2 g = partials ? channel_total(partials, c, p.chunks) : Sum2{};
    const double inv = invstd[c], count = static_cast<double>(p.per_channel);
    if (dbias) dbias[c] = static_cast<T>(g.a);
    if (dweight) dweight[c] = static_cast<T>(g.b * inv);
    coefficients[c * 3] = training ? inv * inv * g.b / count : 0.0;
    coefficients[c * 3 + 1] = training ? g.a / count : 0.0;
    coefficients[c * 3 + 2] = inv * (weight ? static_cast<double>(weight[c]) : 1.0);
  }
}

template <typename T>
__global__ void grad_input_kernel(const T* x, const T* dy, T* dx, int64_t numel, int64_t channels,
                                  int64_t s, const T* mean, const double* coefficients) {
  for (int64_t i = first_index(); i < numel; i += grid_step()) {
    const int64_t c = i / s % channels;
    dx[i] = functors::batch_norm_grad_input(dy[i], x[i], mean[c],
                                            static_cast<T>(coefficients[c * 3 + 1]),
                                            static_cast<T>(coefficients[c * 3]),
                                            static_cast<T>(coefficients[c * 3 + 2]));
  }
}

dim3 channel_grid(const ChannelReducePlan& p) {
  return dim3(static_cast<unsigned>(p.channel_blocks), static_cast<unsigned>(p.chunks));
}

// ---- layer norm ----

template <typename T>
__global__ void layer_norm_forward_kernel(const T* x, const T* weight, const T* bias, double eps,
                                          T* y, T* mean, T* rstd, int64_t rows, int64_t k) {
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* xr = x + r * k;
    T* yr = y + r * k;
    const T shift = xr[0];
    Sum2 acc;
    for (int64_t j = threadIdx.x; j < k; j += blockDim.x) {
      const double dev = static_cast<double>(xr[j] - shift);
      acc.a += dev;
      acc.b += dev * dev;
    }
    acc = block_sum(acc);
    const functors::Moments m =
        functors::moments_from_shifted_sums(acc.a, acc.b, static_cast<double>(shift), k);
    const T tm = static_cast<T>(m.mean), inv = static_cast<T>(1.0 / sqrt(m.var + eps));
    if (threadIdx.x == 0) {
      mean[r] = tm;
      rstd[r] = inv;
    }
    for (int64_t j = threadIdx.x; j < k; j += blockDim.x)
      yr[j] = (xr[j] - tm) * inv * (weight ? weight[j] : T(1)) + (bias ? bias[j] : T(0));
  }
}

template <typename T>
__global__ void layer_norm_grad_input_kernel(const T* x, const T* dy, const T* mean,
                                             const T* rstd, const T* weight, T* dx, int64_t rows,
                                             int64_t k) {
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T *xr = x + r * k, *gr = dy + r * k;
    const T tm = mean[r], tinv = rstd[r];
    Sum2 acc;
    for (int64_t j = threadIdx.x; j < k; j += blockDim.x) {
      const T dxhat = weight ? gr[j] * weight[j] : gr[j];
      acc.a += static_cast<double>(dxhat);
      acc.b += static_cast<double>(dxhat * (xr[j] - tm) * tinv);
    }
    acc = block_sum(acc);
    const T mean_dxhat = static_cast<T>(acc.a / k), mean_dxhat_xhat = static_cast<T>(acc.b / k);
    for (int64_t j = threadIdx.x; j < k; j += blockDim.x) {
      const T dxhat = weight ? gr[j] * weight[j] : gr[j];
      dx[r * k + j] =
          functors::layer_norm_grad_input(dxhat, xr[j], tm, tinv, mean_dxhat, mean_dxhat_xhat);
    }
  }
}

// partials[(chunk * k + j) * 2 + {0, 1}] = sums over the chunk's rows of
// dy * xhat and dy in column j; grid (column blocks, row chunks).
template <typename T>
__global__ void layer_norm_column_sums_kernel(const T* x, const T* dy, const T* mean,
                                              const T* rstd, ColumnReducePlan p, int64_t rows,
                                              int64_t k, double* partials) {
  const int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (j >= k) return;
  const int64_t chunk = blockIdx.y;
  const IndexRange range = row_chunk_range(p, chunk, rows);
  Sum2 acc;
  for (int64_t r = range.begin; r < range.end; ++r) {
    const double g = static_cast<double>(dy[r * k + j]);
    acc.a += g * (static_cast<double>(x[r * k + j]) - static_cast<double>(mean[r])) *
             static_cast<double>(rstd[r]);
    acc.b += g;
  }
  partials[(chunk * k + j) * 2] = acc.a;
  partials[(chunk * k + j) * 2 + 1] = acc.b;
}

template <typename T>
__global__ void layer_norm_column_finalize_kernel(const double* partials, int64_t chunks,
                                                  int64_t k, T* dweight, T* dbias) {
  for (int64_t j = first_index(); j < k; j += grid_step()) {
    Sum2 total;
    for (int64_t c = 0; c < chunks; ++c) {
      total.a += partials[(c * k + j) * 2];
      total.b += partials[(c * k + j) * 2 + 1];
    }
    if (dweight) dweight[j] = static_cast<T>(total.a);
    if (dbias) dbias[j] = static_cast<T>(total.b);
  }
}

}  // namespace

void launch_batch_norm_train_forward(const BatchNormShape& d, const ChannelReducePlan& p,
                                     const void* x, const void* weight, const void* bias,
                                     double eps, void* y, void* mean, void* var, void* invstd,
                                     double* scratch) {
  const int64_t numel = d.n * d.c * d.s;
  if (numel == 0) return;
  DeviceGuard guard(d.device);
  dispatch_floating(d.dtype, "batch_norm", [&]<typename T>() {
    const T* xp = static_cast<const T*>(x);
    channel_sums_kernel<<<channel_grid(p), kReduceThreads, 0, 0>>>(p, d.s, StatsTerms<T>{xp, d.s},
                                                                    scratch);
    EMBER_CUDA_CHECK_LAUNCH();
    stats_finalize_kernel<T><<<blocks_for(d.c), kNnThreads, 0, 0>>>(
        scratch, p, xp, d.s, eps, static_cast<T*>(mean), static_cast<T*>(var),
        static_cast<T*>(invstd));
    EMBER_CUDA_CHECK_LAUNCH();
    apply_kernel<T><<<blocks_for(numel), kNnThreads, 0, 0>>>(
        xp, static_cast<T*>(y), numel, d.c, d.s, static_cast<const T*>(mean),
        static_cast<const T*>(invstd), static_cast<const T*>(weight),
        static_cast<const T*>(bias));
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

void launch_batch_norm_apply(const BatchNormShape& d, const void* x, const void* mean,
                             const void* invstd, const void* weight, const void* bias, void* y) {
  const int64_t numel = d.n * d.c * d.s;
  if (numel == 0) return;
  DeviceGuard guard(d.device);
  dispatch_floating(d.dtype, "batch_norm", [&]<typename T>() {
    apply_kernel<T><<<blocks_for(numel), kNnThreads, 0, 0>>>(
        static_cast<const T*>(x), static_cast<T*>(y), numel, d.c, d.s,
        static_cast<const T*>(mean), static_cast<const T*>(invstd),
        static_cast<const T*>(weight), static_cast<const T*>(bias));
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

void launch_batch_norm_backward(const BatchNormShape& d, const ChannelReducePlan& p,
                                const void* x, const void* dy, const void* mean,
                                const void* invstd, const void* weight, bool training, void* dx,
                                void* dweight, void* dbias, double* scratch) {
  if (d.c == 0) return;
  const int64_t numel = d.n * d.c * d.s;
  DeviceGuard guard(d.device);
  dispatch_floating(d.dtype, "batch_norm_backward", [&]<typename T>() {
    const T *xp = static_cast<const T*>(x), *gp = static_cast<const T*>(dy);
    const T* mp = static_cast<const T*>(mean);
    // With no values, every sum is 0 (an empty batch in eval).
    const bool sums = numel > 0 && (dweight || dbias || training);
    if (sums) {
      channel_sums_kernel<<<channel_grid(p), kReduceThreads, 0, 0>>>(
          p, d.s, GradTerms<T>{xp, gp, mp}, scratch);
      EMBER_CUDA_CHECK_LAUNCH();
    }
    double* coefficients = scratch + batch_norm_forward_scratch(p);
    grad_finalize_kernel<T><<<blocks_for(d.c), kNnThreads, 0, 0>>>(
        sums ? scratch : nullptr, p, static_cast<const T*>(invstd),
        static_cast<const T*>(weight), training, static_cast<T*>(dweight),
        static_cast<T*>(dbias), coefficients);
    EMBER_CUDA_CHECK_LAUNCH();
    if (dx && numel > 0) {
      grad_input_kernel<T><<<blocks_for(numel), kNnThreads, 0, 0>>>(
          xp, gp, static_cast<T*>(dx), numel, d.c, d.s, mp, coefficients);
      EMBER_CUDA_CHECK_LAUNCH();
    }
  });
}

void launch_layer_norm_forward(ScalarType t, int64_t rows, int64_t k, const void* x,
                               const void* weight, const void* bias, double eps, void* y,
                               void* mean, void* rstd, int device) {
  if (rows * k == 0) return;
  DeviceGuard guard(device);
  const RowReducePlan p = plan_row_reduce(rows, k);
  dispatch_floating(t, "layer_norm", [&]<typename T>() {
    layer_norm_forward_kernel<T><<<static_cast<unsigned>(p.blocks), p.threads, 0, 0>>>(
        static_cast<const T*>(x), static_cast<const T*>(weight), static_cast<const T*>(bias), eps,
        static_cast<T*>(y), static_cast<T*>(mean), static_cast<T*>(rstd), rows, k);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

void launch_layer_norm_backward(ScalarType t, int64_t rows, int64_t k, const void* x,
                                const void* dy, const void* mean, const void* rstd,
                                const void* weight, void* dx, void* dweight, void* dbias,
                                double* scratch, int device) {
  if (k == 0) return;
  DeviceGuard guard(device);
  dispatch_floating(t, "layer_norm_backward", [&]<typename T>() {
    const T *xp = static_cast<const T*>(x), *gp = static_cast<const T*>(dy);
    const T *mp = static_cast<const T*>(mean), *rp = static_cast<const T*>(rstd);
    if (dx && rows > 0) {
      const RowReducePlan p = plan_row_reduce(rows, k);
      layer_norm_grad_input_kernel<T><<<static_cast<unsigned>(p.blocks), p.threads, 0, 0>>>(
          xp, gp, mp, rp, static_cast<const T*>(weight), static_cast<T*>(dx), rows, k);
      EMBER_CUDA_CHECK_LAUNCH();
    }
    if (!dweight && !dbias) return;
    // rows == 0: a single empty chunk, so the finalize writes zeros.
    const ColumnReducePlan p = plan_column_reduce(rows, k);
    layer_norm_column_sums_kernel<T>
        <<<dim3(static_cast<unsigned>(p.column_blocks), static_cast<unsigned>(p.row_chunks)),
           kNnThreads, 0, 0>>>(xp, gp, mp, rp, p, rows, k, scratch);
    EMBER_CUDA_CHECK_LAUNCH();
    layer_norm_column_finalize_kernel<T><<<blocks_for(k), kNnThreads, 0, 0>>>(
        scratch, p.row_chunks, k, static_cast<T*>(dweight), static_cast<T*>(dbias));
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace ember::cuda::detail

namespace ember::cuda {

using detail::data_or_null;
using detail::device_of;

namespace {

detail::BatchNormShape batch_norm_shape(const Tensor& x) {
  const int64_t n = x.size(0), c = x.size(1);
  return {x.scalar_type(), n, c, n * c == 0 ? 0 : x.numel() / (n * c), device_of(x)};
}

Tensor scratch_doubles(const Tensor& like, int64_t count) {
  return empty({std::max<int64_t>(count, 1)}, TensorOptions().dtype(kDouble).device(like.device()));
}

}  // namespace

void batch_norm_train_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps,
                              const Tensor& y, const Tensor& mean, const Tensor& var,
                              const Tensor& invstd) {
  const detail::BatchNormShape d = batch_norm_shape(x);
  if (d.n * d.c * d.s == 0) return;
  const ChannelReducePlan p = plan_channel_reduce(d.n, d.c, d.s);
  const Tensor scratch = scratch_doubles(x, batch_norm_forward_scratch(p));
  detail::launch_batch_norm_train_forward(d, p, x.data_ptr(), data_or_null(weight),
                                          data_or_null(bias), eps, y.data_ptr(), mean.data_ptr(),
                                          var.data_ptr(), invstd.data_ptr(),
                                          scratch.data_ptr<double>());
}

void batch_norm_apply(const Tensor& x, const Tensor& mean, const Tensor& invstd,
                      const Tensor& weight, const Tensor& bias, const Tensor& y) {
  const detail::BatchNormShape d = batch_norm_shape(x);
  if (d.n * d.c * d.s == 0) return;
  detail::launch_batch_norm_apply(d, x.data_ptr(), mean.data_ptr(), invstd.data_ptr(),
                                  data_or_null(weight), data_or_null(bias), y.data_ptr());
}

void batch_norm_backward(const Tensor& x, const Tensor& dy, const Tensor& mean,
                         const Tensor& invstd, const Tensor& weight, bool training,
                         const Tensor& dx, const Tensor& dweight, const Tensor& dbias) {
  const detail::BatchNormShape d = batch_norm_shape(x);
  const ChannelReducePlan p = plan_channel_reduce(d.n, d.c, d.s);
  const Tensor scratch = scratch_doubles(x, batch_norm_backward_scratch(p));
  detail::launch_batch_norm_backward(d, p, x.data_ptr(), dy.data_ptr(), mean.data_ptr(),
                                     invstd.data_ptr(), data_or_null(weight), training,
                                     data_or_null(dx), data_or_null(dweight),
                                     data_or_null(dbias), scratch.data_ptr<double>());
}

void layer_norm_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps,
                        const Tensor& y, const Tensor& mean, const Tensor& rstd) {
  const int64_t rows = mean.numel(), k = rows == 0 ? 0 : x.numel() / rows;
  detail::launch_layer_norm_forward(x.scalar_type(), rows, k, x.data_ptr(), data_or_null(weight),
                                    data_or_null(bias), eps, y.data_ptr(), mean.data_ptr(),
                                    rstd.data_ptr(), device_of(x));
}

void layer_norm_backward(const Tensor& x, const Tensor& dy, const Tensor& mean, const Tensor& rstd,
                         const Tensor& weight, const Tensor& dx, const Tensor& dweight,
                         const Tensor& dbias) {
  const int64_t rows = mean.numel();
  const int64_t k = layer_norm_backward_row_length(x, mean, dweight, dbias);
  const bool columns = dweight.defined() || dbias.defined();
  const Tensor scratch = scratch_doubles(
      x, columns ? layer_norm_backward_scratch(plan_column_reduce(rows, k), k) : 0);
  detail::launch_layer_norm_backward(x.scalar_type(), rows, k, x.data_ptr(), dy.data_ptr(),
                                     mean.data_ptr(), rstd.data_ptr(), data_or_null(weight),
                                     data_or_null(dx), data_or_null(dweight),
                                     data_or_null(dbias), scratch.data_ptr<double>(),
                                     device_of(x));
}

}  // namespace ember::cuda
