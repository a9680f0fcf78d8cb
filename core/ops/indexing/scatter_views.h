#pragma once
// Out-of-place writes into a view of self (select_scatter, slice_scatter,
// diagonal_scatter), masked_scatter, and fill_diagonal_ (a Tensor method,
// core/tensor.h). Each has gradients for self and src.
#include <optional>

#include "ember/core/tensor.h"

namespace ember {

// A copy of self with self.select(dim, index) replaced by src (of that shape).
Tensor select_scatter(const Tensor& self, const Tensor& src, int64_t dim, int64_t index);
// A copy of self with self.slice(dim, start, end, step) replaced by src.
Tensor slice_scatter(const Tensor& self, const Tensor& src, int64_t dim = 0,
                     std::optional<int64_t> start = std::nullopt, std::optional<int64_t> end = std::nullopt,
                     int64_t step = 1);
// A copy of self with self.diagonal(offset, dim1, dim2) replaced by src.
Tensor diagonal_scatter(const Tensor& self, const Tensor& src, int64_t offset = 0, int64_t dim1 = 0,
                        int64_t dim2 = 1);
// self (broadcast with the bool mask) with the positions where mask is true,
// in row-major order, taking source's elements (flattened) one after another.
// source needs at least as many elements as mask has true ones; counting
// them waits for the device on CUDA.
Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source);

}  // namespace ember
