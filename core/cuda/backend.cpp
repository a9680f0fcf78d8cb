// The CUDA backend hooks (Note [CUDA backend hooks] in backend.h): the answers
// of a build without the CUDA backend, and the registration of the real ones.
#include "ember/core/cuda/backend.h"

#include <cstdint>

#include "ember/core/error.h"

namespace ember::cuda::detail {

namespace {

// The end of the Errors below: why there is no device, and what to do.
constexpr const char* kNoCudaBackend =
    "this build of ember has no CUDA backend (configure with -DEMBER_CUDA=ON on a machine "
    "with the CUDA toolkit)";

int no_devices() { return 0; }
void nothing() {}
void nothing_on(int /*device*/) {}
std::string no_build_info() {
  return "built without the CUDA backend (EMBER_CUDA=OFF or no toolkit)";
}

Allocator* no_allocator(Device device) {
  EMBER_ERROR("cannot allocate on ", device, ": ", kNoCudaBackend);
}
Allocator* no_current_device_allocator() { return nullptr; }
MemoryStats no_stats() { return {}; }
MemoryStats no_stats_on(int /*device*/) { return {}; }
void no_limit_to_set(size_t /*bytes*/, int /*device*/) {}
size_t no_limit(int /*device*/) { return SIZE_MAX; }

Allocator* no_pinned_allocator(const char* op) {
  EMBER_ERROR(op, ": pinned (page-locked) host memory needs a CUDA device, and ",
              kNoCudaBackend);
}
bool never_pinned(const void* /*block*/) { return false; }

std::string no_cuda_machine_tag() { return "no-cuda"; }
// Without cuDNN no algorithm can run: nothing loads.
bool no_valid_result(size_t /*pass*/, const bench::AlgoResult& /*r*/) { return false; }

CudaBackend without_cuda() {
  CudaBackend b{};
  b.device_count = &no_devices;
  b.synchronize = &nothing;
  b.build_info = &no_build_info;
  b.check_index_errors = &nothing;
  b.allocator = &no_allocator;
  b.current_device_allocator = &no_current_device_allocator;
  b.empty_cache = &nothing;
  b.memory_stats = &no_stats_on;
  b.reset_peak_memory_stats = &nothing_on;
  b.set_memory_limit = &no_limit_to_set;
  b.memory_limit = &no_limit;
  b.pinned_allocator = &no_pinned_allocator;
  b.is_pinned = &never_pinned;
  b.host_memory_stats = &no_stats;
  b.reset_peak_host_memory_stats = &nothing;
  b.host_empty_cache = &nothing;
  b.cudnn_current_machine_tag = &no_cuda_machine_tag;
  b.cudnn_set_machine_tag = &nothing;
  b.cudnn_result_valid = &no_valid_result;
  return b;
}

}  // namespace

const CudaBackend& backend() {
  // Built on first use, so a caller in another file's static initializer
  // still finds the backend.
  static const CudaBackend hooks = [] {
    CudaBackend b = without_cuda();
#ifdef EMBER_WITH_CUDA  // the one place a build without CUDA has other hooks
    // core names kernels/cuda here, as kernels() names cuda::register_kernels:
    // a call the linker resolves, which also keeps the CUDA backend's objects
    // in a program that links the static libember.
    register_backend(b);
#endif
    return b;
  }();
  return hooks;
}

}  // namespace ember::cuda::detail
