// Copies that involve a CUDA device: host->device, device->host and
// device->device, each with the cast to dst's dtype and the broadcast of src.
// The transfers and kernels are in kernels/cuda/copy.h; this file decides
// which to use. Non-contiguous tensors: H2D packs src on the CPU first; D2H
// brings the storage span src covers and lets the CPU strided copy finish
// (a sparse view, e.g. one column of a wide matrix, is packed on the device
// first, so no more than twice its bytes cross the bus); D2D runs the strided
// kernel. Only D2H waits for the device (one counted sync per copy).
// non_blocking (as PyTorch): H2D from pinned memory and dense D2H into pinned
// memory are queued without a host wait (the pinned allocator holds the
// blocks until the copies complete; the user synchronizes before touching
// the host side); a blocking H2D from pinned memory waits for its DMA (one
// counted sync). Copies from or to pageable memory ignore non_blocking.
#include "ember/core/ops/device_copy.h"

#include <algorithm>
#include <cstring>

#include "ember/core/ops/factory.h"
#include "ember/kernels/cuda/copy.h"

namespace ember::detail {
namespace {

// The CUDA device index of t (no index means cuda:0, as Device's == says).
int cuda_index(const Tensor& t) { return std::max(t.device().index(), 0); }

// Elements from element 0 to the last element of t, inclusive; 0 when empty.
int64_t storage_span(const Tensor& t) {
  int64_t span = 1;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.size(d) == 0) return 0;
    span += (t.size(d) - 1) * t.stride(d);
  }
  return span;
}

// Whether src is already what a contiguous dst would hold: same dtype and shape, contiguous.
bool packed_as(const Tensor& src, const Tensor& dst) {
  return src.is_contiguous() && src.scalar_type() == dst.scalar_type() &&
         src.sizes() == dst.sizes();
}

// Whether a plain memcpy of dst.nbytes() bytes is the whole copy.
bool same_dense_layout(const Tensor& dst, const Tensor& src) {
  return dst.is_contiguous() && packed_as(src, dst);
}

// A contiguous tensor of dst's dtype and shape on `device`.
Tensor dense_like(const Tensor& dst, Device device) {
  return empty(dst.sizes(), TensorOptions(dst.scalar_type()).device(device));
}

void device_to_device(const Tensor& dst, const Tensor& src) {
  const int dst_device = cuda_index(dst), src_device = cuda_index(src);
  if (dst_device == src_device) {
    if (same_dense_layout(dst, src)) {
      cuda::copy_device_to_device(dst.data_ptr(), src.data_ptr(), dst.nbytes(), dst_device);
    } else {
      const cuda::CopyGeometry g = cuda::make_copy_geometry("copy_", dst.sizes(), dst.strides(),
                                                            src.sizes(), src.strides());
      cuda::strided_copy(dst.data_ptr(), dst.scalar_type(), src.data_ptr(), src.scalar_type(), g,
                         dst.numel(), dst_device);
    }
    return;
  }
  // Across devices a kernel would read another device's memory: pack src on
  // its own device in dst's dtype and shape, move the bytes, lay them out on dst's.
  Tensor packed = src;
  if (!packed_as(src, dst)) {
    packed = dense_like(dst, src.device());
    device_to_device(packed, src);
  }
  const Tensor landed = dst.is_contiguous() ? dst : dense_like(dst, dst.device());
  cuda::copy_between_devices(landed.data_ptr(), dst_device, packed.data_ptr(), src_device,
                             landed.nbytes());
  if (!landed.is_same(dst)) device_to_device(dst, landed);
}

// The start of t's pinned block (its storage's memory), which records the async copies.
const void* block_of(const Tensor& t) { return t.impl()->storage()->data(); }

void host_to_device(const Tensor& dst, const Tensor& src, bool non_blocking) {
  // dst's dtype and shape, contiguous, on the CPU; a non_blocking copy from
  // pinned memory that needs packing is staged in pinned memory, so it stays async.
  Tensor staged = src;
  if (!packed_as(src, dst)) {
    const bool pin = non_blocking && src.is_pinned();
    staged = empty(dst.sizes(), TensorOptions(dst.scalar_type()).pinned_memory(pin));
    copy_cpu(staged, src);
  }
  const Tensor landed = dst.is_contiguous() ? dst : dense_like(dst, dst.device());
  if (staged.is_pinned()) {
    // The DMA reads the block after the call returns; the pinned allocator
    // keeps it from reuse until then, even when `staged` dies first.
    cuda::copy_pinned_host_to_device(landed.data_ptr(), staged.data_ptr(), block_of(staged),
                                     landed.nbytes(), cuda_index(dst), non_blocking);
  } else {
    // The driver has read pageable host memory when cudaMemcpyAsync returns, so
    // `staged` may go back to the CPU allocator right after.
    cuda::copy_host_to_device(landed.data_ptr(), staged.data_ptr(), landed.nbytes(),
                              cuda_index(dst));
  }
  if (!landed.is_same(dst)) device_to_device(dst, landed);
}

void device_to_host(const Tensor& dst, const Tensor& src, bool non_blocking) {
  const int device = cuda_index(src);
  if (same_dense_layout(dst, src)) {
    if (non_blocking && dst.is_pinned()) {
      cuda::copy_device_to_pinned_host_async(dst.data_ptr(), block_of(dst), src.data_ptr(),
                                             dst.nbytes(), device);
    } else {
      cuda::copy_device_to_host(dst.data_ptr(), src.data_ptr(), dst.nbytes(), device);
    }
    return;
  }
  Tensor from = src;
  if (storage_span(src) > 2 * src.numel()) {  // a sparse view: pack it on the device
    from = empty(src.sizes(), src.options());
    device_to_device(from, src);
  }
  const int64_t span = storage_span(from);
  const Tensor buffer = empty({span}, TensorOptions(from.scalar_type()));
  cuda::copy_device_to_host(buffer.data_ptr(), from.data_ptr(), buffer.nbytes(), device);
  // from's layout over the host bytes; the CPU copy casts and broadcasts into dst.
  const Tensor host_view(std::make_shared<TensorImpl>(
      buffer.impl()->storage(), 0, DimVector(from.sizes()), DimVector(from.strides()),
      from.scalar_type()));
  copy_cpu(dst, host_view);
}

// Whether value, as t's dtype, is all zero bytes (then a memset writes it; -0.0 is not).
bool is_zero_bytes(const Tensor& t, const Scalar& value) {
  return dispatch_all(t.scalar_type(), "fill_", [&]<typename T>() {
    const T v = value.to<T>(), zero{};
    return std::memcmp(&v, &zero, sizeof(T)) == 0;
  });
}

}  // namespace

void copy_any_device(const Tensor& dst, const Tensor& src, bool non_blocking) {
  if (dst.is_cpu() && src.is_cpu()) return copy_cpu(dst, src);
  if (dst.numel() == 0) return;
  if (dst.is_cpu()) return device_to_host(dst, src, non_blocking);
  if (src.is_cpu()) return host_to_device(dst, src, non_blocking);
  device_to_device(dst, src);
}

void fill_cuda(const Tensor& t, const Scalar& value) {
  if (t.numel() == 0) return;
  if (t.is_contiguous() && is_zero_bytes(t, value)) {
    cuda::memset_zero(t.data_ptr(), t.nbytes(), cuda_index(t));
    return;
  }
  const cuda::CopyGeometry g = cuda::make_copy_geometry("fill_", t.sizes(), t.strides(), {}, {});
  cuda::strided_fill(t.data_ptr(), t.scalar_type(), value, g, t.numel(), cuda_index(t));
}

}  // namespace ember::detail
