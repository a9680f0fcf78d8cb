// flip, roll, repeat, tril, triu, unbind and movedim on CUDA tensors against
// the CPU: they compose existing kernels (index_select, cat, expand, where),
// so these check the composition's device handling, forward and gradient.
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <functional>
#include <vector>

#include "cuda_test_helpers.h"

using namespace ember;
using namespace cuda_test;

TEST_CASE("cuda shape ops match the CPU, forward and gradient", "[cuda][cuda_shape_ops]") {
  manual_seed(21);
  const std::vector<std::function<Tensor(const Tensor&)>> ops = {
      [](const Tensor& x) { return flip(x, {0, 2}); },
      [](const Tensor& x) { return roll(x, {2, -1}, {1, 2}); },
      [](const Tensor& x) { return roll(x, {7}); },
      [](const Tensor& x) { return x.repeat({2, 1, 3, 1}); },
      [](const Tensor& x) { return tril(x, -1); },
      [](const Tensor& x) { return triu(x, 1); },
      [](const Tensor& x) { return x.unbind(1)[2]; },
      [](const Tensor& x) { return x.movedim({0, 2}, {2, 0}); },
  };
  for (size_t k = 0; k < ops.size(); ++k) {
    for (ScalarType t : {kFloat, kDouble}) {
      INFO("op " << k << ", " << t);
      const Tensor base = random_nonzero({3, 4, 5}, t);
      const Tensor xc = cpu_leaf(base), xg = gpu_leaf(base);
      const Tensor yc = ops[k](xc.transpose(1, 2)), yg = ops[k](xg.transpose(1, 2));
      check_same(yg, yc);
      const Tensor w = random_nonzero(yc.sizes(), t);
      (yc * w).sum().backward();
      (yg * w.to(kGpu)).sum().backward();
      check_same(xg.grad(), xc.grad(), tolerance(t, 1e-6));
    }
  }
  const Tensor m = random_nonzero({4, 4}, kLong);
  check_same(tril(m.to(kGpu)), tril(m));
  check_same(triu(m.to(kGpu) > 0, 2), triu(m > 0, 2));
}
