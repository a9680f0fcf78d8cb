// The memory transfers of kernels/cuda/copy.h (the kernels are in
// copy_kernels.cu). Compiled in every build; without CUDA each one raises.
#include "ember/kernels/cuda/copy.h"

#include "ember/core/error.h"

#ifdef EMBER_WITH_CUDA
#include <cuda_runtime.h>

#include "ember/kernels/cuda/cuda_check.h"
#include "ember/kernels/cuda/device_guard.h"
#include "ember/kernels/cuda/pinned_memory.h"
#include "ember/core/cuda/sync_count.h"
#endif

namespace ember::cuda {

#ifdef EMBER_WITH_CUDA

namespace {
// The stream of every transfer: the legacy default stream (see copy.h).
constexpr cudaStream_t kStream = nullptr;

// Whether host memory is page-locked by someone other than ember's pinned
// allocator (cudaHostAlloc, cudaHostRegister), e.g. wrapped with from_blob.
bool is_page_locked(const void* p) {
  cudaPointerAttributes attributes{};
  EMBER_CUDA_CHECK(cudaPointerGetAttributes(&attributes, p));
  return attributes.type == cudaMemoryTypeHost;
}
}  // namespace

void copy_host_to_device(void* dst, const void* src, size_t nbytes, int device) {
  DeviceGuard guard(device);
  EMBER_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyHostToDevice, kStream));
  // Pageable memory is staged before cudaMemcpyAsync returns, so the source is
  // free again; page-locked memory is read by the DMA later, so this blocking
  // copy waits for it.
  if (is_page_locked(src)) {
    EMBER_CUDA_CHECK(cudaStreamSynchronize(kStream));
    detail::count_sync();
  }
}

void copy_device_to_host(void* dst, const void* src, size_t nbytes, int device) {
  DeviceGuard guard(device);
  EMBER_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToHost, kStream));
  EMBER_CUDA_CHECK(cudaStreamSynchronize(kStream));
  detail::count_sync();
}

void copy_pinned_host_to_device(void* dst, const void* src, const void* src_block, size_t nbytes,
                                int device, bool non_blocking) {
  DeviceGuard guard(device);
  EMBER_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyHostToDevice, kStream));
  if (non_blocking) {
    detail::record_pinned_use(src_block, device);
  } else {
    // The DMA reads pinned memory after the call returns: a blocking copy waits for it.
    EMBER_CUDA_CHECK(cudaStreamSynchronize(kStream));
    detail::count_sync();
  }
}

void copy_device_to_pinned_host_async(void* dst, const void* dst_block, const void* src,
                                      size_t nbytes, int device) {
  DeviceGuard guard(device);
  EMBER_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToHost, kStream));
  detail::record_pinned_use(dst_block, device);
}

void copy_device_to_device(void* dst, const void* src, size_t nbytes, int device) {
  DeviceGuard guard(device);
  EMBER_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToDevice, kStream));
}

void copy_between_devices(void* dst, int dst_device, const void* src, int src_device,
                          size_t nbytes) {
  EMBER_CUDA_CHECK(cudaMemcpyPeer(dst, dst_device, src, src_device, nbytes));
}

void memset_zero(void* dst, size_t nbytes, int device) {
  DeviceGuard guard(device);
  EMBER_CUDA_CHECK(cudaMemsetAsync(dst, 0, nbytes, kStream));
}

#else

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
