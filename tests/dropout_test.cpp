// Dropout (core/ops/nn_ops/dropout.cpp): the fraction kept, the 1/(1-p) scaling,
// seed reproducibility, p = 0 / p = 1 / eval, the in-place form, gradients
// (the same scaled mask) and error messages; channel dropout (feature_dropout,
// F::dropout2d, Dropout2d) drops whole channels.
#include "test_helpers.h"

#include <ember/core/ops/nn_ops/dropout.h>

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

namespace {

// For each (sample, channel) plane of y = feature_dropout(x) with x > 0: whether
// it was dropped (all zeros), after checking it is all zeros or all x / (1-p).
std::vector<bool> dropped_planes(const Tensor& x, const Tensor& y, double p) {
  const std::vector<double> xv = values(x), yv = values(y);
  const int64_t planes = x.size(0) * x.size(1), len = x.numel() / planes;
  std::vector<bool> dropped;
  for (int64_t i = 0; i < planes; ++i) {
    const bool zero = yv[i * len] == 0;
    for (int64_t j = 0; j < len; ++j) {
      INFO("plane " << i << " element " << j);
      REQUIRE(yv[i * len + j] ==
              Approx(zero ? 0.0 : xv[i * len + j] / (1 - p)).epsilon(1e-12));
    }
    dropped.push_back(zero);
  }
  return dropped;
}

}  // namespace

TEST_CASE("feature_dropout drops whole channels, about p of them, scaling the rest", "[dropout]") {
  manual_seed(21);
  const double p = 0.3;
  const Tensor x = rand({400, 50, 3, 2}, kDouble) + 0.5;  // 20000 planes of 6
  const std::vector<bool> dropped = dropped_planes(x, feature_dropout(x, p, true), p);
  const double fraction = std::count(dropped.begin(), dropped.end(), true) / 20000.0;
  // binomial: standard deviation sqrt(p (1-p) / 20000) = 0.0032; allow 5 of them
  CHECK(std::abs(fraction - p) < 0.016);
  // Samples differ: the mask is per (sample, channel), not per channel.
  bool samples_differ = false;
  for (int64_t c = 0; c < 50; ++c) samples_differ |= dropped[c] != dropped[50 + c];
  CHECK(samples_differ);
  // eval, p = 0 and p = 1
  CHECK(feature_dropout(x, p, false).is_same(x));
  CHECK(feature_dropout(x, 0.0, true).is_same(x));
  require_values(feature_dropout(x.narrow(0, 0, 2), 1.0, true), std::vector<double>(600, 0.0));
}

TEST_CASE("feature_dropout's gradient is its mask, scaled; the in-place form matches",
          "[dropout]") {
  const Tensor x = rand({3, 4, 5}, kDouble) + 0.5;
  const auto fn = [](const tensor_list& in) {
    manual_seed(8);  // one mask for every evaluation
    return feature_dropout(in[0], 0.4, true);
  };
  REQUIRE_GRADCHECK(gradcheck(fn, {x.clone().requires_grad_()}));
  REQUIRE_GRADCHECK(gradgradcheck(fn, {x.clone().requires_grad_()}));
  manual_seed(8);
  const Tensor want = feature_dropout(x, 0.4, true);
  manual_seed(8);
  Tensor in_place = x.clone();
  const auto v0 = in_place._version();
  feature_dropout_(in_place, 0.4, true);
  CHECK(in_place._version() > v0);
  require_values(in_place, values(want));
  REQUIRE_THROWS_WITH(feature_dropout(ones({3}), 0.5, true),
                      Catch::Contains("feature_dropout: expected an input of shape (N, C, *), "
                                      "got [3]"));
}

TEST_CASE("Dropout2d and F::dropout2d drop channels of (N, C, H, W) and (C, H, W) inputs",
          "[dropout]") {
  namespace F = ember::nn::functional;
  const Tensor x = rand({8, 4, 3}, kDouble) + 0.5;  // (C, H, W): 8 channels
  manual_seed(9);
  const Tensor y = F::dropout2d(x, F::Dropout2dFuncOptions().p(0.5));
  REQUIRE(y.sizes() == x.sizes());
  manual_seed(9);  // the same as that sample in a batch of one
  require_values(y, values(feature_dropout(x.unsqueeze(0), 0.5, true).squeeze(0)));
  dropped_planes(x.unsqueeze(0), y.unsqueeze(0), 0.5);
  nn::Dropout2d layer(0.5);
  const Tensor batch = rand({2, 8, 4, 3}, kDouble) + 0.5;
  manual_seed(10);
  const Tensor trained = layer(batch);
  manual_seed(10);
  require_values(trained, values(feature_dropout(batch, 0.5, true)));
  layer->eval();
  require_values(layer(batch), values(batch));
  Tensor in_place = x.clone();
  manual_seed(9);
  F::dropout2d(in_place, F::Dropout2dFuncOptions().p(0.5).inplace(true));
  require_values(in_place, values(y));
  std::ostringstream s;
  s << *layer;
  CHECK(s.str() == "Dropout2d(p=0.5, inplace=false)");
  REQUIRE_THROWS_WITH(F::dropout2d(ones({2, 3})),
                      Catch::Contains("dropout2d: expected a 3-d (C, H, W) or 4-d (N, C, H, W) "
                                      "input, got shape [2, 3]"));
  REQUIRE_THROWS_WITH(nn::Dropout2d(1.5), Catch::Contains("Dropout2d: probability has to be "
                                                          "between 0 and 1, but got 1.5"));
}
