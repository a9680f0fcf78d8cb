#pragma once
// The CUDA copy family: device memory transfers and the strided copy / fill
// kernels behind Tensor::copy_, to(device) and fill_ on CUDA tensors. The
// tensor-level entry points of the family's table
// (kernels/common/copy_kernels.h; registered in register_kernels.cu) come
// first; below them the raw transfers and launches they are made of (also
// used by linalg_solve.cpp). Everything runs on the device's current stream:
// for now the legacy default stream, as the caching allocator assumes
// (docs/cuda-memory.md). Raw pointers: the caller has checked devices, dtypes
// and sizes. CUDA builds only (copy.cu, copy_kernels.cu); the geometry
// (copy_geometry.h) is plain C++ built in every configuration.
#include <cstddef>
#include <cstdint>

#include "ember/core/dtype.h"
#include "ember/core/scalar.h"
#include "ember/kernels/common/copy_kernels.h"
#include "ember/kernels/common/cuda_plans/copy_geometry.h"

namespace ember::cuda {

// The table's entries (copy_kernels.h says what each computes). copy_kernel
// and fill_kernel are in copy_kernels.cu: a memcpy or memset where the bytes
// allow, else the strided kernel; the transfers are in copy.cu and pick the
// pinned-memory path when the host tensor is pinned.
decltype(CopyKernels::copy)::Signature copy_kernel;
decltype(CopyKernels::fill)::Signature fill_kernel;
decltype(CopyKernels::to_device)::Signature transfer_to_device;
decltype(CopyKernels::to_host)::Signature transfer_to_host;
decltype(CopyKernels::between_devices)::Signature transfer_between_devices;

// Host -> device. The host memory may be reused when this returns: pageable
// memory is staged by the driver before the call returns, and for memory
// page-locked outside ember (cudaHostAlloc + from_blob) it waits for the
// copy (one counted synchronization).
void copy_host_to_device(void* dst, const void* src, size_t nbytes, int device);
// Device -> host: waits for the stream, so the host memory holds the bytes on
// return; counts one synchronization (sync_count()).
void copy_device_to_host(void* dst, const void* src, size_t nbytes, int device);
// Host -> device from pinned host memory inside the pinned block `src_block`
// (pinned_memory.h). non_blocking: queued on the stream, returns at once (no
// host wait); the block records the copy, so it is not reused before the copy
// completed, but the caller must not write src before it has. Otherwise waits
// for the copy (one counted synchronization), as a blocking copy must.
void copy_pinned_host_to_device(void* dst, const void* src, const void* src_block, size_t nbytes,
                                int device, bool non_blocking);
// Device -> pinned host memory inside the pinned block `dst_block`, queued on
// the stream without a host wait: dst holds the bytes only after the host
// synchronizes (cuda::synchronize()), as PyTorch's non_blocking D2H copies.
void copy_device_to_pinned_host_async(void* dst, const void* dst_block, const void* src,
                                      size_t nbytes, int device);
// Within one device, ordered on its stream.
void copy_device_to_device(void* dst, const void* src, size_t nbytes, int device);
// Between two devices, ordered after all earlier work on both and before all
// later work on both (cudaMemcpyPeer), so neither block is reused too early.
void copy_between_devices(void* dst, int dst_device, const void* src, int src_device,
                          size_t nbytes);
// Sets nbytes of device memory to zero bytes.
void memset_zero(void* dst, size_t nbytes, int device);

// dst[i] = static_cast<DstT>(src[i]) over `numel` elements laid out as `g`
// says (element strides from dst and src, which point at element 0).
void strided_copy(void* dst, ScalarType dst_dtype, const void* src, ScalarType src_dtype,
                  const CopyGeometry& g, int64_t numel, int device);
// dst[i] = value over `numel` elements laid out as `g` says (dst strides only).
void strided_fill(void* dst, ScalarType dtype, const Scalar& value, const CopyGeometry& g,
                  int64_t numel, int device);

}  // namespace ember::cuda
