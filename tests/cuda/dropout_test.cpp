// dropout on CUDA tensors against dropout on the CPU: one seed gives the same
// keep-mask on both devices (the shared Philox draw, kernels/common/philox.h),
// so the outputs and gradients are equal. Tolerance: exact for float32 and
// float64 (x times the same scale, rounded once on each side).
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "cuda_test_helpers.h"

using namespace ember;
using namespace cuda_test;

TEST_CASE("cuda dropout: one seed drops the same elements on both devices, forward and "
          "backward", "[cuda][cuda_index]") {
  const uint64_t seed = std::random_device{}();
  CAPTURE(seed);
  for (ScalarType t : {kFloat, kDouble}) {
    for (int64_t n : std::vector<int64_t>{0, 1, 31, 1025, 65535LL * 256 * 4 + 3}) {
      INFO(t << ", n " << n);
      const Tensor x0 = (randn({n}, kDouble).abs() + 0.1).to(t);
      manual_seed(seed);
      const Tensor want = dropout(x0, 0.3, true);
      manual_seed(seed);
      const Tensor got = dropout(x0.to(kGpu), 0.3, true);
      check_same(got, want);
      CHECK(default_generator(kGpu).offset() == default_generator().offset());
    }
  }
  const Tensor x0 = randn({33, 31}, kDouble).t(), g = randn({31, 33}, kDouble);
  manual_seed(seed);
  const Tensor xc = x0.detach().requires_grad_();
  dropout(xc, 0.5, true).backward(g);
  manual_seed(seed);
  const Tensor xg = x0.to(kGpu).detach().requires_grad_();
  dropout(xg, 0.5, true).backward(g.to(kGpu));
  check_same(xg.grad(), xc.grad());
}

TEST_CASE("cuda dropout: dropout_ in place, p = 0, p = 1 and eval mode on the device",
          "[cuda][cuda_index]") {
  const Tensor x0 = randn({1025}, kFloat);
  manual_seed(3);
  Tensor c = x0.clone();
  dropout_(c, 0.25, true);
  manual_seed(3);
  Tensor d = x0.to(kGpu);
  const auto v = d._version();
  dropout_(d, 0.25, true);
  CHECK(d._version() > v);
  check_same(d, c);
  const Tensor xg = x0.to(kGpu);
  check_same(dropout(xg, 0.0, true), x0);
  check_same(dropout(xg, 0.7, false), x0);
  check_same(dropout(xg, 1.0, true), zeros({1025}, kFloat));
  REQUIRE_THROWS_WITH(dropout(xg, 1.5, true),
                      Catch::Contains("dropout: dropout probability has to be between 0 and 1"));
}

TEST_CASE("cuda dropout: feature_dropout drops the same channels on both devices",
          "[cuda][cuda_index]") {
  const uint64_t seed = std::random_device{}();
  CAPTURE(seed);
  for (ScalarType t : {kFloat, kDouble}) {
    INFO(t);
    const Tensor x0 = (randn({7, 33, 5, 3}, kDouble).abs() + 0.1).to(t);
    const Tensor g = randn({7, 33, 5, 3}, t);
    manual_seed(seed);
    const Tensor xc = x0.detach().requires_grad_();
    const Tensor want = feature_dropout(xc, 0.4, true);
    want.backward(g);
    manual_seed(seed);
    const Tensor xg = x0.to(kGpu).detach().requires_grad_();
    const Tensor got = feature_dropout(xg, 0.4, true);
    got.backward(g.to(kGpu));
    check_same(got, want.detach());
    check_same(xg.grad(), xc.grad());
  }
}
