#pragma once
// The CPU copy and fill kernels: the strided cast loop behind copy_ / clone /
// to(dtype) and the fill behind fill_ / full / zeros on CPU tensors.
#include "ember/core/tensor.h"

namespace ember::cpu {

// dst[i] = cast(src[i]); src broadcasts to dst's shape. Any dtypes, any strides.
void copy_kernel(const Tensor& dst, const Tensor& src);
// Every element of t = value (any strides).
void fill_kernel(const Tensor& t, const Scalar& value);

}  // namespace ember::cpu
