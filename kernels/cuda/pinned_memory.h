#pragma once
// Pinned (page-locked) host memory: the caching allocator behind
// Tensor::pin_memory(), TensorOptions().pinned_memory(true) and the
// DataLoader's pin_memory option. A copy between pinned host memory and a
// device can run asynchronously (to(device, /*non_blocking=*/true)); the
// allocator does not hand a freed block out again before every such copy that
// used it has completed (kernels/common/cuda_plans/pinned_memory_pool.h).
// Pinned tensors are CPU tensors. The public functions are PyTorch's host-allocator ones
// (torch.cuda.host_memory_stats, reset_peak_host_memory_stats,
// torch._C._host_emptyCache); like memory.h's, they never throw: without the
// CUDA backend or a device the stats are zeros.
#include "ember/core/allocator.h"

namespace ember::cuda {

// The pinned allocator's stats: num_system_allocs / num_system_frees count
// cudaHostAlloc / cudaFreeHost calls; allocated_bytes includes freed blocks
// still waiting for their copies.
MemoryStats host_memory_stats();
// Sets peak_allocated_bytes to what is allocated now.
void reset_peak_host_memory_stats();
// Returns every wholly free pinned segment to cudaFreeHost.
void host_empty_cache();

namespace detail {
// The pinned allocator. Error starting with `op` when this build has no CUDA
// backend or the machine no CUDA device (pinned memory needs one, as in PyTorch).
Allocator* pinned_allocator(const char* op);
// Whether `block` (a storage's data pointer) is a live pinned block.
bool is_pinned(const void* block);
// Records that the work queued now on `device`'s stream (an async copy) uses
// the pinned block `block`, so it is not reused before that work completes.
void record_pinned_use(const void* block, int device);
}  // namespace detail

}  // namespace ember::cuda
