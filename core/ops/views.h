#pragma once
// Views share storage with their input (and its version counter). Joining ops
// (cat, stack) copy.
#include <optional>
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1);
Tensor permute(const Tensor& x, IntArrayRef dims);
Tensor reshape(const Tensor& x, IntArrayRef shape);
Tensor flatten(const Tensor& x, int64_t start_dim = 0, int64_t end_dim = -1);
Tensor squeeze(const Tensor& x);
Tensor squeeze(const Tensor& x, int64_t dim);
Tensor unsqueeze(const Tensor& x, int64_t dim);
Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length);
Tensor select(const Tensor& x, int64_t dim, int64_t index);
Tensor cat(TensorList tensors, int64_t dim = 0);
Tensor stack(TensorList tensors, int64_t dim = 0);
// Broadcasts all tensors to their common shape (views).
std::vector<Tensor> broadcast_tensors(TensorList tensors);

}  // namespace ember
