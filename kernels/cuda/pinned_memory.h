#pragma once
// Pinned (page-locked) host memory: the caching allocator behind
// Tensor::pin_memory(), TensorOptions().pinned_memory(true) and the
// DataLoader's pin_memory option. A copy between pinned host memory and a
// device can run asynchronously (to(device, /*non_blocking=*/true)); the
// allocator does not hand a freed block out again before every such copy that
// used it has completed (kernels/common/cuda_plans/pinned_memory_pool.h).
// Pinned tensors are CPU tensors. The public functions (host_memory_stats,
// reset_peak_host_memory_stats, host_empty_cache) are declared in
// core/cuda/memory.h and reach the hooks below through the CUDA backend's
// table (Note [CUDA backend hooks] in core/cuda/backend.h; registered in
// register_backend.cpp), as do Tensor::pin_memory and is_pinned.
#include "ember/core/allocator.h"

namespace ember::cuda {

namespace hooks {
// The pinned allocator's stats (cuda::host_memory_stats); zeros when nothing
// was ever pinned.
MemoryStats host_memory_stats();
void reset_peak_host_memory_stats();
void host_empty_cache();
// The pinned allocator. Error starting with `op` when the machine has no CUDA
// device (pinned memory needs one, as in PyTorch).
Allocator* pinned_allocator(const char* op);
// Whether `block` (a storage's data pointer) is a live pinned block.
bool is_pinned(const void* block);
}  // namespace hooks

namespace detail {
// Records that the work queued now on `device`'s stream (an async copy) uses
// the pinned block `block`, so it is not reused before that work completes.
void record_pinned_use(const void* block, int device);
}  // namespace detail

}  // namespace ember::cuda
