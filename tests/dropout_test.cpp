// Dropout (core/ops/dropout.cpp): the fraction kept, the 1/(1-p) scaling,
// seed reproducibility, p = 0 / p = 1 / eval, the in-place form, gradients
// (the same scaled mask) and error messages.
#include "test_helpers.h"

#include <ember/core/ops/dropout.h>

#include <cmath>

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using ember_test::require_values;
using ember_test::values;

TEST_CASE("dropout keeps about 1-p of the elements and scales them by 1/(1-p)", "[dropout]") {
  for (ScalarType t : {kFloat, kDouble})
    for (double p : {0.1, 0.5, 0.8}) {
      INFO(t << " p " << p);
      const int64_t n = 1 << 20;
      const Tensor x = rand({n}, t) + 1.0;  // no zeros: a zero output means dropped
      const Tensor y = dropout(x, p, true);
      const std::vector<double> xv = values(x), yv = values(y);
      int64_t kept = 0, misscaled = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (yv[i] == 0) continue;
        ++kept;
        misscaled += std::abs(yv[i] - xv[i] / (1 - p)) > 1e-6 * yv[i];
      }
      REQUIRE(misscaled == 0);
      // The kept count is Binomial(n, 1-p): its standard deviation
      // sqrt(p(1-p)/n) <= 5e-4 as a fraction, so 5e-3 is 10 of them.
      REQUIRE(std::abs(static_cast<double>(kept) / n - (1 - p)) < 5e-3);
    }
}

TEST_CASE("dropout draws the same mask from the same seed and another from another", "[dropout]") {
  const Tensor x = ones({1000});
  manual_seed(42);
  const Tensor a = dropout(x, 0.5, true);
  manual_seed(42);
  const Tensor b = dropout(x, 0.5, true);
  const Tensor c = dropout(x, 0.5, true);  // the generator moved on
  require_values(b, values(a), 0);
  REQUIRE(values(c) != values(a));
  // A non-contiguous input gets the mask of its logical (row-major) order.
  const Tensor xt = (rand({7, 9}, kDouble) + 1).t();
  manual_seed(5);
  const Tensor yt = dropout(xt, 0.4, true);
  manual_seed(5);
  const Tensor mask = dropout(ones({9, 7}, kDouble), 0.4, true);
  require_values(yt, values(xt * mask));
}

TEST_CASE("dropout returns its input unchanged in eval or with p = 0, and zeros with p = 1",
          "[dropout]") {
  const Tensor x = rand({4, 5}) + 1;
  REQUIRE(dropout(x, 0.5, false).is_same(x));
  REQUIRE(dropout(x, 0.0, true).is_same(x));
  const Tensor leaf_x = (rand({4, 5}, kDouble) + 1).requires_grad_();
  const Tensor y = dropout(leaf_x, 1.0, true);
  require_values(y, std::vector<double>(20, 0.0));
  y.sum().backward();
  require_values(leaf_x.grad(), std::vector<double>(20, 0.0));
  REQUIRE(dropout(zeros({0, 3}), 0.5, true).sizes() == IntArrayRef{0, 3});
}

TEST_CASE("dropout's gradient is the mask scaled by 1/(1-p)", "[dropout]") {
  const double p = 0.3;
  const Tensor x = (rand({50}, kDouble) + 1).requires_grad_();
  const Tensor y = dropout(x, p, true);
  y.backward(ones({50}, kDouble));
  const std::vector<double> yv = values(y);
  std::vector<double> want;
  for (double v : yv) want.push_back(v == 0 ? 0.0 : 1 / (1 - p));
  require_values(x.grad(), want);
  // gradcheck calls fn many times: reseeding keeps the mask fixed.
  const Tensor xs = (rand({3, 4}, kDouble) + 1).t().requires_grad_();
  auto fn = [p](const tensor_list& in) {
    manual_seed(11);
    return dropout(in[0], p, true);
  };
  REQUIRE_GRADCHECK(gradcheck(fn, {xs}));
  REQUIRE_GRADCHECK(gradgradcheck(fn, {xs}));
}

TEST_CASE("dropout_ masks in place, bumps the version and matches dropout", "[dropout]") {
  const Tensor x = rand({200}, kDouble) + 1;
  Tensor inplace = x.clone();
  const uint32_t version = inplace._version();
  manual_seed(9);
  Tensor& same = dropout_(inplace, 0.25, true);
  REQUIRE(&same == &inplace);
  REQUIRE(inplace._version() > version);
  manual_seed(9);
  require_values(inplace, values(dropout(x, 0.25, true)));
  Tensor untouched = x.clone();
  const uint32_t v0 = untouched._version();
  dropout_(untouched, 0.25, false);
  REQUIRE(untouched._version() == v0);
  require_values(untouched, values(x));
}

TEST_CASE("dropout rejects p outside [0, 1] and integer inputs", "[dropout]") {
  Tensor x = ones({3});
  REQUIRE_THROWS_WITH(dropout(x, 1.5, true),
                      Catch::Contains("dropout: dropout probability has to be between 0 and 1, "
                                      "but got 1.5"));
  REQUIRE_THROWS_WITH(dropout_(x, -0.1, true),
                      Catch::Contains("dropout_: dropout probability has to be between 0 and 1, "
                                      "but got -0.1"));
  REQUIRE_THROWS_WITH(dropout(ones({3}, kLong), 0.5, true),
                      Catch::Contains("dropout: expected a floating point input, got int64"));
}
