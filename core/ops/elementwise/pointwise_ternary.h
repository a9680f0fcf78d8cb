#pragma once
// Elementwise ops of three tensors, as libtorch's (pointwise_ternary.cpp),
// broadcast; each with its Tensor method and in-place form.
#include "ember/core/tensor.h"

namespace ember {

// a + weight (b - a); a, b (and a weight tensor) floating, of one dtype.
Tensor lerp(const Tensor& a, const Tensor& b, const Scalar& weight);
Tensor lerp(const Tensor& a, const Tensor& b, const Tensor& weight);
// self + value t1 t2, in the promoted dtype of the three.
Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value = 1);
// self + value t1 / t2; integer t1 and t2 together are an Error, as PyTorch.
Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value = 1);

}  // namespace ember
