#pragma once
// Helpers of the tests in tests/cuda: random non-zero CPU data, a CUDA result
// compared with the CPU's, leaves for the gradient checks.
#include <ember/ember.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iomanip>
#include <string>

namespace cuda_test {

inline const ember::Device kGpu(ember::kCUDA);

// Random non-zero CPU data: |randn| + 0.1 with a random sign (positive only
// when `positive`); int64 in [-9, 9] \ {0} (1..9 when positive); bool: true
// or false at random.
inline ember::Tensor random_nonzero(ember::IntArrayRef shape, ember::ScalarType dtype,
                                    bool positive = false) {
  using namespace ember;
  const Tensor r = randn(shape, kDouble);
  const Tensor magnitude = r.abs() + 0.1;
  const Tensor sign = positive ? ones(shape, kDouble)
                               : where(randn(shape, kDouble) > 0, ones(shape, kDouble), -1.0);
  if (dtype == kBool) return r > 0;
  if (dtype == kLong) return (clamp(magnitude * 3, 1.0, 9.0) * sign).to(kLong);
  return (magnitude * sign).to(dtype);
}

// got (a CUDA tensor) against want (CPU): defined, same dtype and shape, and
// close(got value, want value) for every element, both as doubles. Fails at
// the first element that is not (one assertion for the whole tensor: sizes
// reach 10^7).
template <typename Close>
void check_each(const ember::Tensor& got, const ember::Tensor& want, Close close) {
  using namespace ember;
  REQUIRE(got.defined());
  REQUIRE(got.is_cuda());
  REQUIRE(got.scalar_type() == want.scalar_type());
  REQUIRE(got.sizes() == want.sizes());
  const Tensor g = got.cpu().contiguous().to(kDouble), w = want.contiguous().to(kDouble);
  const double *pg = g.data_ptr<double>(), *pw = w.data_ptr<double>();
  for (int64_t i = 0; i < g.numel(); ++i) {
    if (!close(pg[i], pw[i]))
      FAIL("element " << i << ": cuda " << std::setprecision(17) << pg[i] << ", cpu " << pw[i]);
  }
}

// got within tol * max(1, |want|) of want; a NaN matches only a NaN, an
// infinity only itself.
inline bool close_to(double got, double want, double tol) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::abs(got - want) <= tol * std::max(1.0, std::abs(want));
}

// got (CUDA) equals want (CPU): dtype, shape, and values within
// tol * max(1, |want|) (NaN and inf exactly; tol 0: equal).
inline void check_same(const ember::Tensor& got, const ember::Tensor& want, double tol = 0) {
  check_each(got, want, [tol](double g, double w) { return close_to(g, w, tol); });
}

// The tolerance of a result of dtype t whose float32 bound is f32: float64
// tight, integers and bool exact.
inline double tolerance(ember::ScalarType t, double f32) {
  if (t == ember::kFloat) return f32;
  if (t == ember::kDouble) return 1e-12;
  return 0;
}

// A CUDA leaf requiring grad with x's values, and its CPU twin.
inline ember::Tensor gpu_leaf(const ember::Tensor& x) {
  return x.to(kGpu).detach().requires_grad_(true);
}
inline ember::Tensor cpu_leaf(const ember::Tensor& x) {
  return x.detach().clone().requires_grad_(true);
}

// An op's input: a dense CPU base, copied to the device and viewed the same
// way on both (a copy to the device is contiguous: the view must come after
// it for the kernels to see its strides).
struct ViewedInput {
  std::string name;
  std::function<ember::Tensor(ember::ScalarType)> base;
  std::function<ember::Tensor(const ember::Tensor&)> view = [](const ember::Tensor& b) {
    return b;
  };
  // The CPU input; *gpu: the CUDA one.
  ember::Tensor cpu(ember::ScalarType t, ember::Tensor* gpu) const {
    const ember::Tensor b = base(t);
    *gpu = view(b.to(kGpu));
    return view(b);
  }
};

// The gradient of sum(op(in's view of a dtype-t base) * w), w random, on CUDA
// against the CPU's, within tol.
inline void compare_input_grad(const ViewedInput& in, ember::ScalarType t,
                               const std::function<ember::Tensor(const ember::Tensor&)>& op,
                               double tol) {
  using namespace ember;
  const Tensor base = in.base(t);
  const Tensor bc = cpu_leaf(base), bg = gpu_leaf(base);
  const Tensor yc = op(in.view(bc));
  const Tensor w = random_nonzero(yc.sizes(), t);
  (yc * w).sum().backward();
  (op(in.view(bg)) * w.to(kGpu)).sum().backward();
  if (base.numel() == 0) return;
  check_same(bg.grad(), bc.grad(), tol);
}

}  // namespace cuda_test
