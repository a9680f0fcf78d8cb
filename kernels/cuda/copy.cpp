// The stubs of kernels/cuda/copy.h in a build without the CUDA backend: each
// one raises (the transfers are in copy.cu, the kernels in copy_kernels.cu).
#include "ember/kernels/cuda/copy.h"

#include "ember/core/error.h"

namespace ember::cuda {

#ifndef EMBER_WITH_CUDA

namespace {
[[noreturn]] void no_cuda(const char* what) {
  EMBER_ERROR(what, ": this build of ember has no CUDA backend");
}
}  // namespace

void copy_host_to_device(void*, const void*, size_t, int) { no_cuda("copy to a CUDA device"); }
void copy_device_to_host(void*, const void*, size_t, int) { no_cuda("copy from a CUDA device"); }
void copy_pinned_host_to_device(void*, const void*, const void*, size_t, int, bool) {
  no_cuda("copy to a CUDA device");
}
void copy_device_to_pinned_host_async(void*, const void*, const void*, size_t, int) {
  no_cuda("copy from a CUDA device");
}
void copy_device_to_device(void*, const void*, size_t, int) { no_cuda("copy on a CUDA device"); }
void copy_between_devices(void*, int, const void*, int, size_t) {
  no_cuda("copy between CUDA devices");
}
void memset_zero(void*, size_t, int) { no_cuda("fill on a CUDA device"); }
void strided_copy(void*, ScalarType, const void*, ScalarType, const CopyGeometry&, int64_t, int) {
  no_cuda("copy on a CUDA device");
}
void strided_fill(void*, ScalarType, const Scalar&, const CopyGeometry&, int64_t, int) {
  no_cuda("fill on a CUDA device");
}

#endif

}  // namespace ember::cuda
