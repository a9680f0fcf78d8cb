#pragma once
// Grids and blocks built from several tensors: meshgrid, cartesian_prod, block_diag.
#include <string_view>
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

// For 0-d or 1-d tensors t_0..t_{n-1} of sizes s_i: n tensors of shape
// (s_0, ..., s_{n-1}), the i-th varying along dim i (expanded views).
// indexing "xy" swaps the first two dims (shape (s_1, s_0, ...)), as NumPy.
std::vector<Tensor> meshgrid(TensorList tensors, std::string_view indexing);
// libtorch 1.13 warns that the default will change; ember uses "ij" without warning.
std::vector<Tensor> meshgrid(TensorList tensors);
// Every combination of one element of each 1-d tensor, as rows (the first
// varies slowest): shape (prod sizes, n); one tensor is returned as is.
Tensor cartesian_prod(TensorList tensors);
// The tensors (0-d, 1-d as a row, or 2-d) on the diagonal of a zero matrix, in order.
Tensor block_diag(TensorList tensors);

}  // namespace ember
