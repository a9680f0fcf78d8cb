// Copies that involve a CUDA device: host->device, device->host and
// device->device, each with the cast to dst's dtype and the broadcast of src.
// The kernels and transfers are the copy family's (kernels/common/copy_kernels.h);
// this file decides which to use. Non-contiguous tensors: H2D packs src on the
// CPU first; D2H brings the storage span src covers and lets the CPU strided
// copy finish (a sparse view, e.g. one column of a wide matrix, is packed on
// the device first, so no more than twice its bytes cross the bus); D2D on one
// device runs the device's copy kernel. Only D2H waits for the device (one
// counted sync per copy).
// non_blocking (as PyTorch): H2D from pinned memory and dense D2H into pinned
// memory are queued without a host wait (the pinned allocator holds the
// blocks until the copies complete; the user synchronizes before touching
// the host side); a blocking H2D from pinned memory waits for its DMA (one
// counted sync). Copies from or to pageable memory ignore non_blocking.
#include "ember/core/ops/creation/device_copy.h"

#include "ember/core/ops/creation/factory.h"
#include "ember/kernels/common/kernel_registry.h"

namespace ember::detail {
namespace {

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

// dst = cast(src), both on dst's device.
void copy_on_device(const Tensor& dst, const Tensor& src) {
  kernels().copy.copy.on(dst.device(), "copy_")(dst, src);
}

void between_devices(const Tensor& dst, const Tensor& src) {
  // A kernel would read another device's memory: pack src on its own device
  // in dst's dtype and shape, move the bytes, lay them out on dst's.
  Tensor packed = src;
  if (!packed_as(src, dst)) {
    packed = dense_like(dst, src.device());
    copy_on_device(packed, src);
  }
  const Tensor landed = dst.is_contiguous() ? dst : dense_like(dst, dst.device());
  kernels().copy.between_devices.on(dst.device(), "copy_")(landed, packed);
  if (!landed.is_same(dst)) copy_on_device(dst, landed);
}

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
  kernels().copy.to_device.on(dst.device(), "copy_")(landed, staged, non_blocking);
  if (!landed.is_same(dst)) copy_on_device(dst, landed);
}

void device_to_host(const Tensor& dst, const Tensor& src, bool non_blocking) {
  const auto to_host = kernels().copy.to_host.on(src.device(), "copy_");
  if (same_dense_layout(dst, src)) return to_host(dst, src, non_blocking);
  Tensor from = src;
  if (storage_span(src) > 2 * src.numel()) {  // a sparse view: pack it on the device
    from = empty(src.sizes(), src.options());
    copy_on_device(from, src);
  }
  // The storage span `from` covers, as a dense 1-d tensor, lands in a pageable
  // buffer (a blocking copy); from's layout over the host bytes then lets the
  // CPU copy cast and broadcast into dst.
  const int64_t span = storage_span(from);
  const Tensor buffer = empty({span}, TensorOptions(from.scalar_type()));
  const Tensor span_of_from(std::make_shared<TensorImpl>(
      from.impl()->storage(), from.impl()->storage_offset(), DimVector{span}, DimVector{1},
      from.scalar_type()));
  to_host(buffer, span_of_from, /*non_blocking=*/false);
  const Tensor host_view(std::make_shared<TensorImpl>(
      buffer.impl()->storage(), 0, DimVector(from.sizes()), DimVector(from.strides()),
      from.scalar_type()));
  copy_cpu(dst, host_view);
}

}  // namespace

void copy_any_device(const Tensor& dst, const Tensor& src, bool non_blocking) {
  if (dst.device() == src.device()) return copy_on_device(dst, src);
  if (dst.numel() == 0) return;
  if (dst.is_cpu()) return device_to_host(dst, src, non_blocking);
  if (src.is_cpu()) return host_to_device(dst, src, non_blocking);
  between_devices(dst, src);
}

}  // namespace ember::detail
