// The host half of the out-of-range report the CUDA indexing kernels write
// (kernels/cuda/indexing.h), which the cross-entropy kernels share. The entry
// points are in indexing_kernels.cu, the launch plans in
// kernels/common/cuda_plans/index_launch.cpp.
#include "ember/kernels/cuda/indexing.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>

#include "ember/core/cuda/runtime.h"
#include "ember/core/cuda/sync_count.h"
#include "ember/core/error.h"
#include "ember/kernels/cuda/cuda_check.h"
#include "ember/kernels/cuda/device_guard.h"

namespace ember::cuda {

namespace {

// Note [Index error report]
// Each device has one report (IndexErrorReport) in pinned host memory mapped
// into every device's address space, and one claim word in its own memory
// (made on its first reporting launch). A kernel is given both addresses
// (IndexErrorSink), so the kernels of any .cu file can report: the indexing
// kernels an index outside its dim, cross_entropy's forward and
// check_class_targets (kernels/cuda/cross_entropy.h) a class target outside
// [0, C) that is not ignore_index; the report's kind picks the message. The
// device code is in index_error_report.cuh. The first bad thread on a device
// since the last report takes the claim (atomicCAS), writes the fields, then
// the status; no other thread writes until the claim is freed, so the fields
// are never a mix of two threads' values. The host reads the status without
// a sync; when it is set it reads the fields, clears the status and queues
// the claim's reset on the stream before it raises. Bad threads of kernels
// queued before that reset still find the claim taken, so a launch (and the
// launches queued with it) is reported once: the first bad value wins, as
// with PyTorch's device asserts, but the context stays usable.

// One device's report and claim addresses, made on its first reporting launch.
struct DeviceSink {
  std::atomic<bool> ready{false};
  IndexErrorSink sink;  // set before ready
};

struct Reports {
  IndexErrorReport* host = nullptr;  // one per device
  DeviceSink* sinks = nullptr;       // one per device
  int count = 0;
};

std::atomic<Reports*> made_reports{nullptr};
std::mutex report_mutex;                   // raises a report once across host threads
std::mutex sink_mutex;                     // makes each device's sink once
std::atomic<uint64_t> launched_devices{0};  // bit d: a reporting kernel ran on device d

// Allocated on the first reporting launch and kept for the process's life.
const Reports& reports() {
  static const Reports* r = [] {
    auto* made = new Reports;
    made->count = std::max(device_count(), 1);
    made->sinks = new DeviceSink[made->count];
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

}  // namespace

namespace detail {

IndexErrorSink index_error_sink(int device) {
  const Reports& r = reports();
  EMBER_INTERNAL_ASSERT(device >= 0 && device < r.count, "index report: device ", device, " of ",
                        r.count);
  if (device < 64) launched_devices.fetch_or(uint64_t(1) << device, std::memory_order_relaxed);
  DeviceSink& s = r.sinks[device];
  if (!s.ready.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(sink_mutex);
    if (!s.ready.load(std::memory_order_relaxed)) {
      DeviceGuard guard(device);
      void* report = nullptr;
      EMBER_CUDA_CHECK(cudaHostGetDevicePointer(&report, r.host + device, 0));
      void* claim = nullptr;  // kept for the process's life, as the reports
      EMBER_CUDA_CHECK(cudaMalloc(&claim, sizeof(unsigned int)));
      // On the legacy default stream, before any kernel that gets the claim.
      EMBER_CUDA_CHECK(cudaMemsetAsync(claim, 0, sizeof(unsigned int), 0));
      s.sink.report = static_cast<IndexErrorReport*>(report);
      s.sink.claim = static_cast<unsigned int*>(claim);
      s.ready.store(true, std::memory_order_release);
    }
  }
  return s.sink;
}

void raise_reported_index_error() {
  const Reports* r = made_reports.load(std::memory_order_acquire);
  if (r == nullptr) return;  // no reporting kernel ever ran
  for (int device = 0; device < r->count; ++device) {
    volatile IndexErrorReport* v = r->host + device;
    if (v->status == 0) continue;
    std::lock_guard<std::mutex> lock(report_mutex);
    if (v->status == 0) continue;  // another host thread raised it
    std::atomic_thread_fence(std::memory_order_acquire);
    const int64_t value = v->value, size = v->size, dim = v->dim, ignore_index = v->ignore_index;
    const uint32_t kind = v->kind;
    const char* op = reinterpret_cast<const char*>(static_cast<uintptr_t>(v->op));
    v->status = 0;
    const DeviceSink& s = r->sinks[device];
    EMBER_INTERNAL_ASSERT(s.ready.load(std::memory_order_acquire), "index report: device ",
                          device, " reported without a claim");
    {
      DeviceGuard guard(device);
      // On the stream: kernels queued before the reset still find the claim taken.
      EMBER_CUDA_CHECK(cudaMemsetAsync(s.sink.claim, 0, sizeof(unsigned int),
                                       /*legacy default stream*/ 0));
    }
    const char* found = "; found by a CUDA kernel of an earlier call (reported asynchronously)";
    if (kind == kBadClassTarget)
      EMBER_ERROR(op, ": target ", value, " is out of bounds for ", size,
                  " classes (valid range [0, ", size - 1, "], or ignore_index ", ignore_index,
                  ")", found);
    EMBER_ERROR(op, ": index ", value, " is out of bounds for dimension ", dim, " with size ",
                size, size > 0 ? ::ember::detail::str_cat(" (valid range [0, ", size - 1, "])")
                               : std::string(" (no valid index)"),
                found);
  }
}

}  // namespace detail

namespace hooks {

void check_index_errors() {
  if (made_reports.load(std::memory_order_acquire) == nullptr) return;  // nothing ever ran
  // The kernels of earlier calls must have run for their reports to be seen.
  const uint64_t devices = launched_devices.load(std::memory_order_relaxed);
  for (int device = 0; device < 64; ++device) {
    if ((devices >> device & 1) == 0) continue;
    DeviceGuard guard(device);
    EMBER_CUDA_CHECK(cudaDeviceSynchronize());
    detail::count_sync();
  }
  detail::raise_reported_index_error();
}

}  // namespace hooks

}  // namespace ember::cuda
