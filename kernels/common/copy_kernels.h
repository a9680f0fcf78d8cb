#pragma once
// The copy kernel family (Note [Kernel tables]): the strided copy with a cast
// and the fill on one device, and the byte transfers between host and device
// memory and between two devices. The ops (core/ops/creation/copy.cpp,
// device_copy.cpp) have checked shapes, overlap and the fill value's range;
// device_copy.cpp decides how a copy that crosses devices is staged (packing,
// pinned buffers) and calls the transfers with dense tensors only.
#include "ember/core/tensor.h"
#include "ember/kernels/common/kernel_table.h"

namespace ember {

struct CopyKernels {
  // dst[i] = cast(src[i]) over dst's shape, src broadcast to it (stride 0 on
  // broadcast dims); both on the device the kernel is looked up for. Any
  // dtypes, any strides.
  Kernel<void(const Tensor& dst, const Tensor& src)> copy;
  // Every element of t (any strides) = value; the op has checked that value
  // converts to t's dtype. Any dtype.
  Kernel<void(const Tensor& t, const Scalar& value)> fill;
  // dst (on the device of the lookup) = the bytes of src (host memory): both
  // contiguous with one dtype and shape. non_blocking: from pinned memory the
  // copy is queued without a host wait (kernels/cuda/copy.h says when the
  // host memory may be reused).
  Kernel<void(const Tensor& dst, const Tensor& src, bool non_blocking)> to_device;
  // dst (host memory) = the bytes of src (on the device of the lookup): both
  // contiguous with one dtype and shape. Waits for the device, but with
  // non_blocking into pinned memory (then the caller synchronizes).
  Kernel<void(const Tensor& dst, const Tensor& src, bool non_blocking)> to_host;
  // dst = the bytes of src, two devices of the lookup's type: both contiguous
  // with one dtype and shape; ordered after all earlier work on both.
  Kernel<void(const Tensor& dst, const Tensor& src)> between_devices;
};

}  // namespace ember
