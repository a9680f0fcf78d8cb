#pragma once
// More elementwise ops of one tensor, as libtorch's (pointwise_extras.cpp),
// each with its Tensor method and, where libtorch has one, its in-place form.
// The binary ones are in pointwise_binary.h, the three-operand ones in
// pointwise_ternary.h.
#include <optional>

#include "ember/core/tensor.h"

namespace ember {

// Bool and int64 inputs compute in float32.
Tensor exp2(const Tensor& x);
Tensor sinc(const Tensor& x);  // sin(pi x) / (pi x), 1 at 0
// log(x / (1 - x)), x first clamped to [eps, 1 - eps] when eps is given (the
// gradient is then 0 outside that range).
Tensor logit(const Tensor& x, std::optional<double> eps = std::nullopt);
// NaN -> nan, +inf -> posinf, -inf -> neginf (defaults: 0 and the dtype's
// largest and lowest finite values). Integer and bool tensors come back as a copy.
Tensor nan_to_num(const Tensor& x, std::optional<double> nan = std::nullopt,
                  std::optional<double> posinf = std::nullopt,
                  std::optional<double> neginf = std::nullopt);
// Bool tensors, not differentiable; false for every integer.
Tensor isinf(const Tensor& x);
Tensor isposinf(const Tensor& x);
Tensor isneginf(const Tensor& x);
Tensor signbit(const Tensor& x);  // true for -0.0

}  // namespace ember
