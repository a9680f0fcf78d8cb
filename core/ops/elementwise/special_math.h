#pragma once
// The error and gamma functions. Bool and int64 inputs compute in float32, as
// PyTorch; each has a Tensor method and an in-place form (erf_, ...).
#include "ember/core/tensor.h"

namespace ember {

Tensor erf(const Tensor& x);
Tensor erfc(const Tensor& x);  // 1 - erf(x), without the cancellation for large x
// The inverse of erf on [-1, 1]: +-inf at +-1, NaN outside.
Tensor erfinv(const Tensor& x);
// log |Gamma(x)|: inf at 0 and the negative integers.
Tensor lgamma(const Tensor& x);
// lgamma': -inf at +0, +inf at -0, NaN at the negative integers.
Tensor digamma(const Tensor& x);
// The n-th derivative of digamma, for n = 0 (digamma) and n = 1 (trigamma)
// only; the derivative of polygamma(1, x) is an Error.
Tensor polygamma(int64_t n, const Tensor& x);

}  // namespace ember
