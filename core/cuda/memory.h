#pragma once
// The CUDA caching allocator's public face (docs/cuda-memory.md), as
// torch.cuda.empty_cache / memory_stats. In a build without CUDA, or on a
// machine without a device, these never throw: the stats are zeros and
// empty_cache does nothing.
#include "ember/core/allocator.h"

namespace ember::cuda {

// Returns every wholly free cached segment of every device to cudaFree.
void empty_cache();
// The caching allocator's stats for `device` (-1: the current device):
// num_system_allocs / num_system_frees count cudaMalloc / cudaFree calls.
MemoryStats memory_stats(int device = -1);
// Sets peak_allocated_bytes of `device` (-1: the current one) to what is allocated now.
void reset_peak_memory_stats(int device = -1);

// The most bytes the caching allocator of `device` (-1: the current one) may
// reserve from cudaMalloc; SIZE_MAX (the default) for no limit. A request
// beyond it raises the allocator's out-of-memory Error, as on a device that
// small; it frees nothing already reserved. ember's own, in bytes (PyTorch's
// set_per_process_memory_fraction takes a fraction); the tests use it to force
// cuDNN's out-of-memory fallbacks. Without a device: ignored, and the limit
// reads SIZE_MAX.
void set_memory_limit(size_t bytes, int device = -1);
size_t memory_limit(int device = -1);

namespace detail {
// The caching allocator of `device` (no index: the current device), for the
// factories (Note [CUDA allocator registration] in memory.cpp). Error naming
// the reason when this build or this machine has no CUDA device.
Allocator* allocator(Device device);
}  // namespace detail

}  // namespace ember::cuda
