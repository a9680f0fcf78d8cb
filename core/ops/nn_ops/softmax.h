#pragma once
// softmax, log_softmax and logsumexp along dims (softmax.cpp), numerically
// stable: each row's maximum is subtracted before exp.
#include <optional>

#include "ember/core/tensor.h"

namespace ember {

Tensor softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor logsumexp(const Tensor& x, IntArrayRef dim, bool keepdim = false);

}  // namespace ember
