// The CUDA indexing kernels: a grid-stride walk over the iteration shape of an
// IndexLaunch (kernels/common/cuda_plans/indexing_plan.h). gather and scatter move
// elements by size (one instantiation per element width, not per dtype);
// scatter_add adds with atomics, so repeated indices accumulate (atomicAdd,
// compare-and-swap for the 1- and 2-byte dtypes: floating sums land in no
// fixed order, so they are not deterministic); scatter_reduce's
// prod/amax/amin combine by compare-and-swap.
// Below them, the CUDA entry points of the indexing family's table
// (kernels/common/indexing_kernels.h): plan, then launch.
#include "ember/kernels/cuda/indexing_launch.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "ember/kernels/common/dtype_set.h"
#include "ember/kernels/cuda/cuda_check.h"
#include "ember/kernels/cuda/device_guard.h"
#include "ember/kernels/common/cuda_plans/host_helpers.h"
#include "ember/kernels/cuda/index_error_report.cuh"
#include "ember/kernels/cuda/indexing.h"

namespace ember::cuda::detail {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 65535;  // a grid-stride loop covers the rest

unsigned grid_for(int64_t n) {
  return static_cast<unsigned>(std::min<int64_t>((n + kThreads - 1) / kThreads, kMaxBlocks));
}

// Element i's operand offsets and its index k; false when k is outside the
// indexed dim, then recorded (kernels/cuda/index_error_report.cuh).
__device__ __forceinline__ bool element_index(const IndexLaunch& l, int64_t i,
                                              const int64_t* index, const char* op,
                                              const IndexErrorSink& errors, int64_t (&off)[3],
                                              int64_t& k) {
  index_launch_offsets(l, i, off);
  k = index[off[kIndexOperand]];
  if (k >= 0 && k < l.indexed_size) return true;
  report_index_error(errors, kBadIndex, op, k, l.indexed_size, l.dim, 0);
  return false;
}

template <typename T>
__global__ void gather_kernel(IndexLaunch l, T* dense, const T* indexed, const int64_t* index,
                              const char* op, IndexErrorSink errors) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < l.numel;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[3], k;
    if (!element_index(l, i, index, op, errors, off, k)) {
      dense[off[kDenseOperand]] = T(0);
      continue;
    }
    dense[off[kDenseOperand]] = indexed[off[kIndexedOperand] + k * l.indexed_stride];
  }
}

// *p = combine(*p, v) atomically by compare-and-swap. A 4- or 8-byte T
// swaps its own bits; a 1- or 2-byte T (uint8, int8, int16, float16,
// bfloat16) swaps the aligned 4-byte word that holds it, its neighbours'
// bytes unchanged.
template <typename T, typename Combine>
__device__ __forceinline__ void atomic_combine(T* p, T v, Combine combine) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);
  if constexpr (sizeof(T) < 4) {
    using Narrow = std::conditional_t<sizeof(T) == 1, uint8_t, uint16_t>;
    const uintptr_t address = reinterpret_cast<uintptr_t>(p);
    auto* word = reinterpret_cast<unsigned int*>(address & ~uintptr_t(3));
    const unsigned shift = static_cast<unsigned>(address & 3) * 8;
    constexpr unsigned kMask = sizeof(T) == 1 ? 0xffu : 0xffffu;
    unsigned int seen = *word, old;
    do {
      old = seen;
      const Narrow current_bits = static_cast<Narrow>((old >> shift) & kMask);
      T current;
      memcpy(&current, &current_bits, sizeof(T));
      const T next = combine(current, v);
      Narrow next_bits;
      memcpy(&next_bits, &next, sizeof(T));
      if (next_bits == current_bits) return;  // unchanged: nothing to write
      const unsigned int next_word = (old & ~(kMask << shift)) | (unsigned(next_bits) << shift);
      seen = atomicCAS(word, old, next_word);
    } while (seen != old);
  } else {
    using Bits = std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>;
    Bits* bits = reinterpret_cast<Bits*>(p);
    Bits seen = *bits, old;
    do {
      old = seen;
      T current;
      memcpy(&current, &old, sizeof(T));
      const T next = combine(current, v);
      Bits next_bits;
      memcpy(&next_bits, &next, sizeof(T));
      if (next_bits == old) return;  // unchanged: nothing to write
      seen = atomicCAS(bits, old, next_bits);
    } while (seen != old);
  }
}

__device__ __forceinline__ void atomic_add(float* p, float v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add(double* p, double v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 600
  // No native float64 atomicAdd before sm_60: a compare-and-swap loop.
  auto* bits = reinterpret_cast<unsigned long long*>(p);
  unsigned long long old = *bits, seen;
  do {
    seen = old;
    const double sum = __longlong_as_double(static_cast<long long>(seen)) + v;
    old = atomicCAS(bits, seen, static_cast<unsigned long long>(__double_as_longlong(sum)));
  } while (old != seen);
#else
  atomicAdd(p, v);
#endif
}
// Two's complement: an unsigned 64-bit add is the signed one.
__device__ __forceinline__ void atomic_add(int64_t* p, int64_t v) {
  atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}
__device__ __forceinline__ void atomic_add(int32_t* p, int32_t v) { atomicAdd(p, v); }
// The 1- and 2-byte dtypes: a compare-and-swap add (float16 and bfloat16 add
// in float and round once per add, as their += does).
template <typename T>
__device__ __forceinline__ void atomic_add(T* p, T v) {
  atomic_combine(p, v, [](T a, T b) { return static_cast<T>(a + b); });
}

template <typename T>
__global__ void scatter_add_kernel(IndexLaunch l, const T* dense, T* indexed,
                                   const int64_t* index, const char* op,
                                   IndexErrorSink errors) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < l.numel;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[3], k;
    if (!element_index(l, i, index, op, errors, off, k)) continue;
    atomic_add(indexed + off[kIndexedOperand] + k * l.indexed_stride, dense[off[kDenseOperand]]);
  }
}

// Scatter's plain store: with repeated positions, whichever write lands last wins.
template <typename T>
__global__ void scatter_kernel(IndexLaunch l, const T* dense, T* indexed, const int64_t* index,
                               const char* op, IndexErrorSink errors) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < l.numel;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[3], k;
    if (!element_index(l, i, index, op, errors, off, k)) continue;
    indexed[off[kIndexedOperand] + k * l.indexed_stride] = dense[off[kDenseOperand]];
  }
}

template <typename T, typename Combine>
__global__ void scatter_reduce_kernel(IndexLaunch l, const T* dense, T* indexed,
                                      const int64_t* index, const char* op,
                                      IndexErrorSink errors, Combine combine) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < l.numel;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[3], k;
    if (!element_index(l, i, index, op, errors, off, k)) continue;
    atomic_combine(indexed + off[kIndexedOperand] + k * l.indexed_stride,
                   dense[off[kDenseOperand]], combine);
  }
}

// one_hot's store: each row of out has one mark, so a plain store of 1 is
// the scatter_add of ones it stands for.
__global__ void one_hot_kernel(IndexLaunch l, int64_t* indexed, const int64_t* index,
                               const char* op, IndexErrorSink errors) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < l.numel;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[3], k;
    if (!element_index(l, i, index, op, errors, off, k)) continue;
    indexed[off[kIndexedOperand] + k * l.indexed_stride] = 1;
  }
}

template <typename T>
void scatter_as(const char* op, const IndexLaunch& l, const void* dense, void* indexed,
                const int64_t* index, const IndexErrorSink& errors) {
  scatter_kernel<T><<<grid_for(l.numel), kThreads, 0, 0>>>(
      l, static_cast<const T*>(dense), static_cast<T*>(indexed), index, op, errors);
  EMBER_CUDA_CHECK_LAUNCH();
}

template <typename T>
void gather_as(const char* op, const IndexLaunch& l, void* dense, const void* indexed,
               const int64_t* index, const IndexErrorSink& errors) {
  gather_kernel<T><<<grid_for(l.numel), kThreads, 0, 0>>>(
      l, static_cast<T*>(dense), static_cast<const T*>(indexed), index, op, errors);
  EMBER_CUDA_CHECK_LAUNCH();
}

}  // namespace

void launch_gather(const char* op, const IndexLaunch& l, ScalarType dtype, void* dense,
                   const void* indexed, const int64_t* index, int device,
                   const IndexErrorSink& errors) {
  if (l.numel == 0) return;
  DeviceGuard guard(device);
  switch (element_size(dtype)) {
    case 1: return gather_as<uint8_t>(op, l, dense, indexed, index, errors);
    case 2: return gather_as<uint16_t>(op, l, dense, indexed, index, errors);
    case 4: return gather_as<uint32_t>(op, l, dense, indexed, index, errors);
    case 8: return gather_as<uint64_t>(op, l, dense, indexed, index, errors);
  }
  EMBER_INTERNAL_ASSERT(false, op, ": no gather kernel for ", dtype);
}

void launch_scatter_add(const char* op, const IndexLaunch& l, ScalarType dtype,
                        const void* dense, void* indexed, const int64_t* index, int device,
                        const IndexErrorSink& errors) {
  dispatch_numeric_storage(dtype, op, [&]<typename T>() {
    if (l.numel == 0) return;
    DeviceGuard guard(device);
    scatter_add_kernel<T><<<grid_for(l.numel), kThreads, 0, 0>>>(
        l, static_cast<const T*>(dense), static_cast<T*>(indexed), index, op, errors);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

void launch_scatter(const char* op, const IndexLaunch& l, ScalarType dtype, const void* dense,
                    void* indexed, const int64_t* index, int device,
                    const IndexErrorSink& errors) {
  if (l.numel == 0) return;
  DeviceGuard guard(device);
  switch (element_size(dtype)) {
    case 1: return scatter_as<uint8_t>(op, l, dense, indexed, index, errors);
    case 2: return scatter_as<uint16_t>(op, l, dense, indexed, index, errors);
    case 4: return scatter_as<uint32_t>(op, l, dense, indexed, index, errors);
    case 8: return scatter_as<uint64_t>(op, l, dense, indexed, index, errors);
  }
  EMBER_INTERNAL_ASSERT(false, op, ": no scatter kernel for ", dtype);
}

void launch_scatter_reduce(const char* op, const IndexLaunch& l, ScalarType dtype,
                           const void* dense, void* indexed, const int64_t* index, int device,
                           const IndexErrorSink& errors, functors::ScatterReduce reduce) {
  dispatch_numeric_storage(dtype, op, [&]<typename T>() {
    if (l.numel == 0) return;
    DeviceGuard guard(device);
    auto launch = [&](auto combine) {
      scatter_reduce_kernel<<<grid_for(l.numel), kThreads, 0, 0>>>(
          l, static_cast<const T*>(dense), static_cast<T*>(indexed), index, op, errors, combine);
      EMBER_CUDA_CHECK_LAUNCH();
    };
    switch (reduce) {
      case functors::ScatterReduce::kProd: return launch(functors::ScatterProd<T>{});
      case functors::ScatterReduce::kAmax: return launch(functors::ScatterAmax<T>{});
      case functors::ScatterReduce::kAmin: return launch(functors::ScatterAmin<T>{});
    }
  });
}

void launch_one_hot(const char* op, const IndexLaunch& l, int64_t* indexed,
                    const int64_t* index, int device, const IndexErrorSink& errors) {
  if (l.numel == 0) return;
  DeviceGuard guard(device);
  one_hot_kernel<<<grid_for(l.numel), kThreads, 0, 0>>>(l, indexed, index, op, errors);
  EMBER_CUDA_CHECK_LAUNCH();
}

}  // namespace ember::cuda::detail

namespace ember::cuda {

using detail::device_of;

std::optional<int64_t> find_out_of_range(const Tensor&, int64_t, int64_t) {
  return std::nullopt;
}

namespace {

// gather and index_select: one gather launch, planned by plan() (not called
// when there is nothing to do).
template <typename Plan>
void run_gather(const char* op, const Tensor& out, const Tensor& self, const Tensor& index,
                Plan plan) {
  detail::raise_reported_index_error();
  if (out.numel() == 0) return;
  detail::launch_gather(op, plan(), self.scalar_type(), out.data_ptr(), self.data_ptr(),
                        index.data_ptr<int64_t>(), device_of(self),
                        detail::index_error_sink(device_of(self)));
}

}  // namespace

void gather(const char* op, const Tensor& out, const Tensor& self, int64_t dim,
            const Tensor& index) {
  run_gather(op, out, self, index, [&] { return plan_gather(op, out, self, dim, index); });
}

void index_select(const char* op, const Tensor& out, const Tensor& self, int64_t dim,
                  const Tensor& index) {
  run_gather(op, out, self, index, [&] { return plan_index_select(op, out, self, dim, index); });
}

void scatter_add(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                 const Tensor& src) {
  dispatch_numeric_storage(self.scalar_type(), op, [&]<typename>() {});  // as the CPU, even when empty
  detail::raise_reported_index_error();
  if (index.numel() == 0) return;
  detail::launch_scatter_add(op, plan_scatter_add(op, self, dim, index, src),
                             self.scalar_type(), src.data_ptr(), self.data_ptr(),
                             index.data_ptr<int64_t>(), device_of(self),
                             detail::index_error_sink(device_of(self)));
}

void scatter(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
             const Tensor& src) {
  detail::raise_reported_index_error();
  if (index.numel() == 0) return;
  detail::launch_scatter(op, plan_scatter_add(op, self, dim, index, src), self.scalar_type(),
                         src.data_ptr(), self.data_ptr(), index.data_ptr<int64_t>(),
                         device_of(self), detail::index_error_sink(device_of(self)));
}

void scatter_reduce(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                    const Tensor& src, functors::ScatterReduce reduce) {
  dispatch_numeric_storage(self.scalar_type(), op, [&]<typename>() {});  // as the CPU, even when empty
  detail::raise_reported_index_error();
  if (index.numel() == 0) return;
  detail::launch_scatter_reduce(op, plan_scatter_add(op, self, dim, index, src),
                                self.scalar_type(), src.data_ptr(), self.data_ptr(),
                                index.data_ptr<int64_t>(), device_of(self),
                                detail::index_error_sink(device_of(self)), reduce);
}

void one_hot(const Tensor& out, const Tensor& indices) {
  detail::raise_reported_index_error();
  if (indices.numel() == 0) return;
  // The plan of a scatter along dim 1 with indices as the (unread) source.
  detail::launch_one_hot("one_hot", plan_scatter_add("one_hot", out, 1, indices, indices),
                         out.data_ptr<int64_t>(), indices.data_ptr<int64_t>(), device_of(out),
                         detail::index_error_sink(device_of(out)));
}

}  // namespace ember::cuda
