// Philox streams and the random ops (kernels/common/philox.h).
#include "test_helpers.h"

#include <ember/kernels/common/philox.h>

using namespace ember;
using ember_test::values;

TEST_CASE("philox-4x32-10 matches the published known-answer vectors", "[random]") {
  // Salmon et al. (SC'11), Random123 kat_vectors: counter 0, key 0.
  const philox::Block zero = philox::generate(0, 0);
  REQUIRE(zero.v[0] == 0x6627e8d5u);
  REQUIRE(zero.v[1] == 0xe169c58du);
  REQUIRE(zero.v[2] == 0xbc57ac4cu);
  REQUIRE(zero.v[3] == 0x9b00dbd8u);
}

TEST_CASE("manual_seed makes random tensors reproducible", "[random]") {
  manual_seed(42);
  Tensor a = rand({100});
  Tensor n = randn({7, 3});
  manual_seed(42);
  REQUIRE(values(rand({100})) == values(a));
  REQUIRE(values(randn({7, 3})) == values(n));
  manual_seed(43);
  REQUIRE(values(rand({100})) != values(a));
}

TEST_CASE("a draw does not depend on the number of threads", "[random]") {
  set_num_threads(1);
  manual_seed(5);
  const auto one = values(randn({50000}));
  set_num_threads(2);
  manual_seed(5);
  REQUIRE(values(randn({50000})) == one);
}

TEST_CASE("rand is uniform in [0, 1) and randn is standard normal", "[random]") {
  manual_seed(1);
  const auto u = values(rand({200000}));
  double mean = 0, lo = 1, hi = 0;
  for (double v : u) { mean += v; lo = std::min(lo, v); hi = std::max(hi, v); }
  mean /= u.size();
  REQUIRE(lo >= 0.0);
  REQUIRE(hi < 1.0);
  REQUIRE(std::abs(mean - 0.5) < 0.005);  // sd of the mean: 0.29/sqrt(2e5) = 6.5e-4
  const auto n = values(randn({200000}, kDouble));
  double m = 0, var = 0;
  for (double v : n) m += v;
  m /= n.size();
  for (double v : n) var += (v - m) * (v - m);
  var /= n.size();
  REQUIRE(std::abs(m) < 0.01);
  REQUIRE(std::abs(var - 1.0) < 0.02);
}

TEST_CASE("uniform_ and normal_ fill in place, also through a non-contiguous view", "[random]") {
  Tensor t = zeros({4, 6});
  const uint32_t v0 = t._version();
  t.uniform_(-2, -1);
  REQUIRE(t._version() == v0 + 1);
  for (double v : values(t)) REQUIRE((v >= -2 && v < -1));
  Tensor col = t.t()[0];  // stride 6
  col.normal_(10, 0.001);
  for (double v : values(t.select(1, 0))) REQUIRE(std::abs(v - 10) < 0.01);
  REQUIRE(values(t.select(1, 1))[0] < -1);  // untouched
  REQUIRE_THROWS_WITH(t.uniform_(1, 0), Catch::Contains("from (1) must be <= to (0)"));
  REQUIRE_THROWS_WITH(zeros({2}, kInt64).normal_(), Catch::Contains("dtype int64 is not supported"));
}

// The drawn values depend on no input: through the filled tensor the gradient
// is 0, and y * x differentiates as a constant times x (the seed makes every
// call of the function draw the same values).
TEST_CASE("uniform_ and normal_ on a non-leaf pass gradcheck: the old history is cut",
          "[random]") {
  const Tensor x = randn({2, 3}, kDouble).requires_grad_();
  for (const bool normal : {false, true}) {
    INFO((normal ? "normal_" : "uniform_"));
    auto fn = [normal](const tensor_list& in) {
      manual_seed(5);
      Tensor y = in[0] * 2.0;
      if (normal)
        y.normal_(1.0, 0.5);
      else
        y.uniform_(-1.0, 2.0);
      return y * in[0] + y;
    };
    REQUIRE_GRADCHECK(autograd::gradcheck(fn, {x}));
    REQUIRE_GRADCHECK(autograd::gradcheck(fn, {x.detach().t().requires_grad_()}));
  }
}

TEST_CASE("randint stays in [low, high) and hits every value", "[random]") {
  manual_seed(3);
  const auto r = values(randint(2, 7, {5000}));
  std::vector<int> seen(7, 0);
  for (double v : r) {
    REQUIRE((v >= 2 && v < 7));
    seen[static_cast<int>(v)]++;
  }
  for (int k = 2; k < 7; ++k) REQUIRE(seen[k] > 800);
  REQUIRE(randint(10, {3}).scalar_type() == kInt64);
  REQUIRE_THROWS_WITH(randint(5, 5, {1}), Catch::Contains("low (5) must be less than high (5)"));
}

TEST_CASE("randperm is a permutation", "[random]") {
  auto p = values(randperm(50));
  std::sort(p.begin(), p.end());
  for (int i = 0; i < 50; ++i) REQUIRE(p[i] == i);
}

TEST_CASE("rand with requires_grad gives a leaf that requires grad", "[random]") {
  Tensor w = randn({3}, TensorOptions().dtype(kDouble).requires_grad(true));
  REQUIRE(w.requires_grad());
  REQUIRE(w.is_leaf());
}
