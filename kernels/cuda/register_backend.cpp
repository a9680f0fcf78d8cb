// The CUDA backend's answers to core's hooks (Note [CUDA backend hooks] in
// core/cuda/backend.h), one line per slot. Built only with the CUDA backend;
// core's backend() calls register_backend on first use.
#include "ember/core/cuda/backend.h"
#include "ember/kernels/cuda/cudnn_conv.h"
#include "ember/kernels/cuda/device.h"
#include "ember/kernels/cuda/indexing.h"
#include "ember/kernels/cuda/memory.h"
#include "ember/kernels/cuda/pinned_memory.h"

namespace ember::cuda {

void register_backend(detail::CudaBackend& b) {
  b.device_count = &hooks::device_count;
  b.synchronize = &hooks::synchronize;
  b.build_info = &hooks::build_info;
  b.check_index_errors = &hooks::check_index_errors;

  b.allocator = &hooks::allocator;
  b.current_device_allocator = &hooks::current_device_allocator;
  b.empty_cache = &hooks::empty_cache;
  b.memory_stats = &hooks::memory_stats;
  b.reset_peak_memory_stats = &hooks::reset_peak_memory_stats;
  b.set_memory_limit = &hooks::set_memory_limit;
  b.memory_limit = &hooks::memory_limit;

  b.pinned_allocator = &hooks::pinned_allocator;
  b.is_pinned = &hooks::is_pinned;
  b.host_memory_stats = &hooks::host_memory_stats;
  b.reset_peak_host_memory_stats = &hooks::reset_peak_host_memory_stats;
  b.host_empty_cache = &hooks::host_empty_cache;

  b.cudnn_current_machine_tag = &cudnn_current_machine_tag;
  b.cudnn_set_machine_tag = &cudnn_set_machine_tag;
  b.cudnn_result_valid = &cudnn_result_valid;
}

}  // namespace ember::cuda
