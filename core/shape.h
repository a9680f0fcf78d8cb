#pragma once
// Shape arithmetic shared by every op: dim wrapping, contiguous strides,
// NumPy broadcasting, -1 inference for view/reshape.
#include <optional>

#include "ember/core/dim_vector.h"

namespace ember {

// Note [Checked sizes]: a size that comes from outside (a file, a header, a
// user's shape) is multiplied with checked_mul, never with a bare `*`, so a
// hostile size is an Error naming its source instead of an overflow.
std::optional<int64_t> checked_mul(int64_t a, int64_t b);
std::optional<uint64_t> checked_mul(uint64_t a, uint64_t b);
// The element count of sizes, or nullopt when a size is negative or a tensor
// of that shape cannot be addressed in int64: the product of the sizes with
// each 0 counted as 1 (what the largest contiguous stride spans) overflows.
// A zero cannot hide an overflow of the others: [0, 2^62, 4] is refused.
std::optional<int64_t> checked_numel(IntArrayRef sizes);

// Wraps a negative dim (-1 is the last); error names the op when out of range.
int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op);
// Both raise an Error when checked_numel refuses the shape.
DimVector contiguous_strides(IntArrayRef sizes);
int64_t compute_numel(IntArrayRef sizes);
bool is_contiguous_layout(IntArrayRef sizes, IntArrayRef strides);
// The broadcast shape of a and b, or an Error naming op and both shapes.
DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b, const char* op);
// True when `from` broadcasts to `to` (trailing dims equal or 1).
bool is_expandable_to(IntArrayRef from, IntArrayRef to);
// Fills in a single -1 of `shape` so it holds numel elements.
DimVector infer_size(IntArrayRef shape, int64_t numel, const char* op);
// Strides that let a tensor of (sizes, strides) be viewed as new_sizes
// without a copy, or nullopt when the memory layout does not allow it.
std::optional<DimVector> view_strides(IntArrayRef sizes, IntArrayRef strides, IntArrayRef new_sizes);

}  // namespace ember
