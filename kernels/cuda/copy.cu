// The memory transfers of kernels/cuda/copy.h (the kernels are in
// copy_kernels.cu), and the transfer entry points of the copy family's table
// built on them.
#include <cuda_runtime.h>

#include "ember/kernels/cuda/copy.h"
#include "ember/kernels/cuda/cuda_check.h"
#include "ember/kernels/cuda/device_guard.h"
#include "ember/kernels/common/cuda_plans/host_helpers.h"
#include "ember/kernels/cuda/pinned_memory.h"
#include "ember/core/cuda/sync_count.h"

namespace ember::cuda {

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

namespace {
// The start of t's pinned block (its storage's memory), which records the async copies.
const void* block_of(const Tensor& t) { return t.impl()->storage()->data(); }
}  // namespace

void transfer_to_device(const Tensor& dst, const Tensor& src, bool non_blocking) {
  if (src.is_pinned()) {
    // The DMA reads the block after the call returns; the pinned allocator
    // keeps it from reuse until then, even when `src` dies first.
    copy_pinned_host_to_device(dst.data_ptr(), src.data_ptr(), block_of(src), dst.nbytes(),
                               detail::device_of(dst), non_blocking);
  } else {
    // The driver has read pageable host memory when cudaMemcpyAsync returns, so
    // `src` may go back to the CPU allocator right after.
    copy_host_to_device(dst.data_ptr(), src.data_ptr(), dst.nbytes(), detail::device_of(dst));
  }
}

void transfer_to_host(const Tensor& dst, const Tensor& src, bool non_blocking) {
  if (non_blocking && dst.is_pinned()) {
    copy_device_to_pinned_host_async(dst.data_ptr(), block_of(dst), src.data_ptr(), dst.nbytes(),
                                     detail::device_of(src));
  } else {
    copy_device_to_host(dst.data_ptr(), src.data_ptr(), dst.nbytes(), detail::device_of(src));
  }
}

void transfer_between_devices(const Tensor& dst, const Tensor& src) {
  copy_between_devices(dst.data_ptr(), detail::device_of(dst), src.data_ptr(),
                       detail::device_of(src), dst.nbytes());
}

}  // namespace ember::cuda
