#pragma once
// Internal: the copies behind Tensor::copy_, clone and to(device), through
// the copy family's kernel table (kernels/common/copy_kernels.h). None records autograd or bumps a version counter: the
// calling op does.
#include "ember/core/tensor.h"

namespace ember::detail {

// dst[i] = cast(src[i]), src broadcast to dst's shape, on whatever devices
// they live (CPU, CUDA, or one of each). non_blocking: a copy from or to
// pinned host memory does not wait for the device (device_copy.cpp).
void copy_any_device(const Tensor& dst, const Tensor& src, bool non_blocking = false);
// The same with both tensors on the CPU (copy.cpp).
void copy_cpu(const Tensor& dst, const Tensor& src);

}  // namespace ember::detail
