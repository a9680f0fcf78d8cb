#pragma once
// Bucketing and counting: searchsorted, bucketize, bincount, histc. Integer
// (or count) results, not differentiable.
#include <optional>
#include <string_view>

#include "ember/core/tensor.h"

namespace ember {

// For each of `self` (the values): the index where it would be inserted into
// sorted_sequence to keep it sorted: the first position whose element is >=
// the value, > with right = true (or side = "right"). sorted_sequence is 1-d
// (shared by all values) or has self's leading dims (one row per value row).
// sorter: int64 indices (sorted_sequence's shape) that sort an unsorted
// sequence, e.g. from argsort. A NaN value goes past every element. The two
// get their common dtype. out_int32: ember has no int32; the result is int64.
Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& self, bool out_int32 = false,
                    bool right = false, std::optional<std::string_view> side = std::nullopt,
                    const std::optional<Tensor>& sorter = std::nullopt);
Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& self, bool out_int32 = false,
                    bool right = false, std::optional<std::string_view> side = std::nullopt,
                    const std::optional<Tensor>& sorter = std::nullopt);
// searchsorted(boundaries, self, out_int32, right) for a 1-d boundaries.
Tensor bucketize(const Tensor& self, const Tensor& boundaries, bool out_int32 = false, bool right = false);
Tensor bucketize(const Scalar& self, const Tensor& boundaries, bool out_int32 = false, bool right = false);
// The number of times each value 0, 1, ..., occurs in the 1-d non-negative
// int64 self (summed weights when given: float32 weights give float32,
// others float64); at least minlength bins. Finding the length waits for the
// device on CUDA.
Tensor bincount(const Tensor& self, const std::optional<Tensor>& weights = std::nullopt,
                int64_t minlength = 0);
// A histogram of self's elements in `bins` equal bins over [min, max] (the
// data's min and max when min == max; widened by 1 each way if those are
// equal too); elements outside (and NaN) are left out. self's dtype.
Tensor histc(const Tensor& self, int64_t bins = 100, const Scalar& min = 0, const Scalar& max = 0);

}  // namespace ember
