#pragma once
// Shape arithmetic shared by every op: dim wrapping, contiguous strides,
// NumPy broadcasting, -1 inference for view/reshape.
#include <optional>

#include "ember/core/dim_vector.h"

namespace ember {

// Wraps a negative dim (-1 is the last); error names the op when out of range.
int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op);
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
