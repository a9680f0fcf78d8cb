#pragma once
// Diagonals: diagonal (a view), diag, diag_embed, trace.
#include "ember/core/tensor.h"

namespace ember {

// The elements x[..., i, ..., i + offset, ...] of dims dim1 and dim2, as a view
// whose last dim runs along the diagonal (those two dims removed). offset > 0
// is above the main diagonal, < 0 below.
Tensor diagonal(const Tensor& x, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);
// 1-d x: a square matrix with x on diagonal `diagonal`; 2-d x: a copy of that diagonal.
Tensor diag(const Tensor& x, int64_t diagonal = 0);
// Zeros of x's shape with dims dim1 and dim2 (of the result) made of x's last
// dim placed on diagonal `offset`; the inverse of diagonal(result, offset, dim1, dim2).
Tensor diag_embed(const Tensor& x, int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1);
// The sum of a matrix's main diagonal (int64 for integer matrices).
Tensor trace(const Tensor& x);

}  // namespace ember
