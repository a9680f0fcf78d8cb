#pragma once
// Helpers of the CUDA reduce, softmax and loss tests: random non-zero CPU
// data, and a CUDA result compared with the CPU's.
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>

namespace reduce_family {

inline const ember::Device kGpu(ember::kCUDA);

// Random non-zero CPU data: |randn| + 0.1 with a random sign; int64 in
// [-9, 9] \ {0}; bool: true or false at random.
inline ember::Tensor random_nonzero(ember::IntArrayRef shape, ember::ScalarType dtype) {
  using namespace ember;
  const Tensor r = randn(shape, kDouble);
  if (dtype == kBool) return r > 0;
  const Tensor sign = where(randn(shape, kDouble) > 0, ones(shape, kDouble), -1.0);
  const Tensor magnitude = r.abs() + 0.1;
  if (dtype == kLong) return (clamp(magnitude * 3, 1.0, 9.0) * sign).to(kLong);
  return (magnitude * sign).to(dtype);
}

// got (a CUDA tensor) equals want (CPU): dtype, shape, and values within
// tol * max(1, |want|) (NaN and inf exactly).
inline void check_same(const ember::Tensor& got, const ember::Tensor& want, double tol) {
  using namespace ember;
  REQUIRE(got.is_cuda());
  REQUIRE(got.scalar_type() == want.scalar_type());
  REQUIRE(got.sizes() == want.sizes());
  const Tensor g = got.cpu().contiguous().to(kDouble), w = want.contiguous().to(kDouble);
  const double *pg = g.data_ptr<double>(), *pw = w.data_ptr<double>();
  for (int64_t i = 0; i < g.numel(); ++i) {
    INFO("element " << i << ": cuda " << pg[i] << ", cpu " << pw[i]);
    if (std::isnan(pw[i]))
      REQUIRE(std::isnan(pg[i]));
    else if (std::isinf(pw[i]))
      REQUIRE(pg[i] == pw[i]);
    else
      REQUIRE(std::abs(pg[i] - pw[i]) <= tol * std::max(1.0, std::abs(pw[i])));
  }
}

// The tolerance of a result of dtype t whose float32 bound is f32: float64
// tight, integers and bool exact.
inline double tolerance(ember::ScalarType t, double f32) {
  if (t == ember::kFloat) return f32;
  if (t == ember::kDouble) return 1e-12;
  return 0;
}

// A CUDA leaf requiring grad with x's values.
inline ember::Tensor gpu_leaf(const ember::Tensor& x) {
  return x.to(kGpu).detach().requires_grad_(true);
}
inline ember::Tensor cpu_leaf(const ember::Tensor& x) {
  return x.detach().clone().requires_grad_(true);
}

}  // namespace reduce_family
