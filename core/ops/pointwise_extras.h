#pragma once
// More elementwise ops, as libtorch's: unary (pointwise_extras.cpp), binary
// (pointwise_binary.cpp) and three-operand (pointwise_ternary.cpp) ones, each
// with its Tensor method and, where libtorch has one, its in-place form.
#include <optional>

#include "ember/core/tensor.h"

namespace ember {

// ---- unary (pointwise_extras.cpp); bool and int64 compute in float32 ----
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

// ---- binary (pointwise_binary.cpp): broadcast, PyTorch's type promotion ----
// Floating results (int64 and bool operands compute in float32); hypot,
// logaddexp and logaddexp2 take floating operands only, as PyTorch.
Tensor hypot(const Tensor& a, const Tensor& b);
// x log(y), 0 where x == 0 (also for y = 0), NaN where y is NaN.
Tensor xlogy(const Tensor& x, const Tensor& y);
Tensor xlogy(const Scalar& x, const Tensor& y);
Tensor xlogy(const Tensor& x, const Scalar& y);
// |a| with b's sign (of -0.0 too); the gradient flows to a only.
Tensor copysign(const Tensor& a, const Tensor& b);
Tensor copysign(const Tensor& a, const Scalar& b);
Tensor logaddexp(const Tensor& a, const Tensor& b);   // log(e^a + e^b), stable
Tensor logaddexp2(const Tensor& a, const Tensor& b);  // log2(2^a + 2^b)
// 0 where x < 0, values where x == 0, 1 where x > 0; x and values of one
// dtype. Not differentiable: an input that requires grad is an Error.
Tensor heaviside(const Tensor& x, const Tensor& values);
// |a - b| <= atol + rtol |b| elementwise (equal infinities are close; NaNs
// only with equal_nan); a and b of one dtype. Bool, not differentiable.
Tensor isclose(const Tensor& a, const Tensor& b, double rtol = 1e-05, double atol = 1e-08,
               bool equal_nan = false);

// ---- three operands (pointwise_ternary.cpp): broadcast ----
// a + weight (b - a); a, b (and a weight tensor) floating, of one dtype.
Tensor lerp(const Tensor& a, const Tensor& b, const Scalar& weight);
Tensor lerp(const Tensor& a, const Tensor& b, const Tensor& weight);
// self + value t1 t2, in the promoted dtype of the three.
Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value = 1);
// self + value t1 / t2; integer t1 and t2 together are an Error, as PyTorch.
Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value = 1);

}  // namespace ember
