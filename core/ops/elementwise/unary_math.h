#pragma once
// Trigonometric, hyperbolic, logarithmic and rounding functions of one tensor
// (unary_math.cpp), each with its Tensor method and in-place form.
#include "ember/core/tensor.h"

namespace ember {

// Bool and int64 inputs compute in float32, as PyTorch.
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
Tensor tan(const Tensor& x);
Tensor asin(const Tensor& x);
Tensor acos(const Tensor& x);
Tensor atan(const Tensor& x);
Tensor sinh(const Tensor& x);
Tensor cosh(const Tensor& x);
Tensor log1p(const Tensor& x);
Tensor expm1(const Tensor& x);
Tensor log2(const Tensor& x);
Tensor log10(const Tensor& x);
// Gradient 0 everywhere, as PyTorch; int64 comes back unchanged (a copy).
Tensor floor(const Tensor& x);
Tensor ceil(const Tensor& x);
Tensor round(const Tensor& x);  // halves to even
Tensor trunc(const Tensor& x);
Tensor frac(const Tensor& x);  // x - trunc(x); floating inputs only

}  // namespace ember
