#pragma once
// Helpers of the host halves of the CUDA kernels.
#include <algorithm>

#include "ember/core/tensor.h"

namespace ember::cuda::detail {

// The CUDA device a tensor's kernels run on (0 for a device without index).
inline int device_of(const Tensor& t) { return std::max<int>(t.device().index(), 0); }

// t's data, or nullptr for an undefined (optional) tensor.
inline void* data_or_null(const Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }

}  // namespace ember::cuda::detail
