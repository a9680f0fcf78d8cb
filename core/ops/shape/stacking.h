#pragma once
// Joins that first give every tensor enough dims (atleast_1d/2d/3d), as
// NumPy: hstack, vstack (row_stack), dstack, column_stack. They copy, as cat.
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

// x itself when it has at least 1 (2, 3) dims; otherwise a view with 1-sized
// dims added: () -> (1), (1, 1), (1, 1, 1); (n) -> (1, n), (1, n, 1); (m, n) -> (m, n, 1).
Tensor atleast_1d(const Tensor& x);
Tensor atleast_2d(const Tensor& x);
Tensor atleast_3d(const Tensor& x);
std::vector<Tensor> atleast_1d(TensorList tensors);
std::vector<Tensor> atleast_2d(TensorList tensors);
std::vector<Tensor> atleast_3d(TensorList tensors);

// cat along dim 0 for 1-d (or 0-d) tensors, along dim 1 otherwise.
Tensor hstack(TensorList tensors);
// cat along dim 0 of the tensors made at least 2-d; row_stack is its alias.
Tensor vstack(TensorList tensors);
Tensor row_stack(TensorList tensors);
// cat along dim 2 of the tensors made at least 3-d.
Tensor dstack(TensorList tensors);
// 0-d and 1-d tensors become columns (n, 1); then cat along dim 1.
Tensor column_stack(TensorList tensors);

}  // namespace ember
