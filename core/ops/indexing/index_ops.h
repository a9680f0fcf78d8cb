#pragma once
// Writes along one dim at the positions of a 1-d index: index_add,
// index_copy, index_fill; and take (a flat gather). In-place forms are
// Tensor methods (core/tensor.h).
#include <optional>
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

// self with alpha * source's slices along dim added at index's positions
// (repeats add up). source: self's shape with index.numel() at dim.
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                 const Scalar& alpha = 1);
// self with source's slices along dim written at index's positions (with
// repeats, one of the writes lands).
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
// self with the slices along dim at index's positions set to value (a 0-d
// tensor value gets the summed gradient of the filled positions).
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value);
// self as 1-d, read at index (any shape; negative values count from the end):
// a tensor of index's shape.
Tensor take(const Tensor& self, const Tensor& index);

// libtorch's list form of index_put (a nullopt entry is a whole dim); the
// Tensor methods also take TensorIndex lists (core/tensor_index.h).
// accumulate: values add up where positions repeat; without it, one lands.
Tensor index_put(const Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                 const Tensor& values, bool accumulate = false);
Tensor& index_put_(Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                   const Tensor& values, bool accumulate = false);

}  // namespace ember
