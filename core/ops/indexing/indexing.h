#pragma once
// Gather/scatter by int64 index tensors (the building blocks of losses).
#include "ember/core/tensor.h"

namespace ember {

Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index);
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index);
Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src);
// Rows of `weight` picked by int64 `indices` (any shape): embedding lookup.
Tensor embedding(const Tensor& weight, const Tensor& indices);
Tensor one_hot(const Tensor& indices, int64_t num_classes = -1);
Tensor masked_fill(const Tensor& x, const Tensor& mask, const Scalar& value);
// The elements of x where mask (broadcast with x) is true, as a 1-d tensor.
Tensor masked_select(const Tensor& x, const Tensor& mask);
// The positions of x's nonzero elements, (count, x.dim()) int64, in row-major
// order. On CUDA it waits for the device (the count decides the shape).
Tensor nonzero(const Tensor& x);

}  // namespace ember
