#include "ember/kernels/common/kernel_registry.h"

#include "ember/core/error.h"

namespace ember {

const KernelRegistry& kernels() {
  // Built on first use, so an op called during another file's static
  // initialization still finds its kernels.
  static const KernelRegistry registry = [] {
    KernelRegistry r;
    cpu::register_kernels(r);
#ifdef EMBER_WITH_CUDA  // the one place a build without CUDA has other tables
    cuda::register_kernels(r);
#endif
    return r;
  }();
  return registry;
}

void no_kernel(const char* op, Device device) {
#ifdef EMBER_WITH_CUDA
  constexpr const char* why = "";
#else
  constexpr const char* why = " (ember was built without the CUDA backend)";
#endif
  EMBER_ERROR(op, " has no ", device.is_cuda() ? "CUDA" : "CPU", " kernel for a tensor on ",
              device, device.is_cuda() ? why : "");
}

}  // namespace ember
