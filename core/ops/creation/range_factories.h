#pragma once
// Factories of ranges and index lists: logspace, tril_indices, triu_indices.
#include "ember/core/tensor.h"

namespace ember {

// base ^ linspace(start, end, steps).
Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base = 10.0,
                const TensorOptions& options = {});
// The (row, col) positions of the lower (upper) triangle of a row x col
// matrix, col - row <= offset (>= offset), in row-major order: shape (2, count).
Tensor tril_indices(int64_t row, int64_t col, int64_t offset = 0,
                    const TensorOptions& options = kLong);
Tensor triu_indices(int64_t row, int64_t col, int64_t offset = 0,
                    const TensorOptions& options = kLong);

}  // namespace ember
