#pragma once
// Elementwise functions of one tensor (and activation functions).
#include <optional>
#include <string>

#include "ember/core/tensor.h"

namespace ember {

Tensor neg(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor rsqrt(const Tensor& x);
Tensor abs(const Tensor& x);
Tensor sign(const Tensor& x);
Tensor square(const Tensor& x);
Tensor reciprocal(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor leaky_relu(const Tensor& x, const Scalar& negative_slope = 0.01);
Tensor sigmoid(const Tensor& x);
Tensor tanh(const Tensor& x);
// approximate: "none" (erf form) or "tanh", as torch.nn.functional.gelu.
Tensor gelu(const Tensor& x, const std::string& approximate = "none");
Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
Tensor clamp_min(const Tensor& x, const Scalar& min);
Tensor clamp_max(const Tensor& x, const Scalar& max);

// core/ops/unary_math.cpp. Bool and int64 inputs compute in float32, as PyTorch.
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

// Bool tensors: non-differentiable.
Tensor isnan(const Tensor& x);
Tensor isfinite(const Tensor& x);
Tensor logical_not(const Tensor& x);

}  // namespace ember
