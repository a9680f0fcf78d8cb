// The host half of the CUDA indexing ops: plans each launch from the tensors
// and owns the out-of-range report the kernels write (kernels/cuda/indexing.h).
// Compiled in every build; without CUDA each op raises.
#include "ember/kernels/cuda/indexing.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>

#include "ember/core/error.h"

#ifdef EMBER_WITH_CUDA
#include <cuda_runtime.h>

#include "ember/kernels/cuda/cuda_check.h"
#include "ember/kernels/cuda/cuda_runtime.h"
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

// Note [Index error report]
// Each device has one report (IndexErrorReport) in pinned host memory mapped
// into every device's address space, and one claim word in its own memory
// (indexing_kernels.cu). The first bad thread on a device since the last
// report takes the claim (atomicCAS), writes the fields, then the status;
// no other thread writes until the claim is freed, so the fields are never a
// mix of two threads' values. The host reads the status without a sync;
// when it is set it reads the fields, clears the status and queues the
// claim's reset on the stream before it raises. Bad threads of kernels
// queued before that reset still find the claim taken, so a launch (and
// the launches queued with it) is reported once: the first bad index wins,
// as with PyTorch's device asserts, but the context stays usable.
struct Reports {
  IndexErrorReport* host = nullptr;  // one per device
  int count = 0;
};

std::atomic<Reports*> made_reports{nullptr};
std::mutex report_mutex;                   // raises a report once across host threads
std::atomic<uint64_t> launched_devices{0};  // bit d: an indexing kernel ran on device d

// Allocated on the first CUDA indexing launch and kept for the process's life.
const Reports& reports() {
  static const Reports* r = [] {
    auto* made = new Reports;
    made->count = std::max(device_count(), 1);
    void* p = nullptr;
    EMBER_CUDA_CHECK(cudaHostAlloc(&p, sizeof(IndexErrorReport) * made->count,
                                   cudaHostAllocMapped | cudaHostAllocPortable));
    std::memset(p, 0, sizeof(IndexErrorReport) * made->count);
    made->host = static_cast<IndexErrorReport*>(p);
    made_reports.store(made, std::memory_order_release);
    return made;
  }();
  return *r;
}

// The device address of `device`'s report, noting that a kernel will run there.
IndexErrorReport* device_report(int device) {
  const Reports& r = reports();
  EMBER_INTERNAL_ASSERT(device >= 0 && device < r.count, "index report: device ", device, " of ",
                        r.count);
  if (device < 64) launched_devices.fetch_or(uint64_t(1) << device, std::memory_order_relaxed);
  DeviceGuard guard(device);
  void* d = nullptr;
  EMBER_CUDA_CHECK(cudaHostGetDevicePointer(&d, r.host + device, 0));
  return static_cast<IndexErrorReport*>(d);
}

// Raises the Error of a bad index an earlier kernel reported (Note [Index error report]).
void raise_reported_index_error() {
  const Reports* r = made_reports.load(std::memory_order_acquire);
  if (r == nullptr) return;  // no indexing kernel ever ran
  for (int device = 0; device < r->count; ++device) {
    volatile IndexErrorReport* v = r->host + device;
    if (v->status == 0) continue;
    std::lock_guard<std::mutex> lock(report_mutex);
    if (v->status == 0) continue;  // another host thread raised it
    std::atomic_thread_fence(std::memory_order_acquire);
    const int64_t value = v->value, size = v->size, dim = v->dim;
    const char* op = reinterpret_cast<const char*>(static_cast<uintptr_t>(v->op));
    v->status = 0;
    detail::reset_index_error_claim(device);
    EMBER_ERROR(op, ": index ", value, " is out of bounds for dimension ", dim, " with size ",
                size, size > 0 ? ::ember::detail::str_cat(" (valid range [0, ", size - 1, "])")
                               : std::string(" (no valid index)"),
                "; found by a CUDA kernel of an earlier call (reported asynchronously)");
  }
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
                        device_of(self), device_report(device_of(self)));
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
                        device_of(self), device_report(device_of(self)));
#else
  (void)out, (void)dim, (void)index;
  no_cuda(op, self);
#endif
}

void scatter_add(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                 const Tensor& src) {
  dispatch_numeric(self.scalar_type(), op, []<typename>() {});  // as the CPU, even when empty
#ifdef EMBER_WITH_CUDA
  raise_reported_index_error();
  if (index.numel() == 0) return;
  detail::launch_scatter_add(op, plan_scatter_add(op, self, dim, index, src),
                             self.scalar_type(), src.data_ptr(), self.data_ptr(),
                             index.data_ptr<int64_t>(), device_of(self),
                             device_report(device_of(self)));
#else
  (void)dim, (void)index, (void)src;
  no_cuda(op, self);
#endif
}

void check_index_errors() {
#ifdef EMBER_WITH_CUDA
  if (made_reports.load(std::memory_order_acquire) == nullptr) return;  // nothing ever ran
  // The kernels of earlier calls must have run for their reports to be seen.
  const uint64_t devices = launched_devices.load(std::memory_order_relaxed);
  for (int device = 0; device < 64; ++device) {
    if ((devices >> device & 1) == 0) continue;
    DeviceGuard guard(device);
    EMBER_CUDA_CHECK(cudaDeviceSynchronize());
    detail::count_sync();
  }
  raise_reported_index_error();
#endif
}

}  // namespace ember::cuda
