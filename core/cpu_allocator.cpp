#include <cstdlib>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include "ember/core/allocator.h"
#include "ember/core/cuda/backend.h"
#include "ember/core/error.h"

namespace ember {
namespace {

constexpr size_t kAlignment = 64;

// Size classes: multiples of 64 B up to 512 B, then four classes per power of
// two, so a block is at most 25% larger than asked and nearby sizes share lists.
size_t round_size(size_t n) {
  if (n <= 512) return n == 0 ? kAlignment : (n + kAlignment - 1) / kAlignment * kAlignment;
  size_t pow2 = size_t(1) << (63 - __builtin_clzll(n - 1));  // largest power of two < n
  size_t step = pow2 / 4;
  return (n + step - 1) / step * step;
}

class CachingCpuAllocator final : public Allocator {
 public:
  ~CachingCpuAllocator() override { empty_cache(); }

  void* allocate(size_t nbytes) override {
    const size_t size = round_size(nbytes);
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.num_allocs;
    stats_.allocated_bytes += size;
    if (stats_.allocated_bytes > stats_.peak_allocated_bytes)
      stats_.peak_allocated_bytes = stats_.allocated_bytes;
    if (caching_) {
      auto it = free_.find(size);
      if (it != free_.end() && !it->second.empty()) {
        void* p = it->second.back();
        it->second.pop_back();
        return p;
      }
    }
    void* p = std::aligned_alloc(kAlignment, size);
    if (p == nullptr) {
      release_cached_locked();
      p = std::aligned_alloc(kAlignment, size);
    }
    if (p == nullptr) {
      stats_.allocated_bytes -= size;
      EMBER_ERROR("cpu allocator: out of memory allocating ", nbytes, " bytes (",
                  stats_.allocated_bytes, " bytes in use)");
    }
    ++stats_.num_system_allocs;
    stats_.reserved_bytes += size;
    return p;
  }

  void deallocate(void* ptr, size_t nbytes) override {
    if (ptr == nullptr) return;
    const size_t size = round_size(nbytes);
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.allocated_bytes -= size;
    if (caching_) {
      free_[size].push_back(ptr);
    } else {
      std::free(ptr);
      ++stats_.num_system_frees;
      stats_.reserved_bytes -= size;
    }
  }

  Device device() const override { return Device(kCPU); }

  MemoryStats stats() {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }
  void reset_peak() {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.peak_allocated_bytes = stats_.allocated_bytes;
  }
  void empty_cache() {
    std::lock_guard<std::mutex> lock(mutex_);
    release_cached_locked();
  }
  void set_caching(bool on) {
    std::lock_guard<std::mutex> lock(mutex_);
    caching_ = on;
    if (!on) release_cached_locked();
  }

 private:
  void release_cached_locked() {
    for (auto& [size, blocks] : free_) {
      for (void* p : blocks) {
        std::free(p);
        ++stats_.num_system_frees;
        stats_.reserved_bytes -= size;
      }
      blocks.clear();
    }
  }

  std::mutex mutex_;
  std::unordered_map<size_t, std::vector<void*>> free_;
  MemoryStats stats_;
  bool caching_ = true;
};

CachingCpuAllocator& instance() {
  // Never destroyed: tensors in static objects may outlive any destructor order.
  static auto* a = new CachingCpuAllocator();
  return *a;
}

}  // namespace

Allocator* cpu_allocator() { return &instance(); }

namespace {
Allocator* cuda_allocator = nullptr;
}

Allocator* get_allocator(Device device) {
  if (device.is_cpu()) return &instance();
  // One registered with register_allocator, else the CUDA backend's own.
  Allocator* allocator = cuda_allocator != nullptr
                             ? cuda_allocator
                             : cuda::detail::backend().current_device_allocator();
  EMBER_CHECK(allocator != nullptr, "cannot allocate on ", device,
              ": this build of ember has no CUDA backend (or it is not available yet)");
  return allocator;
}

void register_allocator(DeviceType type, Allocator* allocator) {
  EMBER_CHECK(type == kCUDA, "register_allocator: only the CUDA allocator can be replaced");
  cuda_allocator = allocator;
}

namespace cpu {
MemoryStats memory_stats() { return instance().stats(); }
void reset_peak_memory_stats() { instance().reset_peak(); }
void empty_cache() { instance().empty_cache(); }
void set_caching_enabled(bool enabled) { instance().set_caching(enabled); }
}  // namespace cpu

}  // namespace ember
