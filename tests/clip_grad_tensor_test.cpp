// clip_grad_norm_tensor_ (nn/utils/clip_grad.h) on CPU gradients: the total
// comes back as a 0-dim float64 tensor and the gradients are scaled as by
// clip_grad_norm_. Its CUDA path is tested in tests/cuda/optim_test.cpp.
#include <catch2/catch.hpp>

#include <ember/nn/utils/clip_grad.h>

#include "test_helpers.h"

using namespace ember;
using namespace ember_test;

TEST_CASE("clip_grad_norm_tensor_ returns the total norm as a 0-dim float64 tensor",
          "[cuda_optim]") {
  Tensor a = zeros({2}).requires_grad_(), b = zeros({1}, kDouble).requires_grad_();
  a.set_grad(tensor({3.0f, 0.0f}));
  b.set_grad(tensor({4.0}, kDouble));
  const Tensor total = nn::utils::clip_grad_norm_tensor_({a, b}, 1.0);
  CHECK(total.dim() == 0);
  CHECK(total.dtype() == kDouble);
  CHECK(total.is_cpu());
  CHECK(total.item<double>() == 5.0);  // sqrt(3^2 + 4^2)
  const double scale = 1.0 / (5.0 + 1e-6);
  require_values(a.grad(), {3.0 * scale, 0.0}, 1e-7);
  require_values(b.grad(), {4.0 * scale}, 1e-15);
  REQUIRE_THROWS_WITH(nn::utils::clip_grad_norm_tensor_({a}, 1.0, 0.0),
                      Catch::Contains("clip_grad_norm_: norm_type must be positive"));
}
