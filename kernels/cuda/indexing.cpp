// The host half of the CUDA indexing ops: plans each launch from the tensors
// and owns the out-of-range report the kernels write (kernels/cuda/indexing.h).
// Compiled in every build; without CUDA each op raises.
#include "ember/kernels/cuda/indexing.h"

#include <algorithm>
#include <atomic>

#include "ember/core/error.h"

#ifdef EMBER_WITH_CUDA
#include <cuda_runtime.h>

#include "ember/kernels/cuda/cuda_check.h"
#include "ember/kernels/cuda/device_guard.h"
#include "ember/kernels/cuda/indexing_launch.h"
#include "ember/kernels/cuda/sync_count.h"
#endif

namespace ember::cuda {
namespace {

// index's strides seen over the iteration shape of index_select: the 1-d
// index runs along dim and is broadcast (stride 0) over every other dim.
DimVector index_select_index_strides(int64_t ndim, int64_t dim, const Tensor& index) {
  DimVector strides(static_cast<size_t>(ndim), 0);
  strides[dim] = index.stride(0);
  return strides;
}

#ifdef EMBER_WITH_CUDA

int device_of(const Tensor& t) { return std::max(t.device().index(), 0); }

// One report for the process, in pinned host memory mapped into every
// device's address space (portable): a kernel writes it over the bus only when
// it finds a bad index, and the host reads it with no sync. Allocated once,
// on the first CUDA indexing op, and kept for the process's life.
IndexErrorReport* host_report() {
  static IndexErrorReport* report = [] {
    void* p = nullptr;
    EMBER_CUDA_CHECK(cudaHostAlloc(&p, sizeof(IndexErrorReport),
                                   cudaHostAllocMapped | cudaHostAllocPortable));
    *static_cast<IndexErrorReport*>(p) = IndexErrorReport{};
    return static_cast<IndexErrorReport*>(p);
  }();
  return report;
}

IndexErrorReport* device_report() {
  void* d = nullptr;
  EMBER_CUDA_CHECK(cudaHostGetDevicePointer(&d, host_report(), 0));
  return static_cast<IndexErrorReport*>(d);
}

// Raises the Error of a bad index an earlier kernel reported, and clears it.
void raise_reported_index_error() {
  volatile IndexErrorReport* r = host_report();
  if (r->status == 0) return;
  std::atomic_thread_fence(std::memory_order_acquire);
  const int64_t value = r->value, size = r->size, dim = r->dim;
  const char* op = reinterpret_cast<const char*>(static_cast<uintptr_t>(r->op));
  r->status = 0;
  EMBER_ERROR(op, ": index ", value, " is out of bounds for dimension ", dim, " with size ",
              size, size > 0 ? ::ember::detail::str_cat(" (valid range [0, ", size - 1, "])")
                             : std::string(" (no valid index)"),
              "; found by a CUDA kernel of an earlier call (reported asynchronously)");
}

#else

[[noreturn]] void no_cuda(const char* op, const Tensor& t) {
  EMBER_ERROR(op, ": ", t.toString(), " needs the CUDA backend");
}

#endif

}  // namespace

IndexLaunch plan_gather(const char* op, const Tensor& out, const Tensor& self, int64_t dim,
                        const Tensor& index) {
  return make_index_launch(op, index.sizes(), out.strides(), index.strides(), self.strides(),
                           dim, self.size(dim));
}

IndexLaunch plan_index_select(const char* op, const Tensor& out, const Tensor& self,
                              int64_t dim, const Tensor& index) {
  const DimVector index_strides = index_select_index_strides(out.dim(), dim, index);
  return make_index_launch(op, out.sizes(), out.strides(), index_strides.ref(), self.strides(),
                           dim, self.size(dim));
}

IndexLaunch plan_scatter_add(const char* op, const Tensor& self, int64_t dim,
                             const Tensor& index, const Tensor& src) {
  return make_index_launch(op, index.sizes(), src.strides(), index.strides(), self.strides(),
                           dim, self.size(dim));
}

void gather(const char* op, const Tensor& out, const Tensor& self, int64_t dim,
            const Tensor& index) {
#ifdef EMBER_WITH_CUDA
  raise_reported_index_error();
  if (out.numel() == 0) return;
  detail::launch_gather(op, plan_gather(op, out, self, dim, index), self.scalar_type(),
                        out.data_ptr(), self.data_ptr(), index.data_ptr<int64_t>(),
                        device_of(self), device_report());
#else
  (void)out, (void)dim, (void)index;
  no_cuda(op, self);
#endif
}

void index_select(const char* op, const Tensor& out, const Tensor& self, int64_t dim,
                  const Tensor& index) {
#ifdef EMBER_WITH_CUDA
  raise_reported_index_error();
  if (out.numel() == 0) return;
  detail::launch_gather(op, plan_index_select(op, out, self, dim, index), self.scalar_type(),
                        out.data_ptr(), self.data_ptr(), index.data_ptr<int64_t>(),
                        device_of(self), device_report());
#else
  (void)out, (void)dim, (void)index;
  no_cuda(op, self);
#endif
}

void scatter_add(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                 const Tensor& src) {
#ifdef EMBER_WITH_CUDA
  raise_reported_index_error();
  if (index.numel() == 0) return;
  detail::launch_scatter_add(op, plan_scatter_add(op, self, dim, index, src),
                             self.scalar_type(), src.data_ptr(), self.data_ptr(),
                             index.data_ptr<int64_t>(), device_of(self), device_report());
#else
  (void)dim, (void)index, (void)src;
  no_cuda(op, self);
#endif
}

void check_index_errors() {
#ifdef EMBER_WITH_CUDA
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) return;
  // The kernels of earlier calls must have run for their reports to be seen.
  EMBER_CUDA_CHECK(cudaDeviceSynchronize());
  detail::count_sync();
  raise_reported_index_error();
#endif
}

}  // namespace ember::cuda
