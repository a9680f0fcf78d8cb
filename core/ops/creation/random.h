#pragma once
// Random tensors from the default generator (core/generator.h), as libtorch's
// factories (random.cpp).
#include "ember/core/tensor.h"

namespace ember {

Tensor rand(IntArrayRef size, const TensorOptions& options = {});
Tensor randn(IntArrayRef size, const TensorOptions& options = {});
Tensor randint(int64_t high, IntArrayRef size, const TensorOptions& options = kLong);
Tensor randint(int64_t low, int64_t high, IntArrayRef size, const TensorOptions& options = kLong);
Tensor rand_like(const Tensor& t);
Tensor randn_like(const Tensor& t);
Tensor randperm(int64_t n, const TensorOptions& options = kLong);
Tensor bernoulli(const Tensor& probabilities);

}  // namespace ember
