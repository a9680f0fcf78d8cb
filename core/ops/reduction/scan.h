#pragma once
// Cumulative sums and products along a dim.
#include <optional>

#include "ember/core/tensor.h"

namespace ember {

// out[i] = x[0] + ... + x[i] along dim. Integer and bool inputs give int64, as
// PyTorch; dtype casts x first.
Tensor cumsum(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
// out[i] = x[0] * ... * x[i] along dim, dtypes as cumsum. The gradient is
// computed as reversed-cumsum(g * out) / x: exact for inputs without zeros.
Tensor cumprod(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);

}  // namespace ember
