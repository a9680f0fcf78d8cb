#pragma once
// Allocators hand out raw device memory for Storage. Note [Caching allocator]:
// freeing a block puts it on a free list keyed by its rounded size instead of
// returning it to the system, so a training loop that makes the same tensors
// every step stops calling malloc after its first step. Fresh pages are costly
// (page faults, zeroing): reuse is what makes a steady step fast.
#include <cstddef>
#include <cstdint>

#include "ember/core/device.h"

namespace ember {

struct MemoryStats {
  size_t allocated_bytes = 0;       // in use by live tensors (rounded sizes)
  size_t reserved_bytes = 0;        // in use + cached on free lists
  size_t peak_allocated_bytes = 0;  // high-water mark of allocated_bytes
  uint64_t num_allocs = 0;          // allocate() calls
  uint64_t num_system_allocs = 0;   // allocations that went to the system
  uint64_t num_system_frees = 0;    // blocks returned to the system
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual void* allocate(size_t nbytes) = 0;
  virtual void deallocate(void* ptr, size_t nbytes) = 0;
  virtual Device device() const = 0;
};

// The process-wide CPU allocator: 64-byte aligned, caching (see the Note).
Allocator* cpu_allocator();
// The allocator for a device type; the CUDA backend registers its own at
// start-up. Error when the device type has none in this build.
Allocator* get_allocator(Device device);
void register_allocator(DeviceType type, Allocator* allocator);

namespace cpu {
MemoryStats memory_stats();
void reset_peak_memory_stats();
// Returns every cached block to the system.
void empty_cache();
// Caching on (default) or off; off makes every allocation a system allocation,
// which is what the benchmarks compare against.
void set_caching_enabled(bool enabled);
}  // namespace cpu

}  // namespace ember
