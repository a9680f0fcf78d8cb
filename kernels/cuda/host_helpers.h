#pragma once
// Helpers of the host halves of the CUDA kernels (kernels/cuda/*.cpp),
// compiled in every build.
#include <algorithm>

#include "ember/core/tensor.h"

namespace ember::cuda::detail {

// The CUDA device a tensor's kernels run on (0 for a device without index).
inline int device_of(const Tensor& t) { return std::max<int>(t.device().index(), 0); }

// t's data, or nullptr for an undefined (optional) tensor.
inline void* data_or_null(const Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }

// Raises "<op>: <t> needs the CUDA backend": each entry point's body in a
// build without CUDA (defined in device.cpp).
[[noreturn]] void no_cuda(const char* op, const Tensor& t);

}  // namespace ember::cuda::detail
