#pragma once
// Reductions over all elements or over dims (with keepdim); softmax is in
// softmax.h.
#include <optional>
#include <tuple>

#include "ember/core/tensor.h"

namespace ember {

// dim empty = all dims. Integer and bool inputs sum in int64, as PyTorch.
Tensor sum(const Tensor& x, IntArrayRef dim = {}, bool keepdim = false,
           std::optional<ScalarType> dtype = std::nullopt);
// The product of all elements, or along one dim. Integer and bool inputs
// multiply in int64, as PyTorch; the gradient is right with zeros in x.
Tensor prod(const Tensor& x, std::optional<ScalarType> dtype = std::nullopt);
Tensor prod(const Tensor& x, int64_t dim, bool keepdim = false,
            std::optional<ScalarType> dtype = std::nullopt);
Tensor mean(const Tensor& x, IntArrayRef dim = {}, bool keepdim = false,
            std::optional<ScalarType> dtype = std::nullopt);
// Sums x down to `shape` (which x's shape broadcasts from): the gradient of a
// broadcast. Returns x itself when the shapes already match.
Tensor sum_to(const Tensor& x, IntArrayRef shape);
Tensor max(const Tensor& x);
std::tuple<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor min(const Tensor& x);
std::tuple<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim = false);
// The largest / smallest value over dims (all when empty), without indices; the
// gradient is split evenly between tied elements, as PyTorch.
Tensor amax(const Tensor& x, IntArrayRef dim = {}, bool keepdim = false);
Tensor amin(const Tensor& x, IntArrayRef dim = {}, bool keepdim = false);
Tensor argmax(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor var(const Tensor& x, IntArrayRef dim = {}, bool unbiased = true, bool keepdim = false);
Tensor std(const Tensor& x, IntArrayRef dim = {}, bool unbiased = true, bool keepdim = false);
// p-norm over dims (p = 2 by default): p > 0, inf (max |x|), -inf (min |x|), or 0
// (the number of nonzero elements).
Tensor norm(const Tensor& x, std::optional<Scalar> p = 2, IntArrayRef dim = {}, bool keepdim = false);
Tensor all(const Tensor& x);
Tensor any(const Tensor& x);

}  // namespace ember
