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

}  // namespace ember
