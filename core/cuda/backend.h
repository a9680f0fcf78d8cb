#pragma once
// Note [CUDA backend hooks]
// What core (and kernels/common, and the public CUDA API of core/cuda/) asks
// of a CUDA backend, as one table of plain function pointers: core cannot
// call into kernels/cuda, so kernels/cuda fills the table and core calls
// through it (PyTorch's CUDAHooksInterface is the same idea). backend() is
// built on first use, as kernels() (Note [Kernel tables]): it starts from the
// answers of a build without CUDA ("no device": zeros, no-ops, the Errors that
// say why), and in a CUDA build cuda::register_backend (kernels/cuda/
// register_backend.cpp) replaces them. That call is a link-time registration,
// not a static initializer: libember is a static library, whose objects the
// linker keeps only when something references them. Without CUDA,
// kernels/cuda is not built at all.
// CPU allocations never come here: only CUDA devices and pinned memory do.
#include <cstddef>
#include <string>

#include "ember/core/allocator.h"

namespace ember::bench {
struct AlgoResult;
}

namespace ember::cuda::detail {

struct CudaBackend {
  // ---- the runtime (core/cuda/runtime.h) ----
  int (*device_count)();
  void (*synchronize)();
  std::string (*build_info)();
  void (*check_index_errors)();

  // ---- the caching allocator (core/cuda/memory.h) ----
  // The allocator of `device`'s pool (no index: the current device), for the
  // factories; an Error naming the reason when there is no CUDA device.
  Allocator* (*allocator)(Device device);
  // The allocator that get_allocator(kCUDA) answers (the current device's
  // pool at each call), or null where there is none.
  Allocator* (*current_device_allocator)();
  void (*empty_cache)();
  MemoryStats (*memory_stats)(int device);
  void (*reset_peak_memory_stats)(int device);
  void (*set_memory_limit)(size_t bytes, int device);
  size_t (*memory_limit)(int device);

  // ---- pinned host memory (core/cuda/memory.h, Tensor::pin_memory) ----
  // The pinned allocator; an Error starting with `op` without a CUDA device.
  Allocator* (*pinned_allocator)(const char* op);
  // Whether `block` (a storage's data pointer) is a live pinned block.
  bool (*is_pinned)(const void* block);
  MemoryStats (*host_memory_stats)();
  void (*reset_peak_host_memory_stats)();
  void (*host_empty_cache)();

  // ---- the cuDNN benchmark caches (kernels/common/benchmark_cache.h) ----
  // The current device's machine tag ("sm90-cudnn91900"; "no-cuda").
  std::string (*cudnn_current_machine_tag)();
  // Tags the cuDNN caches with the current device (no-op without one).
  void (*cudnn_set_machine_tag)();
  // Whether a loaded result names a cuDNN algorithm of its pass and a math type.
  bool (*cudnn_result_valid)(size_t pass, const bench::AlgoResult& r);
};

// The CUDA backend of this build: the "no device" answers without one.
const CudaBackend& backend();

}  // namespace ember::cuda::detail

namespace ember::cuda {
// Fills every slot with the CUDA backend's own (kernels/cuda/
// register_backend.cpp); called once, by backend(), in CUDA builds only.
void register_backend(detail::CudaBackend& backend);
}  // namespace ember::cuda
