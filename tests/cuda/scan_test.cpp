// cumsum, cumprod (kernels/cuda/scan_kernels.cu) and prod (the kProd
// reduction) on CUDA against the CPU: dtypes, dims, non-contiguous inputs,
// empty shapes, and gradients.
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <functional>
#include <vector>

#include "cuda_test_helpers.h"

using namespace ember;
using namespace cuda_test;

TEST_CASE("cuda cumsum, cumprod and prod match the CPU on every dim and dtype", "[cuda][cuda_scan]") {
  manual_seed(31);
  const std::vector<std::function<Tensor(const Tensor&, int64_t)>> ops = {
      [](const Tensor& x, int64_t d) { return cumsum(x, d); },
      [](const Tensor& x, int64_t d) { return cumprod(x * 0.25 + (x > 0).to(x.scalar_type()), d); },
      [](const Tensor& x, int64_t d) { return prod(x, d); },
      [](const Tensor& x, int64_t d) { return prod(x, d, true); },
  };
  const std::vector<std::vector<int64_t>> shapes = {{3, 5, 7}, {2, 0, 3}, {1, 300, 2}};
  for (size_t k = 0; k < ops.size(); ++k)
    for (ScalarType t : {kBool, kLong, kFloat, kDouble})
      for (int64_t d : {0, 1, 2})
        for (const std::vector<int64_t>& shape : shapes) {
          if (k == 1 && t == kBool) continue;  // cumprod's input is made of arithmetic
          INFO("op " << k << ", " << t << ", dim " << d << ", shape " << IntArrayRef(shape));
          const Tensor x = random_nonzero(shape, t);
          const Tensor want = ops[k](x.transpose(0, 2), d);
          check_same(ops[k](x.to(kGpu).transpose(0, 2), d), want, tolerance(want.scalar_type(), 1e-5));
        }
  const Tensor x = random_nonzero({4, 6}, kFloat);
  check_same(prod(x.to(kGpu)), prod(x), 1e-5);
  check_same(cumsum(x.to(kGpu), 1, kDouble), cumsum(x, 1, kDouble), 1e-12);
}

TEST_CASE("cuda cumsum, cumprod and prod gradients match the CPU, zeros in prod included",
          "[cuda][cuda_scan]") {
  manual_seed(32);
  Tensor base = random_nonzero({5, 6}, kDouble);
  base.index_put_({1, 2}, 0.0);  // one zero in row 1
  const std::vector<std::function<Tensor(const Tensor&)>> ops = {
      [](const Tensor& x) { return cumsum(x, 1); },
      [](const Tensor& x) { return cumprod(x, 0) * 1.0; },
      [](const Tensor& x) { return prod(x, 1); },
      [](const Tensor& x) { return prod(x).reshape({1}); },
  };
  for (size_t k = 0; k < ops.size(); ++k) {
    INFO("op " << k);
    const Tensor in = k == 1 ? random_nonzero({5, 6}, kDouble) : base;
    const Tensor xc = cpu_leaf(in), xg = gpu_leaf(in);
    const Tensor yc = ops[k](xc), yg = ops[k](xg);
    check_same(yg, yc, 1e-12);
    const Tensor w = random_nonzero(yc.sizes(), kDouble);
    (yc * w).sum().backward();
    (yg * w.to(kGpu)).sum().backward();
    check_same(xg.grad(), xc.grad(), 1e-12);
  }
}
