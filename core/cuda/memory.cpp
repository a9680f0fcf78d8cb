// The CUDA memory functions of memory.h, answered by the CUDA backend's hooks
// (Note [CUDA backend hooks] in backend.h).
#include "ember/core/cuda/memory.h"

#include "ember/core/cuda/backend.h"

namespace ember::cuda {

void empty_cache() { detail::backend().empty_cache(); }
MemoryStats memory_stats(int device) { return detail::backend().memory_stats(device); }
void reset_peak_memory_stats(int device) { detail::backend().reset_peak_memory_stats(device); }
void set_memory_limit(size_t bytes, int device) {
  detail::backend().set_memory_limit(bytes, device);
}
size_t memory_limit(int device) { return detail::backend().memory_limit(device); }

MemoryStats host_memory_stats() { return detail::backend().host_memory_stats(); }
void reset_peak_host_memory_stats() { detail::backend().reset_peak_host_memory_stats(); }
void host_empty_cache() { detail::backend().host_empty_cache(); }

}  // namespace ember::cuda
