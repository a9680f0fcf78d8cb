// The CUDA indexing kernels: a grid-stride walk over the iteration shape of an
// IndexLaunch (kernels/cuda/indexing_plan.h). gather moves elements by size
// (one instantiation per element width, not per dtype); scatter_add adds
// with atomics, so repeated indices accumulate.
#include "ember/kernels/cuda/indexing_launch.h"

#include <algorithm>

#include "ember/kernels/cuda/cuda_check.h"
#include "ember/kernels/cuda/device_guard.h"

namespace ember::cuda::detail {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 65535;  // a grid-stride loop covers the rest

unsigned grid_for(int64_t n) {
  return static_cast<unsigned>(std::min<int64_t>((n + kThreads - 1) / kThreads, kMaxBlocks));
}

// The claim of this device's report (Note [Index error report] in
// kernels/cuda/indexing.cpp): the first bad thread since the last report
// takes it and alone writes the report, so its fields all come from one
// thread; every other bad thread stays quiet until the host frees it.
__device__ unsigned int index_error_claim = 0;

// Records an out-of-range index. The fence orders the fields before the
// status the host polls.
__device__ void report_bad_index(IndexErrorReport* r, const char* op, const IndexLaunch& l,
                                 int64_t value) {
  if (*static_cast<volatile unsigned int*>(&index_error_claim) != 0u) return;  // cheap pre-check
  if (atomicCAS(&index_error_claim, 0u, 1u) != 0u) return;
  volatile IndexErrorReport* v = r;
  v->value = value;
  v->size = l.indexed_size;
  v->dim = l.dim;
  v->op = reinterpret_cast<uint64_t>(op);
  __threadfence_system();
  v->status = 1;
}

template <typename T>
__global__ void gather_kernel(IndexLaunch l, T* dense, const T* indexed, const int64_t* index,
                              const char* op, IndexErrorReport* report) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < l.numel;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[3];
    index_launch_offsets(l, i, off);
    const int64_t k = index[off[kIndexOperand]];
    if (k < 0 || k >= l.indexed_size) {
      report_bad_index(report, op, l, k);
      dense[off[kDenseOperand]] = T(0);
      continue;
    }
    dense[off[kDenseOperand]] = indexed[off[kIndexedOperand] + k * l.indexed_stride];
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

template <typename T>
__global__ void scatter_add_kernel(IndexLaunch l, const T* dense, T* indexed,
                                   const int64_t* index, const char* op,
                                   IndexErrorReport* report) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < l.numel;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[3];
    index_launch_offsets(l, i, off);
    const int64_t k = index[off[kIndexOperand]];
    if (k < 0 || k >= l.indexed_size) {
      report_bad_index(report, op, l, k);
      continue;
    }
    atomic_add(indexed + off[kIndexedOperand] + k * l.indexed_stride, dense[off[kDenseOperand]]);
  }
}

template <typename T>
void gather_as(const char* op, const IndexLaunch& l, void* dense, const void* indexed,
               const int64_t* index, IndexErrorReport* report) {
  gather_kernel<T><<<grid_for(l.numel), kThreads, 0, 0>>>(
      l, static_cast<T*>(dense), static_cast<const T*>(indexed), index, op, report);
  EMBER_CUDA_CHECK_LAUNCH();
}

}  // namespace

void reset_index_error_claim(int device) {
  DeviceGuard guard(device);
  void* claim = nullptr;
  EMBER_CUDA_CHECK(cudaGetSymbolAddress(&claim, index_error_claim));
  // On the stream: kernels queued before the reset still find the claim taken.
  EMBER_CUDA_CHECK(cudaMemsetAsync(claim, 0, sizeof(unsigned int), /*legacy default stream*/ 0));
}

void launch_gather(const char* op, const IndexLaunch& l, ScalarType dtype, void* dense,
                   const void* indexed, const int64_t* index, int device,
                   IndexErrorReport* report) {
  if (l.numel == 0) return;
  DeviceGuard guard(device);
  switch (element_size(dtype)) {
    case 1: return gather_as<uint8_t>(op, l, dense, indexed, index, report);
    case 4: return gather_as<uint32_t>(op, l, dense, indexed, index, report);
    case 8: return gather_as<uint64_t>(op, l, dense, indexed, index, report);
  }
  EMBER_INTERNAL_ASSERT(false, op, ": no gather kernel for ", dtype);
}

void launch_scatter_add(const char* op, const IndexLaunch& l, ScalarType dtype,
                        const void* dense, void* indexed, const int64_t* index, int device,
                        IndexErrorReport* report) {
  dispatch_numeric(dtype, op, [&]<typename T>() {
    if (l.numel == 0) return;
    DeviceGuard guard(device);
    scatter_add_kernel<T><<<grid_for(l.numel), kThreads, 0, 0>>>(
        l, static_cast<const T*>(dense), static_cast<T*>(indexed), index, op, report);
    EMBER_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace ember::cuda::detail
