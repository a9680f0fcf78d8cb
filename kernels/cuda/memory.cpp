// The CUDA caching allocator: one BlockPool per device over cudaMalloc /
// cudaFree (memory.h).
#include "ember/kernels/cuda/memory.h"

#include <cuda_runtime.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ember/core/cuda/runtime.h"
#include "ember/core/error.h"
#include "ember/kernels/common/block_pool.h"
#include "ember/kernels/cuda/cuda_check.h"
#include "ember/kernels/cuda/device_guard.h"

namespace ember::cuda {

namespace {

// Every block lives on the legacy default stream until ember has streams of its own.
constexpr StreamId kDefaultStream = 0;

class CudaRawAllocator final : public RawAllocator {
 public:
  explicit CudaRawAllocator(int device) : device_(device) {}

  void* malloc(size_t nbytes, StreamId /*stream*/) override {
    DeviceGuard guard(device_);
    void* ptr = nullptr;
    const cudaError_t status = cudaMalloc(&ptr, nbytes);
    if (status == cudaErrorMemoryAllocation) {
      cudaGetLastError();  // clear it, or the next checked call would report it
      return nullptr;
    }
    EMBER_CHECK(status == cudaSuccess, "cudaMalloc(", nbytes, " bytes) on cuda:", device_, ": ",
                cudaGetErrorString(status), " (", __FILE__, ":", __LINE__, ")");
    return ptr;
  }

  void free(void* ptr) override { EMBER_CUDA_CHECK(cudaFree(ptr)); }

 private:
  int device_;
};

// The Allocator a tensor on cuda:<device> keeps: its storage frees into the
// pool it came from, whatever device is current then.
class DeviceAllocator final : public Allocator {
 public:
  DeviceAllocator(BlockPool& pool, int device) : pool_(pool), device_(device) {}
  void* allocate(size_t nbytes) override { return pool_.allocate(nbytes, kDefaultStream); }
  void deallocate(void* ptr, size_t /*nbytes*/) override {
    if (ptr != nullptr) pool_.deallocate(ptr);
  }
  Device device() const override { return Device(kCUDA, device_); }

 private:
  BlockPool& pool_;
  int device_;
};

struct DevicePool {
  explicit DevicePool(int device)
      : raw(device), pool(raw, "cuda:" + std::to_string(device)), allocator(pool, device) {}
  CudaRawAllocator raw;
  BlockPool pool;
  DeviceAllocator allocator;
};

// Blocks of the current device: the allocator registered for kCUDA. The pools
// are made on first use, so a program that links ember but never touches CUDA
// does not start the driver.
class CudaCachingAllocator final : public Allocator {
 public:
  void* allocate(size_t nbytes) override {
    return pool(current_device()).allocate(nbytes, kDefaultStream);
  }

  void deallocate(void* ptr, size_t /*nbytes*/) override {
    if (ptr == nullptr) return;
    for (const auto& device_pool : pools()) {
      if (device_pool->pool.owns(ptr)) return device_pool->pool.deallocate(ptr);
    }
    EMBER_INTERNAL_ASSERT(false, "cuda allocator: freeing ", ptr, ", which it did not hand out");
  }

  Device device() const override {
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) {
      cudaGetLastError();
      device = -1;
    }
    return Device(kCUDA, device);
  }

  BlockPool& pool(int device) { return device_pool(device).pool; }

  DevicePool& device_pool(int device) {
    const auto& all = pools();
    EMBER_CHECK(device >= 0 && device < static_cast<int>(all.size()), "cuda: no device ", device,
                " (this machine has ", all.size(), ")");
    return *all[device];
  }

  const std::vector<std::unique_ptr<DevicePool>>& pools() {
    std::call_once(made_, [this] {
      for (int d = 0; d < device_count(); ++d) pools_.push_back(std::make_unique<DevicePool>(d));
    });
    return pools_;
  }

 private:
  std::once_flag made_;
  std::vector<std::unique_ptr<DevicePool>> pools_;
};

CudaCachingAllocator& instance() {
  // Never destroyed: cudaFree after the driver shut down at exit would fail.
  static auto* allocator = new CudaCachingAllocator();
  return *allocator;
}

int resolve(int device) { return device < 0 ? current_device() : device; }

}  // namespace

// Note [CUDA allocator registration]: core/ cannot call into kernels/, so
// core reaches these through the CUDA backend hooks (Note [CUDA backend hooks]
// in core/cuda/backend.h): the factories ask allocator() below for the pool of
// a tensor's device, get_allocator(kCUDA) asks current_device_allocator().
// No static initializer registers anything: in the static libember.a it would
// be dropped with its object file unless something else referenced it.
namespace hooks {

Allocator* allocator(Device device) {
  const auto& all = instance().pools();
  EMBER_CHECK(!all.empty(), "cannot allocate on ", device, ": no CUDA device is available (",
              "ember::cuda::is_available() is false; ", build_info(), ")");
  return &instance().device_pool(device.has_index() ? device.index() : current_device()).allocator;
}

Allocator* current_device_allocator() { return &instance(); }

void empty_cache() {
  if (!is_available()) return;
  for (const auto& device_pool : instance().pools()) device_pool->pool.empty_cache();
}

MemoryStats memory_stats(int device) {
  if (!is_available()) return {};
  return instance().pool(resolve(device)).stats();
}

void reset_peak_memory_stats(int device) {
  if (!is_available()) return;
  instance().pool(resolve(device)).reset_peak();
}

void set_memory_limit(size_t bytes, int device) {
  if (!is_available()) return;
  instance().pool(resolve(device)).set_reserved_limit(bytes);
}

size_t memory_limit(int device) {
  if (!is_available()) return BlockPool::kNoLimit;
  return instance().pool(resolve(device)).reserved_limit();
}

}  // namespace hooks

}  // namespace ember::cuda
