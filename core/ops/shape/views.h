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
// The slices x.select(dim, i) for every i.
std::vector<Tensor> unbind(const Tensor& x, int64_t dim = 0);
// Moves the dims in source to the positions in destination; the others keep their order.
Tensor movedim(const Tensor& x, IntArrayRef source, IntArrayRef destination);
Tensor movedim(const Tensor& x, int64_t source, int64_t destination);
// NumPy's names for transpose.
Tensor swapaxes(const Tensor& x, int64_t axis0, int64_t axis1);
Tensor swapdims(const Tensor& x, int64_t dim0, int64_t dim1);
Tensor cat(TensorList tensors, int64_t dim = 0);
Tensor stack(TensorList tensors, int64_t dim = 0);
// Broadcasts all tensors to their common shape (views).
std::vector<Tensor> broadcast_tensors(TensorList tensors);

}  // namespace ember
