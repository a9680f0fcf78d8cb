#pragma once
// Division with rounding, and atan2: broadcast, with PyTorch's type promotion.
#include "ember/core/tensor.h"

namespace ember {

// a - b * floor(a / b): the result has b's sign (Python's %). Integer division
// by zero is an Error on the CPU, as PyTorch's ZeroDivisionError.
Tensor remainder(const Tensor& a, const Tensor& b);
Tensor remainder(const Tensor& a, const Scalar& b);
Tensor remainder(const Scalar& a, const Tensor& b);
// a - b * trunc(a / b): the result has a's sign (C's fmod).
Tensor fmod(const Tensor& a, const Tensor& b);
Tensor fmod(const Tensor& a, const Scalar& b);
// floor(a / b) in the promoted dtype (PyTorch 1.13 rounds down, as Python's //).
// Not differentiable: the result never requires grad.
Tensor floor_divide(const Tensor& a, const Tensor& b);
Tensor floor_divide(const Tensor& a, const Scalar& b);
// The angle of (b, a) in (-pi, pi]; bool and int64 compute in float32.
Tensor atan2(const Tensor& a, const Tensor& b);

}  // namespace ember
