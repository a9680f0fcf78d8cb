#pragma once
// Quantiles and the NaN-ignoring median, from the sorted values (core/ops/reduction/sort.h),
// so their gradients are gather's.
#include <optional>
#include <string_view>
#include <tuple>

#include "ember/core/tensor.h"

namespace ember {

// The q-th quantiles (q in [0, 1]: a 0-d or 1-d tensor of self's dtype, or a
// number) of self along dim, or of all elements without one. The position
// q * (n - 1) in the sorted values falls between two of them; interpolation
// says which value it gets: "linear", "lower", "higher", "midpoint" or
// "nearest" (halves round to even). A 1-d q puts its dim first in the result.
// quantile gives NaN where the values hold a NaN; nanquantile leaves NaNs out
// (NaN only where all are NaN). Floating inputs only; checking q's range
// waits for the device on CUDA.
Tensor quantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim = std::nullopt,
                bool keepdim = false, std::string_view interpolation = "linear");
Tensor quantile(const Tensor& self, double q, std::optional<int64_t> dim = std::nullopt,
                bool keepdim = false, std::string_view interpolation = "linear");
Tensor nanquantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim = std::nullopt,
                   bool keepdim = false, std::string_view interpolation = "linear");
Tensor nanquantile(const Tensor& self, double q, std::optional<int64_t> dim = std::nullopt,
                   bool keepdim = false, std::string_view interpolation = "linear");
// The lower median of the values that are not NaN (NaN when all are, or when
// self is empty).
Tensor nanmedian(const Tensor& self);
// Along dim, with the index of the median in self.
std::tuple<Tensor, Tensor> nanmedian(const Tensor& self, int64_t dim, bool keepdim = false);

}  // namespace ember
