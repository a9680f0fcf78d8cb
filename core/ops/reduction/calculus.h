#pragma once
// Finite differences and trapezoid-rule integration along a dim.
#include <optional>

#include "ember/core/tensor.h"

namespace ember {

// The n-th forward difference along dim (out[i] = x[i + 1] - x[i], applied n
// times; logical_xor for bool), after prepend / append are joined to x along
// dim. Each step shortens the dim by one (down to 0).
Tensor diff(const Tensor& self, int64_t n = 1, int64_t dim = -1,
            const std::optional<Tensor>& prepend = std::nullopt,
            const std::optional<Tensor>& append = std::nullopt);

// The integral of y along dim by the trapezoid rule, with sample points x
// (1-d of y.size(dim), or broadcastable with y) or a constant spacing dx.
Tensor trapezoid(const Tensor& y, const Tensor& x, int64_t dim = -1);
Tensor trapezoid(const Tensor& y, const Scalar& dx = 1, int64_t dim = -1);
// NumPy's older names for trapezoid.
Tensor trapz(const Tensor& y, const Tensor& x, int64_t dim = -1);
Tensor trapz(const Tensor& y, double dx = 1, int64_t dim = -1);
// The running integrals: out[i] = trapezoid(y[0 .. i + 1]) along dim, which
// gets y.size(dim) - 1 elements.
Tensor cumulative_trapezoid(const Tensor& y, const Tensor& x, int64_t dim = -1);
Tensor cumulative_trapezoid(const Tensor& y, const Scalar& dx = 1, int64_t dim = -1);

}  // namespace ember
