// The pinned host allocator: a PinnedBlockPool over cudaHostAlloc /
// cudaFreeHost with cudaEvent completion markers (pinned_memory.h).
#include "ember/kernels/cuda/pinned_memory.h"

#include <cuda_runtime.h>

#include <atomic>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "ember/core/cuda/runtime.h"
#include "ember/core/error.h"
#include "ember/kernels/common/cuda_plans/pinned_memory_pool.h"
#include "ember/kernels/cuda/cuda_check.h"
#include "ember/kernels/cuda/device_guard.h"

namespace ember::cuda {

namespace {

class HostRawAllocator final : public RawAllocator {
 public:
  void* malloc(size_t nbytes, StreamId /*stream*/) override {
    void* ptr = nullptr;
    // Portable: pinned for every device, whichever is current now.
    const cudaError_t status = cudaHostAlloc(&ptr, nbytes, cudaHostAllocPortable);
    if (status == cudaErrorMemoryAllocation) {
      cudaGetLastError();  // clear it, or the next checked call would report it
      return nullptr;
    }
    EMBER_CHECK(status == cudaSuccess, "cudaHostAlloc(", nbytes, " bytes): ",
                cudaGetErrorString(status), " (", __FILE__, ":", __LINE__, ")");
    return ptr;
  }

  void free(void* ptr) override { EMBER_CUDA_CHECK(cudaFreeHost(ptr)); }
};

// cudaEvents without timing (cheaper to record), recycled per device: an
// event must be recorded on a stream of the device it was made on.
class CudaEvents final : public CompletionEvents {
 public:
  Event record(int device) override {
    DeviceGuard guard(device);
    cudaEvent_t event = take(device);
    EMBER_CUDA_CHECK(cudaEventRecord(event, /*legacy default stream*/ nullptr));
    return event;
  }

  bool query(Event event) override {
    const cudaError_t status = cudaEventQuery(static_cast<cudaEvent_t>(event));
    if (status == cudaErrorNotReady) {
      cudaGetLastError();  // not an error: clear it
      return false;
    }
    // Any other status is a sticky device error (or the driver shutting
    // down): no copy will touch the block again. Throwing here would reach
    // a storage's destructor and terminate the program.
    if (status != cudaSuccess) cudaGetLastError();
    return true;
  }

  void release(Event event) override {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = device_of_.find(event);
    EMBER_INTERNAL_ASSERT(it != device_of_.end(), "pinned memory: releasing an unknown event");
    free_[it->second].push_back(static_cast<cudaEvent_t>(event));
  }

 private:
  cudaEvent_t take(int device) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<cudaEvent_t>& free = free_[device];
    if (!free.empty()) {
      cudaEvent_t event = free.back();
      free.pop_back();
      return event;
    }
    cudaEvent_t event = nullptr;
    EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    device_of_[event] = device;
    return event;
  }

  std::mutex mutex_;
  std::unordered_map<int, std::vector<cudaEvent_t>> free_;
  std::unordered_map<Event, int> device_of_;  // every event made, by the device it was made on
};

// The allocator pinned Storage keeps. Pinned tensors are CPU tensors.
class PinnedAllocator final : public Allocator {
 public:
  PinnedAllocator() : pool_(raw_, events_, "pinned host memory") {}
  void* allocate(size_t nbytes) override { return pool_.allocate(nbytes); }
  void deallocate(void* ptr, size_t /*nbytes*/) override {
    if (ptr != nullptr) pool_.deallocate(ptr);
  }
  Device device() const override { return Device(kCPU); }
  PinnedBlockPool& pool() { return pool_; }

 private:
  HostRawAllocator raw_;
  CudaEvents events_;
  PinnedBlockPool pool_;
};

// Made on first use (so a program that never pins does not start the
// driver); never destroyed: cudaFreeHost after the driver shut down would fail.
std::atomic<PinnedAllocator*> made{nullptr};

PinnedAllocator& instance() {
  static PinnedAllocator* allocator = [] {
    auto* a = new PinnedAllocator();
    made.store(a, std::memory_order_release);
    return a;
  }();
  return *allocator;
}

// The allocator when something was ever pinned, else null (the queries below
// then answer without starting the driver).
PinnedAllocator* existing() { return made.load(std::memory_order_acquire); }

}  // namespace

namespace hooks {

MemoryStats host_memory_stats() {
  PinnedAllocator* a = existing();
  return a ? a->pool().stats() : MemoryStats{};
}

void reset_peak_host_memory_stats() {
  if (PinnedAllocator* a = existing()) a->pool().reset_peak();
}

void host_empty_cache() {
  if (PinnedAllocator* a = existing()) a->pool().empty_cache();
}

Allocator* pinned_allocator(const char* op) {
  EMBER_CHECK(is_available(), op, ": pinned (page-locked) host memory needs a CUDA device, and "
              "none is available (", build_info(), ")");
  return &instance();
}

bool is_pinned(const void* block) {
  PinnedAllocator* a = existing();
  return a != nullptr && block != nullptr && a->pool().owns(block);
}

}  // namespace hooks

namespace detail {

void record_pinned_use(const void* block, int device) {
  if (PinnedAllocator* a = existing()) a->pool().record_use(block, device);
}

}  // namespace detail

}  // namespace ember::cuda
