#pragma once
// The CUDA caching allocator's answers to core/cuda/memory.h and to the
// factories, reached through the backend hooks (Note [CUDA backend hooks] in
// core/cuda/backend.h; registered in register_backend.cpp). Each `device` of
// -1 means the current device.
#include "ember/core/allocator.h"

namespace ember::cuda::hooks {

// The allocator of `device`'s pool (no index: the current device). Error
// naming the reason when the machine has no CUDA device.
Allocator* allocator(Device device);
// The allocator of whichever device is current at each call: get_allocator(kCUDA).
Allocator* current_device_allocator();
void empty_cache();
MemoryStats memory_stats(int device);
void reset_peak_memory_stats(int device);
void set_memory_limit(size_t bytes, int device);
size_t memory_limit(int device);

}  // namespace ember::cuda::hooks
