#pragma once
// Covariance and correlation matrices, NaN-ignoring sum and mean, min and max
// in one call, and counts of nonzero elements.
#include <optional>
#include <tuple>

#include "ember/core/tensor.h"

namespace ember {

// The covariance of the rows (variables) of a 2-d x over its columns
// (observations); one variable (a 1-d x or a single row) gives a 0-d result.
// fweights: integer repeat counts, aweights: non-negative floating weights,
// one per observation.
// The sum of weights minus `correction` (scaled by the aweights' spread when
// given) is the divisor. Integer inputs compute in float32.
Tensor cov(const Tensor& self, int64_t correction = 1, const std::optional<Tensor>& fweights = std::nullopt,
           const std::optional<Tensor>& aweights = std::nullopt);
// Pearson's correlation coefficients of the rows: cov normalised by the
// standard deviations, clipped to [-1, 1].
Tensor corrcoef(const Tensor& self);
// sum and mean with NaN counted as absent (nanmean of floating inputs only;
// an all-NaN slice has mean NaN).
Tensor nansum(const Tensor& self, IntArrayRef dim = {}, bool keepdim = false,
              std::optional<ScalarType> dtype = std::nullopt);
Tensor nanmean(const Tensor& self, IntArrayRef dim = {}, bool keepdim = false,
               std::optional<ScalarType> dtype = std::nullopt);
// (amin, amax) over dim, or over all elements without one.
std::tuple<Tensor, Tensor> aminmax(const Tensor& self, std::optional<int64_t> dim = std::nullopt,
                                   bool keepdim = false);
// The number of nonzero elements over dims (all when empty / nullopt), int64.
Tensor count_nonzero(const Tensor& self, IntArrayRef dim);
Tensor count_nonzero(const Tensor& self, std::optional<int64_t> dim = std::nullopt);

}  // namespace ember
