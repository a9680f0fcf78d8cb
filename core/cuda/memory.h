#pragma once
// The CUDA caching allocator's public face (docs/cuda-memory.md), as
// torch.cuda.empty_cache / memory_stats, and the pinned host allocator's. In a
// build without CUDA, or on a machine without a device, these never throw: the
// stats are zeros and empty_cache does nothing. Defined in memory.cpp through
// the CUDA backend's hooks (Note [CUDA backend hooks] in core/cuda/backend.h).
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

// Pinned (page-locked) host memory: the caching allocator behind
// Tensor::pin_memory(), TensorOptions().pinned_memory(true) and the
// DataLoader's pin_memory option (kernels/cuda/pinned_memory.h). These are
// PyTorch's host-allocator functions (torch.cuda.host_memory_stats,
// reset_peak_host_memory_stats, torch._C._host_emptyCache).

// The pinned allocator's stats: num_system_allocs / num_system_frees count
// cudaHostAlloc / cudaFreeHost calls; allocated_bytes includes freed blocks
// still waiting for their copies.
MemoryStats host_memory_stats();
// Sets peak_allocated_bytes to what is allocated now.
void reset_peak_host_memory_stats();
// Returns every wholly free pinned segment to cudaFreeHost.
void host_empty_cache();

}  // namespace ember::cuda
