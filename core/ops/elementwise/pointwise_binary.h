#pragma once
// More elementwise ops of two tensors, as libtorch's (pointwise_binary.cpp):
// broadcast, with PyTorch's type promotion; each with its Tensor method and,
// where libtorch has one, its in-place form.
#include "ember/core/tensor.h"

namespace ember {

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

}  // namespace ember
