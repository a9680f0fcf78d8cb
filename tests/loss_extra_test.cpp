// The losses of nn/functional/loss_extra.h: each forward against its formula
// written out here as a float64 loop (the formula is stated above the loop)
// for every reduction, gradients by gradcheck / gradgradcheck in float64, the
// modules, and error messages.
#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "test_helpers.h"

using namespace ember;
namespace F = ember::nn::functional;
using autograd::gradcheck;
using autograd::gradgradcheck;
using ember_test::require_values;
using ember_test::values;

namespace {

Tensor leaf(const Tensor& t) { return t.detach().requires_grad_(); }

// kNone: the per-element losses; kMean: their mean; kSum: their sum.
std::vector<double> reduce(const std::vector<double>& v, Reduction r) {
  if (r == kNone) return v;
  double s = 0;
  for (double x : v) s += x;
  return {r == kSum ? s : s / static_cast<double>(v.size())};
}

// Checks loss(r) against the reduction of `per_element` for kNone, kMean and kSum.
void check_reductions(const std::function<Tensor(Reduction)>& loss,
                      const std::vector<double>& per_element, double tol = 1e-12) {
  for (Reduction r : {kNone, kMean, kSum}) {
    INFO("reduction " << r);
    require_values(loss(r), reduce(per_element, r), tol);
  }
}

std::vector<double> uniform(std::initializer_list<int64_t> shape, double lo, double hi,
                            uint64_t seed) {
  manual_seed(seed);
  return values(rand(IntArrayRef(shape), kDouble) * (hi - lo) + lo);
}

Tensor from(const std::vector<double>& v, IntArrayRef shape) {
  return tensor(v, kDouble).reshape(shape);
}

}  // namespace

// ---------------------------------------------------------------- kl_div

TEST_CASE("kl_div matches t (log t - x), 0 where t = 0, for every reduction and kBatchMean",
          "[loss_extra]") {
  const std::vector<double> x = uniform({3, 4}, -3, 0, 1);
  std::vector<double> t = uniform({3, 4}, 0, 1, 2);
  t[5] = 0;  // xlogy: contributes 0, not NaN
  std::vector<double> want;
  for (size_t i = 0; i < x.size(); ++i)
    want.push_back(t[i] == 0 ? 0 : t[i] * (std::log(t[i]) - x[i]));
  const Tensor xi = from(x, {3, 4}), ti = from(t, {3, 4});
  check_reductions(
      [&](Reduction r) { return F::kl_div(xi, ti, F::KLDivFuncOptions().reduction(r)); }, want);
  const double batch_mean = reduce(want, kSum)[0] / 3;
  require_values(F::kl_div(xi, ti, F::KLDivFuncOptions().reduction(kBatchMean)), {batch_mean});
}

TEST_CASE("kl_div with log_target matches exp(t) (t - x)", "[loss_extra]") {
  const std::vector<double> x = uniform({2, 5}, -3, 0, 3), t = uniform({2, 5}, -4, 0, 4);
  std::vector<double> want;
  for (size_t i = 0; i < x.size(); ++i) want.push_back(std::exp(t[i]) * (t[i] - x[i]));
  const Tensor xi = from(x, {2, 5}), ti = from(t, {2, 5});
  check_reductions(
      [&](Reduction r) {
        return F::kl_div(xi, ti, F::KLDivFuncOptions().reduction(r).log_target(true));
      },
      want);
  require_values(F::kl_div(xi, ti, F::KLDivFuncOptions().reduction(kBatchMean).log_target(true)),
                 {reduce(want, kSum)[0] / 2});
}

TEST_CASE("kl_div gradients wrt input and target pass gradcheck and gradgradcheck",
          "[loss_extra]") {
  const Tensor x = leaf(from(uniform({3, 4}, -3, 0, 5), {3, 4}));
  const Tensor t = leaf(from(uniform({3, 4}, 0.1, 1, 6), {3, 4}));
  for (bool log_target : {false, true}) {
    auto fn = [log_target](const tensor_list& in) {
      return F::kl_div(in[0], in[1],
                       F::KLDivFuncOptions().reduction(kBatchMean).log_target(log_target));
    };
    REQUIRE_GRADCHECK(gradcheck(fn, {x, t}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {x, t}));
  }
}

TEST_CASE("kl_div rejects integer targets and shapes that do not broadcast", "[loss_extra]") {
  REQUIRE_THROWS_WITH(F::kl_div(zeros({2, 3}, kDouble), zeros({2, 3}, kLong)),
                      Catch::Contains("kl_div: expected a floating point target, got int64"));
  REQUIRE_THROWS_WITH(F::kl_div(zeros({2, 3}, kLong), zeros({2, 3}, kDouble)),
                      Catch::Contains("kl_div: expected a floating point input, got int64"));
  REQUIRE_THROWS_WITH(F::kl_div(zeros({2, 3}, kDouble), zeros({4}, kDouble)),
                      Catch::Contains("kl_div") && Catch::Contains("[2, 3]") &&
                          Catch::Contains("[4]") && Catch::Contains("do not broadcast"));
}

// ---------------------------------------------------------------- huber_loss

TEST_CASE("huber_loss is 0.5 d^2 below delta and delta (|d| - 0.5 delta) above", "[loss_extra]") {
  const std::vector<double> x = uniform({3, 4}, -2, 2, 7), y = uniform({3, 4}, -2, 2, 8);
  for (double delta : {1.0, 0.5, 3.0}) {
    INFO("delta " << delta);
    std::vector<double> want;
    for (size_t i = 0; i < x.size(); ++i) {
      const double d = std::abs(x[i] - y[i]);
      want.push_back(d < delta ? 0.5 * d * d : delta * (d - 0.5 * delta));
    }
    check_reductions(
        [&](Reduction r) {
          return F::huber_loss(from(x, {3, 4}), from(y, {3, 4}),
                               F::HuberLossFuncOptions().reduction(r).delta(delta));
        },
        want);
  }
}

TEST_CASE("huber_loss broadcasts target; gradients pass gradcheck and gradgradcheck",
          "[loss_extra]") {
  // Differences kept away from +-delta (0.7) where the second derivative jumps.
  const Tensor x = leaf(tensor({{0.1, 1.5, -2.0}, {0.3, -0.2, 2.2}}, kDouble));
  const Tensor y = leaf(tensor({0.4, 0.2, -0.9}, kDouble));
  require_values(F::huber_loss(x, y, F::HuberLossFuncOptions().reduction(kSum).delta(0.7)),
                 {0.5 * 0.09 + 0.7 * (1.3 - 0.35) + 0.7 * (1.1 - 0.35) + 0.5 * 0.01 + 0.5 * 0.16 +
                  0.7 * (3.1 - 0.35)});
  auto fn = [](const tensor_list& in) {
    return F::huber_loss(in[0], in[1], F::HuberLossFuncOptions().delta(0.7));
  };
  REQUIRE_GRADCHECK(gradcheck(fn, {x, y}));
  REQUIRE_GRADCHECK(gradgradcheck(fn, {x, y}));
}

TEST_CASE("huber_loss rejects delta <= 0 and integer targets", "[loss_extra]") {
  const Tensor a = zeros({3}, kDouble);
  REQUIRE_THROWS_WITH(F::huber_loss(a, a, F::HuberLossFuncOptions().delta(0)),
                      Catch::Contains("huber_loss: delta must be positive, got 0"));
  REQUIRE_THROWS_WITH(F::huber_loss(a, zeros({3}, kLong)),
                      Catch::Contains("huber_loss: expected a floating point target"));
  REQUIRE_THROWS_WITH(F::huber_loss(a, zeros({2}, kDouble)),
                      Catch::Contains("huber_loss") && Catch::Contains("do not broadcast"));
}

// ---------------------------------------------------------------- soft_margin_loss

TEST_CASE("soft_margin_loss matches log(1 + exp(-y x)), float and int64 targets", "[loss_extra]") {
  const std::vector<double> x = uniform({2, 4}, -3, 3, 9);
  const std::vector<double> y = {1, -1, -1, 1, 1, 1, -1, -1};
  std::vector<double> want;
  for (size_t i = 0; i < x.size(); ++i) want.push_back(std::log1p(std::exp(-y[i] * x[i])));
  const Tensor xi = from(x, {2, 4});
  check_reductions(
      [&](Reduction r) {
        return F::soft_margin_loss(xi, from(y, {2, 4}),
                                   F::SoftMarginLossFuncOptions().reduction(r));
      },
      want);
  require_values(F::soft_margin_loss(xi, from(y, {2, 4}).to(kLong)), reduce(want, kMean));
  // No overflow: y x = -800 gives 800.
  require_values(F::soft_margin_loss(tensor({800.0}, kDouble), tensor({-1.0}, kDouble)), {800.0});
}

TEST_CASE("soft_margin_loss gradients pass gradcheck and gradgradcheck", "[loss_extra]") {
  const Tensor x = leaf(from(uniform({3, 2}, -2, 2, 10), {3, 2}));
  const Tensor y = tensor({{1.0, -1.0}, {-1.0, -1.0}, {1.0, 1.0}}, kDouble);
  auto fn = [&](const tensor_list& in) { return F::soft_margin_loss(in[0], y); };
  REQUIRE_GRADCHECK(gradcheck(fn, {x}));
  REQUIRE_GRADCHECK(gradgradcheck(fn, {x}));
}

TEST_CASE("soft_margin_loss rejects bool targets and targets larger than the input",
          "[loss_extra]") {
  REQUIRE_THROWS_WITH(F::soft_margin_loss(zeros({3}, kDouble), zeros({3}, kBool)),
                      Catch::Contains("soft_margin_loss") && Catch::Contains("got bool"));
  REQUIRE_THROWS_WITH(F::soft_margin_loss(zeros({3}, kDouble), zeros({2, 3}, kDouble)),
                      Catch::Contains("soft_margin_loss: target of shape [2, 3] does not "
                                      "broadcast to the input's shape [3]"));
}

// ---------------------------------------------------------------- margin_ranking_loss

TEST_CASE("margin_ranking_loss matches max(0, -y (x1 - x2) + margin)", "[loss_extra]") {
  const std::vector<double> a = uniform({6}, -1, 1, 11), b = uniform({6}, -1, 1, 12);
  const std::vector<double> y = {1, -1, 1, -1, 1, -1};
  for (double margin : {0.0, 0.3}) {
    std::vector<double> want;
    for (size_t i = 0; i < a.size(); ++i)
      want.push_back(std::max(0.0, -y[i] * (a[i] - b[i]) + margin));
    check_reductions(
        [&](Reduction r) {
          return F::margin_ranking_loss(
              from(a, {6}), from(b, {6}), from(y, {6}),
              F::MarginRankingLossFuncOptions().margin(margin).reduction(r));
        },
        want);
  }
}

TEST_CASE("margin_ranking_loss gradients wrt both inputs and the target pass gradcheck",
          "[loss_extra]") {
  // -y (a - b) + 0.1 stays away from 0 (the kink).
  const Tensor a = leaf(tensor({0.5, -0.3, 1.2, 0.0}, kDouble));
  const Tensor b = leaf(tensor({0.1, 0.6, 0.2, 0.9}, kDouble));
  const Tensor y = leaf(tensor({-1.0, 1.0, -1.0, -1.0}, kDouble));
  auto fn = [](const tensor_list& in) {
    return F::margin_ranking_loss(in[0], in[1], in[2],
                                  F::MarginRankingLossFuncOptions().margin(0.1));
  };
  REQUIRE_GRADCHECK(gradcheck(fn, {a, b, y}));
  REQUIRE_GRADCHECK(gradgradcheck(fn, {a, b, y}));
}

TEST_CASE("margin_ranking_loss rejects inputs of different numbers of dims", "[loss_extra]") {
  REQUIRE_THROWS_WITH(
      F::margin_ranking_loss(zeros({3}, kDouble), zeros({3}, kDouble), zeros({1, 3}, kDouble)),
      Catch::Contains("margin_ranking_loss: expected input1, input2 and target of one number of "
                      "dims, got shapes [3], [3] and [1, 3]"));
  REQUIRE_THROWS_WITH(
      F::margin_ranking_loss(zeros({3}, kDouble), zeros({2}, kDouble), zeros({3}, kDouble)),
      Catch::Contains("margin_ranking_loss") && Catch::Contains("do not broadcast"));
}

// ---------------------------------------------------------------- hinge_embedding_loss

TEST_CASE("hinge_embedding_loss: x where y = 1, max(0, margin - x) where y = -1, both else",
          "[loss_extra]") {
  const std::vector<double> x = uniform({2, 4}, -1, 3, 13);
  const std::vector<double> y = {1, -1, -1, 1, 0, -1, 1, 2};
  for (double margin : {1.0, 2.5}) {
    std::vector<double> want;
    for (size_t i = 0; i < x.size(); ++i) {
      const double hinge = std::max(0.0, margin - x[i]);
      want.push_back(y[i] == 1 ? x[i] : y[i] == -1 ? hinge : x[i] + hinge);
    }
    check_reductions(
        [&](Reduction r) {
          return F::hinge_embedding_loss(
              from(x, {2, 4}), from(y, {2, 4}),
              F::HingeEmbeddingLossFuncOptions().margin(margin).reduction(r));
        },
        want);
  }
}

TEST_CASE("hinge_embedding_loss gradient passes gradcheck and gradgradcheck", "[loss_extra]") {
  const Tensor x = leaf(tensor({0.3, 1.7, -0.4, 0.6}, kDouble));
  const Tensor y = tensor({-1, -1, 1, -1});  // int64 labels
  auto fn = [&](const tensor_list& in) { return F::hinge_embedding_loss(in[0], y); };
  REQUIRE_GRADCHECK(gradcheck(fn, {x}));
  REQUIRE_GRADCHECK(gradgradcheck(fn, {x}));
}

TEST_CASE("hinge_embedding_loss rejects bool targets and mismatched shapes", "[loss_extra]") {
  REQUIRE_THROWS_WITH(F::hinge_embedding_loss(zeros({3}, kDouble), zeros({3}, kBool)),
                      Catch::Contains("hinge_embedding_loss: expected a floating point or int64 "
                                      "target of +-1 labels, got bool"));
  REQUIRE_THROWS_WITH(F::hinge_embedding_loss(zeros({3}, kDouble), zeros({4}, kDouble)),
                      Catch::Contains("hinge_embedding_loss") && Catch::Contains("[4]"));
}

// ---------------------------------------------------------------- cosine_embedding_loss

namespace {

// cos of rows u, v of length d, with 1e-12 added to each squared norm.
double embedding_cos(const double* u, const double* v, int d) {
  double dot = 0, uu = 0, vv = 0;
  for (int k = 0; k < d; ++k) dot += u[k] * v[k], uu += u[k] * u[k], vv += v[k] * v[k];
  return dot / std::sqrt((uu + 1e-12) * (vv + 1e-12));
}

}  // namespace

TEST_CASE("cosine_embedding_loss: 1 - cos for y = 1, max(0, cos - margin) for y = -1",
          "[loss_extra]") {
  const std::vector<double> a = uniform({4, 3}, -1, 1, 14), b = uniform({4, 3}, -1, 1, 15);
  const std::vector<double> y = {1, -1, -1, 0};
  for (double margin : {0.0, -0.5, 0.2}) {
    std::vector<double> want;
    for (int i = 0; i < 4; ++i) {
      const double c = embedding_cos(&a[i * 3], &b[i * 3], 3);
      want.push_back(y[i] == 1 ? 1 - c : y[i] == -1 ? std::max(0.0, c - margin) : 0);
    }
    check_reductions(
        [&](Reduction r) {
          return F::cosine_embedding_loss(
              from(a, {4, 3}), from(b, {4, 3}), from(y, {4}),
              F::CosineEmbeddingLossFuncOptions().margin(margin).reduction(r));
        },
        want);
  }
  // One pair: (3) inputs with a 0-d target.
  const double c0 = embedding_cos(&a[0], &b[0], 3);
  require_values(
      F::cosine_embedding_loss(from(a, {4, 3})[0], from(b, {4, 3})[0], tensor(-1.0, kDouble)),
      {std::max(0.0, c0)});
}

TEST_CASE("cosine_embedding_loss gradients pass gradcheck and gradgradcheck", "[loss_extra]") {
  const Tensor a = leaf(from(uniform({3, 4}, -1, 1, 16), {3, 4}));
  const Tensor b = leaf(from(uniform({3, 4}, -1, 1, 17), {3, 4}));
  const Tensor y = tensor({1, -1, 1});
  auto fn = [&](const tensor_list& in) {
    return F::cosine_embedding_loss(in[0], in[1], y,
                                    F::CosineEmbeddingLossFuncOptions().margin(-0.9));
  };
  REQUIRE_GRADCHECK(gradcheck(fn, {a, b}));
  REQUIRE_GRADCHECK(gradgradcheck(fn, {a, b}));
}

TEST_CASE("cosine_embedding_loss checks the target's and the inputs' dims", "[loss_extra]") {
  const Tensor a = zeros({2, 3}, kDouble);
  REQUIRE_THROWS_WITH(F::cosine_embedding_loss(a, a, zeros({2, 1}, kDouble)),
                      Catch::Contains("cosine_embedding_loss: expected a 0-d or 1-d target"));
  REQUIRE_THROWS_WITH(
      F::cosine_embedding_loss(zeros({3}, kDouble), zeros({3}, kDouble), zeros({1}, kDouble)),
      Catch::Contains("a 1-d target expects 2-d inputs, got shapes [3] and [3]"));
  REQUIRE_THROWS_WITH(F::cosine_embedding_loss(a, a, zeros({5}, kDouble)),
                      Catch::Contains("cosine_embedding_loss") && Catch::Contains("[5]"));
}

// ---------------------------------------------------------------- poisson_nll_loss

TEST_CASE("poisson_nll_loss matches its formula for log_input, rate input and full",
          "[loss_extra]") {
  const std::vector<double> x = uniform({2, 3}, 0.1, 2, 18);
  const std::vector<double> t = {0, 0.5, 1, 1.5, 3, 7};
  const double eps = 1e-8, pi = 3.14159265358979323846;
  for (bool log_input : {true, false}) {
    for (bool full : {false, true}) {
      INFO("log_input " << log_input << ", full " << full);
      std::vector<double> want;
      for (size_t i = 0; i < x.size(); ++i) {
        double l = log_input ? std::exp(x[i]) - t[i] * x[i] : x[i] - t[i] * std::log(x[i] + eps);
        if (full && t[i] > 1) l += t[i] * std::log(t[i]) - t[i] + 0.5 * std::log(2 * pi * t[i]);
        want.push_back(l);
      }
      check_reductions(
          [&](Reduction r) {
            return F::poisson_nll_loss(
                from(x, {2, 3}), from(t, {2, 3}),
                F::PoissonNLLLossFuncOptions().log_input(log_input).full(full).reduction(r));
          },
          want);
    }
  }
}

TEST_CASE("poisson_nll_loss gradients wrt input and target pass gradcheck and gradgradcheck",
          "[loss_extra]") {
  const Tensor x = leaf(from(uniform({2, 3}, 0.2, 2, 19), {2, 3}));
  const Tensor t = leaf(tensor({{0.0, 0.5, 1.5}, {2.5, 4.0, 0.3}}, kDouble));
  for (bool log_input : {true, false}) {
    auto fn = [log_input](const tensor_list& in) {
      return F::poisson_nll_loss(in[0], in[1],
                                 F::PoissonNLLLossFuncOptions().log_input(log_input).full(true));
    };
    REQUIRE_GRADCHECK(gradcheck(fn, {x, t}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {x, t}));
  }
  // Stirling's term is masked below 2 without a NaN reaching the target's gradient.
  const Tensor t0 = leaf(tensor({0.0, 3.0}, kDouble));
  F::poisson_nll_loss(tensor({0.5, 0.5}, kDouble), t0, F::PoissonNLLLossFuncOptions().full(true))
      .backward();
  require_values(t0.grad(), {-0.25, -0.25 + 0.5 * (std::log(3.0) + 1.0 / 6)});
}

TEST_CASE("poisson_nll_loss rejects integer targets", "[loss_extra]") {
  REQUIRE_THROWS_WITH(F::poisson_nll_loss(zeros({3}, kDouble), zeros({3}, kLong)),
                      Catch::Contains("poisson_nll_loss: expected a floating point target"));
}

// ---------------------------------------------------------------- gaussian_nll_loss

TEST_CASE("gaussian_nll_loss matches 0.5 (log v + (x - t)^2 / v) for each var shape",
          "[loss_extra]") {
  const std::vector<double> x = uniform({2, 3}, -1, 1, 20), t = uniform({2, 3}, -1, 1, 21);
  const double half_log_2pi = 0.5 * std::log(2 * 3.14159265358979323846);
  auto want_for = [&](const std::function<double(int, int)>& v, bool full) {
    std::vector<double> w;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) {
        const double d = x[i * 3 + j] - t[i * 3 + j], vij = std::max(v(i, j), 1e-6);
        w.push_back(0.5 * (std::log(vij) + d * d / vij) + (full ? half_log_2pi : 0));
      }
    return w;
  };
  const std::vector<double> v = {0.5, 1.5, 2.0, 1e-9, 0.25, 3.0};  // 1e-9 is clamped to eps
  for (bool full : {false, true}) {
    INFO("full " << full);
    auto run = [&](const Tensor& var) {
      return [&, var](Reduction r) {
        return F::gaussian_nll_loss(from(x, {2, 3}), from(t, {2, 3}), var,
                                    F::GaussianNLLLossFuncOptions().full(full).reduction(r));
      };
    };
    // Heteroscedastic: one variance per element.
    check_reductions(run(from(v, {2, 3})),
                     want_for([&](int i, int j) { return v[i * 3 + j]; }, full));
    // Homoscedastic: one per row, as (2) or (2, 1).
    const std::vector<double> rows = {0.7, 1.9};
    const auto per_row = want_for([&](int i, int) { return rows[i]; }, full);
    check_reductions(run(from(rows, {2})), per_row);
    check_reductions(run(from(rows, {2, 1})), per_row);
  }
}

TEST_CASE("gaussian_nll_loss gradients pass gradcheck; a clamped var gets its gradient unclamped",
          "[loss_extra]") {
  const Tensor x = leaf(from(uniform({2, 3}, -1, 1, 22), {2, 3}));
  const Tensor t = leaf(from(uniform({2, 3}, -1, 1, 23), {2, 3}));
  const Tensor v = leaf(from(uniform({2, 1}, 0.5, 2, 24), {2, 1}));
  auto fn = [](const tensor_list& in) { return F::gaussian_nll_loss(in[0], in[1], in[2]); };
  REQUIRE_GRADCHECK(gradcheck(fn, {x, t, v}));
  REQUIRE_GRADCHECK(gradgradcheck(fn, {x, t, v}));
  // var 1e-9 < eps = 0.01: the value uses 0.01 and so does the gradient,
  // d/dv 0.5 (log v + d^2 / v) = 0.5 (1 / v - d^2 / v^2), passed to var as is.
  const Tensor small = leaf(tensor({1e-9}, kDouble));
  F::gaussian_nll_loss(tensor({0.2}, kDouble), tensor({0.0}, kDouble), small,
                       F::GaussianNLLLossFuncOptions().eps(0.01).reduction(kSum))
      .backward();
  require_values(small.grad(), {0.5 * (1 / 0.01 - 0.04 / 1e-4)});
}

TEST_CASE("gaussian_nll_loss rejects a var of the wrong shape and negative variances",
          "[loss_extra]") {
  const Tensor a = zeros({2, 3}, kDouble);
  REQUIRE_THROWS_WITH(F::gaussian_nll_loss(a, a, ones({3}, kDouble)),
                      Catch::Contains("gaussian_nll_loss: var of shape [3] does not fit input of "
                                      "shape [2, 3]"));
  REQUIRE_THROWS_WITH(F::gaussian_nll_loss(a, a, ones({2, 2}, kDouble)),
                      Catch::Contains("does not fit"));
  REQUIRE_THROWS_WITH(F::gaussian_nll_loss(a, a, -ones({2}, kDouble)),
                      Catch::Contains("gaussian_nll_loss: var has negative entries"));
  REQUIRE_THROWS_WITH(F::gaussian_nll_loss(a, a, ones({2}, kLong)),
                      Catch::Contains("gaussian_nll_loss: expected a floating point var"));
}

// ---------------------------------------------------------------- multilabel_soft_margin_loss

TEST_CASE("multilabel_soft_margin_loss averages -w (y log s(x) + (1 - y) log s(-x)) over labels",
          "[loss_extra]") {
  const std::vector<double> x = uniform({3, 4}, -3, 3, 25);
  const std::vector<double> y = {1, 0, 0, 1, 0, 0, 1, 1, 1, 1, 0, 0};
  const std::vector<double> w = {0.5, 1.0, 2.0, 1.5};
  auto log_sig = [](double z) { return -std::log1p(std::exp(-z)); };
  for (bool weighted : {false, true}) {
    INFO("weighted " << weighted);
    std::vector<double> want;
    for (int n = 0; n < 3; ++n) {
      double s = 0;
      for (int c = 0; c < 4; ++c) {
        const double xi = x[n * 4 + c], yi = y[n * 4 + c];
        s += -(weighted ? w[c] : 1) * (yi * log_sig(xi) + (1 - yi) * log_sig(-xi));
      }
      want.push_back(s / 4);
    }
    check_reductions(
        [&](Reduction r) {
          auto opts = F::MultilabelSoftMarginLossFuncOptions().reduction(r);
          if (weighted) opts.weight(from(w, {4}));
          return F::multilabel_soft_margin_loss(from(x, {3, 4}), from(y, {3, 4}), opts);
        },
        want);
  }
}

TEST_CASE("multilabel_soft_margin_loss gradients wrt input and target pass gradcheck",
          "[loss_extra]") {
  const Tensor x = leaf(from(uniform({2, 3}, -2, 2, 26), {2, 3}));
  const Tensor y = leaf(from(uniform({2, 3}, 0, 1, 27), {2, 3}));
  const Tensor w = tensor({0.5, 1.0, 2.0}, kDouble);
  auto fn = [&](const tensor_list& in) {
    return F::multilabel_soft_margin_loss(in[0], in[1],
                                          F::MultilabelSoftMarginLossFuncOptions().weight(w));
  };
  REQUIRE_GRADCHECK(gradcheck(fn, {x, y}));
  REQUIRE_GRADCHECK(gradgradcheck(fn, {x, y}));
}

TEST_CASE("multilabel_soft_margin_loss rejects 0-d input, bad target and weight shapes",
          "[loss_extra]") {
  const Tensor a = zeros({2, 3}, kDouble);
  REQUIRE_THROWS_WITH(F::multilabel_soft_margin_loss(zeros({}, kDouble), zeros({}, kDouble)),
                      Catch::Contains("multilabel_soft_margin_loss") && Catch::Contains("0-d"));
  REQUIRE_THROWS_WITH(F::multilabel_soft_margin_loss(a, zeros({2, 4}, kDouble)),
                      Catch::Contains("target of shape [2, 4] does not broadcast"));
  REQUIRE_THROWS_WITH(
      F::multilabel_soft_margin_loss(
          a, a, F::MultilabelSoftMarginLossFuncOptions().weight(ones({4}, kDouble))),
      Catch::Contains("weight of shape [4] does not broadcast"));
  REQUIRE_THROWS_WITH(F::multilabel_soft_margin_loss(a, zeros({2, 3}, kLong)),
                      Catch::Contains("expected a floating point target, got int64"));
}

// ---------------------------------------------------------------- multi_margin_loss

TEST_CASE("multi_margin_loss matches sum_{i != y} w[y] max(0, m - x[y] + x[i])^p / C",
          "[loss_extra]") {
  const std::vector<double> x = uniform({4, 5}, -1, 1, 28);
  const std::vector<int64_t> y = {0, 3, 4, 3};
  const std::vector<double> w = {0.5, 1.0, 2.0, 1.5, 0.8};
  for (int64_t p : {1, 2}) {
    for (double margin : {1.0, 0.3}) {
      for (bool weighted : {false, true}) {
        INFO("p " << p << ", margin " << margin << ", weighted " << weighted);
        std::vector<double> want;
        for (int n = 0; n < 4; ++n) {
          double s = 0;
          for (int i = 0; i < 5; ++i) {
            if (i == y[n]) continue;
            const double z = std::max(0.0, margin - x[n * 5 + y[n]] + x[n * 5 + i]);
            s += (weighted ? w[y[n]] : 1) * (p == 1 ? z : z * z);
          }
          want.push_back(s / 5);
        }
        check_reductions(
            [&](Reduction r) {
              auto opts = F::MultiMarginLossFuncOptions().p(p).margin(margin).reduction(r);
              if (weighted) opts.weight(from(w, {5}));
              return F::multi_margin_loss(from(x, {4, 5}), tensor(y), opts);
            },
            want);
      }
    }
  }
  // A (C) input with a 0-d target: one sample, kNone gives a 0-d loss.
  const Tensor one = F::multi_margin_loss(tensor({0.2, 0.9, -0.1}, kDouble), tensor(int64_t{1}),
                                          F::MultiMarginLossFuncOptions().reduction(kNone));
  REQUIRE(one.dim() == 0);
  require_values(one, {(0.3 + 0.0) / 3});
}

TEST_CASE("multi_margin_loss gradient passes gradcheck and gradgradcheck (p = 1, 2)",
          "[loss_extra]") {
  const Tensor x = leaf(tensor({{0.1, 0.5, -0.6}, {1.3, 0.2, 0.7}}, kDouble));
  const Tensor y = tensor({1, 0});
  const Tensor w = tensor({0.5, 2.0, 1.0}, kDouble);
  for (int64_t p : {1, 2}) {
    auto fn = [&, p](const tensor_list& in) {
      return F::multi_margin_loss(in[0], y, F::MultiMarginLossFuncOptions().p(p).weight(w));
    };
    REQUIRE_GRADCHECK(gradcheck(fn, {x}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {x}));
  }
}

TEST_CASE("multi_margin_loss rejects bad p, targets and weights with messages", "[loss_extra]") {
  const Tensor x = zeros({2, 3}, kDouble);
  REQUIRE_THROWS_WITH(F::multi_margin_loss(x, tensor({0, 1}), F::MultiMarginLossFuncOptions().p(3)),
                      Catch::Contains("multi_margin_loss: p must be 1 or 2, got 3"));
  REQUIRE_THROWS_WITH(
      F::multi_margin_loss(x, tensor({0, 3})),
      Catch::Contains("multi_margin_loss: target 3 is out of bounds for 3 classes"));
  REQUIRE_THROWS_WITH(
      F::multi_margin_loss(x, tensor({0, 1, 2})),
      Catch::Contains("expected a target of 2 class indices") && Catch::Contains("got shape [3]"));
  REQUIRE_THROWS_WITH(F::multi_margin_loss(x, tensor({0.0, 1.0}, kDouble)),
                      Catch::Contains("multi_margin_loss: expected an int64 target"));
  REQUIRE_THROWS_WITH(
      F::multi_margin_loss(x, tensor({0, 1}),
                           F::MultiMarginLossFuncOptions().weight(ones({2}, kDouble))),
      Catch::Contains("expected weight of 3 elements"));
  REQUIRE_THROWS_WITH(F::multi_margin_loss(zeros({2, 0}, kDouble), tensor({0, 1})),
                      Catch::Contains("with C > 0, got shape [2, 0]"));
}

// ---------------------------------------------------------------- multilabel_margin_loss

TEST_CASE("multilabel_margin_loss sums max(0, 1 - (x[j] - x[i])) over targets j, non-targets i",
          "[loss_extra]") {
  const std::vector<double> x = uniform({4, 4}, -1, 1, 29);
  // Rows: targets {3, 0} (the 1 after -1 does not count), none, all four, {2}.
  const std::vector<int64_t> y = {3, 0, -1, 1, -1, 2, 0, 0, 0, 1, 2, 3, 2, -1, -1, -1};
  std::vector<double> want;
  for (int n = 0; n < 4; ++n) {
    std::vector<int64_t> targets;
    for (int k = 0; k < 4 && y[n * 4 + k] >= 0; ++k) targets.push_back(y[n * 4 + k]);
    double s = 0;
    for (int64_t j : targets)
      for (int64_t i = 0; i < 4; ++i) {
        if (std::find(targets.begin(), targets.end(), i) != targets.end()) continue;
        s += std::max(0.0, 1 - (x[n * 4 + j] - x[n * 4 + i]));
      }
    want.push_back(s / 4);
  }
  REQUIRE(want[1] == 0);
  REQUIRE(want[2] == 0);
  check_reductions(
      [&](Reduction r) {
        return F::multilabel_margin_loss(from(x, {4, 4}), tensor(y).reshape({4, 4}),
                                         F::MultilabelMarginLossFuncOptions().reduction(r));
      },
      want);
  const Tensor one =
      F::multilabel_margin_loss(from(x, {4, 4})[0], tensor(y).reshape({4, 4})[0],
                                F::MultilabelMarginLossFuncOptions().reduction(kNone));
  REQUIRE(one.dim() == 0);
  require_values(one, {want[0]});
}

TEST_CASE("multilabel_margin_loss gradient passes gradcheck and gradgradcheck", "[loss_extra]") {
  const Tensor x = leaf(tensor({{0.1, 0.5, -0.6, 0.3}, {1.3, 0.2, 0.75, -0.4}}, kDouble));
  const Tensor y = tensor({{1, 3, -1, 0}, {2, -1, 0, 0}});
  auto fn = [&](const tensor_list& in) { return F::multilabel_margin_loss(in[0], y); };
  REQUIRE_GRADCHECK(gradcheck(fn, {x}));
  REQUIRE_GRADCHECK(gradgradcheck(fn, {x}));
}

TEST_CASE("multilabel_margin_loss rejects out-of-range targets and bad shapes", "[loss_extra]") {
  const Tensor x = zeros({2, 3}, kDouble);
  REQUIRE_THROWS_WITH(F::multilabel_margin_loss(x, tensor({{0, 3, -1}, {1, -1, 7}})),
                      Catch::Contains("multilabel_margin_loss: target 3 is out of bounds for 3 "
                                      "classes"));
  REQUIRE_THROWS_WITH(F::multilabel_margin_loss(x, tensor({0, 1, -1})),
                      Catch::Contains("expected a target of the input's shape [2, 3], got [3]"));
  REQUIRE_THROWS_WITH(F::multilabel_margin_loss(zeros({2, 3, 4}, kDouble), zeros({2, 3, 4}, kLong)),
                      Catch::Contains("expected an input of shape (C) or (N, C)"));
}

// ---------------------------------------------------------------- triplet losses

namespace {

// max(0, margin + d(a, p) - d(a, n)) per row of (rows, d) data, with
// d(u, v) = ||u - v + eps||_p and swap as in the loss.
std::vector<double> triplet_ref(const std::vector<double>& a, const std::vector<double>& p,
                                const std::vector<double>& n, int rows, int d, double margin,
                                double norm_p, double eps, bool swap) {
  auto dist = [&](const std::vector<double>& u, const std::vector<double>& v, int r) {
    double acc = 0;
    for (int k = 0; k < d; ++k)
      acc += std::pow(std::abs(u[r * d + k] - v[r * d + k] + eps), norm_p);
    return std::pow(acc, 1 / norm_p);
  };
  std::vector<double> out;
  for (int r = 0; r < rows; ++r) {
    double neg = dist(a, n, r);
    if (swap) neg = std::min(neg, dist(p, n, r));
    out.push_back(std::max(0.0, margin + dist(a, p, r) - neg));
  }
  return out;
}

}  // namespace

TEST_CASE("triplet_margin_loss matches max(0, margin + d(a, p) - d(a, n)), p, eps and swap",
          "[loss_extra]") {
  const std::vector<double> a = uniform({5, 3}, -1, 1, 30), p = uniform({5, 3}, -1, 1, 31),
                            n = uniform({5, 3}, -1, 1, 32);
  for (double norm_p : {1.0, 2.0, 3.0}) {
    for (bool swap : {false, true}) {
      INFO("p " << norm_p << ", swap " << swap);
      const auto want = triplet_ref(a, p, n, 5, 3, 0.8, norm_p, 1e-3, swap);
      check_reductions(
          [&](Reduction r) {
            return F::triplet_margin_loss(from(a, {5, 3}), from(p, {5, 3}), from(n, {5, 3}),
                                          F::TripletMarginLossFuncOptions()
                                              .margin(0.8)
                                              .p(norm_p)
                                              .eps(1e-3)
                                              .swap(swap)
                                              .reduction(r));
          },
          want);
    }
  }
}

TEST_CASE("triplet_margin_loss gradients wrt all three inputs pass gradcheck and gradgradcheck",
          "[loss_extra]") {
  const Tensor a = leaf(from(uniform({3, 4}, -1, 1, 33), {3, 4}));
  const Tensor p = leaf(from(uniform({3, 4}, -1, 1, 34), {3, 4}));
  const Tensor n = leaf(from(uniform({3, 4}, -1, 1, 35), {3, 4}));
  auto fn = [](const tensor_list& in) {
    return F::triplet_margin_loss(in[0], in[1], in[2],
                                  F::TripletMarginLossFuncOptions().margin(5).swap(true));
  };
  REQUIRE_GRADCHECK(gradcheck(fn, {a, p, n}));
  REQUIRE_GRADCHECK(gradgradcheck(fn, {a, p, n}));
}

TEST_CASE("triplet_margin_with_distance_loss uses the given distance, else pairwise_distance",
          "[loss_extra]") {
  const std::vector<double> a = uniform({4, 3}, -1, 1, 36), p = uniform({4, 3}, -1, 1, 37),
                            n = uniform({4, 3}, -1, 1, 38);
  const Tensor at = from(a, {4, 3}), pt = from(p, {4, 3}), nt = from(n, {4, 3});
  // The default: the 2-norm distance with eps 1e-6.
  check_reductions(
      [&](Reduction r) {
        return F::triplet_margin_with_distance_loss(
            at, pt, nt, F::TripletMarginWithDistanceLossFuncOptions().reduction(r));
      },
      triplet_ref(a, p, n, 4, 3, 1.0, 2.0, 1e-6, false));
  // A distance of the caller's: the sum of squared differences.
  auto squared = [](const Tensor& u, const Tensor& v) { return (u - v).square().sum({1}); };
  for (bool swap : {false, true}) {
    std::vector<double> want;
    for (int r = 0; r < 4; ++r) {
      auto d = [&](const std::vector<double>& u, const std::vector<double>& v) {
        double s = 0;
        for (int k = 0; k < 3; ++k)
          s += (u[r * 3 + k] - v[r * 3 + k]) * (u[r * 3 + k] - v[r * 3 + k]);
        return s;
      };
      const double neg = swap ? std::min(d(a, n), d(p, n)) : d(a, n);
      want.push_back(std::max(0.0, 0.5 + d(a, p) - neg));
    }
    check_reductions(
        [&](Reduction r) {
          return F::triplet_margin_with_distance_loss(at, pt, nt,
                                                      F::TripletMarginWithDistanceLossFuncOptions()
                                                          .distance_function(squared)
                                                          .margin(0.5)
                                                          .swap(swap)
                                                          .reduction(r));
        },
        want);
  }
}

TEST_CASE("triplet_margin_with_distance_loss gradients pass gradcheck and gradgradcheck",
          "[loss_extra]") {
  const Tensor a = leaf(from(uniform({3, 4}, -1, 1, 39), {3, 4}));
  const Tensor p = leaf(from(uniform({3, 4}, -1, 1, 40), {3, 4}));
  const Tensor n = leaf(from(uniform({3, 4}, -1, 1, 41), {3, 4}));
  auto cos_distance = [](const Tensor& u, const Tensor& v) {
    return 1 - F::cosine_similarity(u, v);
  };
  auto fn = [&](const tensor_list& in) {
    return F::triplet_margin_with_distance_loss(
        in[0], in[1], in[2],
        F::TripletMarginWithDistanceLossFuncOptions().distance_function(cos_distance).margin(3));
  };
  REQUIRE_GRADCHECK(gradcheck(fn, {a, p, n}));
  REQUIRE_GRADCHECK(gradgradcheck(fn, {a, p, n}));
}

TEST_CASE("triplet losses reject inputs of different numbers of dims; margin <= 0 in the module",
          "[loss_extra]") {
  const Tensor m = zeros({2, 3}, kDouble), v = zeros({3}, kDouble);
  REQUIRE_THROWS_WITH(F::triplet_margin_loss(m, m, v),
                      Catch::Contains("triplet_margin_loss: expected anchor, positive and "
                                      "negative of one number of dims, got shapes [2, 3], [2, 3] "
                                      "and [3]"));
  REQUIRE_THROWS_WITH(F::triplet_margin_with_distance_loss(v, m, m),
                      Catch::Contains("triplet_margin_with_distance_loss: expected anchor"));
  REQUIRE_THROWS_WITH(F::triplet_margin_loss(m, m, zeros({2, 3}, kLong)),
                      Catch::Contains("triplet_margin_loss: expected floating point inputs"));
  REQUIRE_THROWS_WITH(
      nn::TripletMarginWithDistanceLoss(nn::TripletMarginWithDistanceLossOptions().margin(0)),
      Catch::Contains("expected margin to be greater than 0, got 0"));
}

// ---------------------------------------------------------------- modules

TEST_CASE("the extra loss modules forward to the functional losses with their options",
          "[loss_extra]") {
  manual_seed(42);
  const Tensor x = randn({4, 3}, kDouble), y = randn({4, 3}, kDouble), z = randn({4, 3}, kDouble);
  const Tensor q = rand({4, 3}, kDouble) + 0.1, labels = tensor({0, 2, 1, 2});
  const Tensor signs = tensor({1.0, -1.0, -1.0, 1.0}, kDouble);
  const Tensor w = tensor({0.5, 1.0, 2.0}, kDouble);
  auto same = [](const Tensor& a, const Tensor& b) { require_values(a, values(b), 0); };
  same(nn::KLDivLoss(nn::KLDivLossOptions().reduction(kBatchMean).log_target(true))(x, y),
       F::kl_div(x, y, F::KLDivFuncOptions().reduction(kBatchMean).log_target(true)));
  same(nn::HuberLoss(nn::HuberLossOptions().delta(0.5))(x, y),
       F::huber_loss(x, y, F::HuberLossFuncOptions().delta(0.5)));
  same(nn::SoftMarginLoss(nn::SoftMarginLossOptions().reduction(kSum))(x, sign(y)),
       F::soft_margin_loss(x, sign(y), F::SoftMarginLossFuncOptions().reduction(kSum)));
  same(nn::HingeEmbeddingLoss(nn::HingeEmbeddingLossOptions().margin(2))(x, sign(y)),
       F::hinge_embedding_loss(x, sign(y), F::HingeEmbeddingLossFuncOptions().margin(2)));
  same(nn::PoissonNLLLoss(nn::PoissonNLLLossOptions().full(true))(x, q * 3),
       F::poisson_nll_loss(x, q * 3, F::PoissonNLLLossFuncOptions().full(true)));
  same(nn::GaussianNLLLoss(nn::GaussianNLLLossOptions().full(true))(x, y, q),
       F::gaussian_nll_loss(x, y, q, F::GaussianNLLLossFuncOptions().full(true)));
  same(nn::MultiLabelSoftMarginLoss(nn::MultiLabelSoftMarginLossOptions().weight(w))(x, q),
       F::multilabel_soft_margin_loss(x, q, F::MultilabelSoftMarginLossFuncOptions().weight(w)));
  same(nn::MultiMarginLoss(nn::MultiMarginLossOptions().p(2).weight(w))(x, labels),
       F::multi_margin_loss(x, labels, F::MultiMarginLossFuncOptions().p(2).weight(w)));
  const Tensor sets = tensor({{0, 2, -1}, {1, -1, 0}, {2, 1, 0}, {-1, 0, 0}});
  same(nn::MultiLabelMarginLoss()(x, sets), F::multilabel_margin_loss(x, sets));
  same(nn::MarginRankingLoss(nn::MarginRankingLossOptions().margin(0.3))(x.select(1, 0),
                                                                         y.select(1, 0), signs),
       F::margin_ranking_loss(x.select(1, 0), y.select(1, 0), signs,
                              F::MarginRankingLossFuncOptions().margin(0.3)));
  same(nn::CosineEmbeddingLoss(nn::CosineEmbeddingLossOptions().margin(0.1))(x, y, signs),
       F::cosine_embedding_loss(x, y, signs, F::CosineEmbeddingLossFuncOptions().margin(0.1)));
  same(nn::TripletMarginLoss(nn::TripletMarginLossOptions().p(1).swap(true))(x, y, z),
       F::triplet_margin_loss(x, y, z, F::TripletMarginLossFuncOptions().p(1).swap(true)));
  same(nn::TripletMarginWithDistanceLoss()(x, y, z), F::triplet_margin_with_distance_loss(x, y, z));
}

TEST_CASE("MultiMarginLoss and MultiLabelSoftMarginLoss keep weight as a buffer", "[loss_extra]") {
  nn::MultiMarginLoss mm(nn::MultiMarginLossOptions().weight(tensor({1.0f, 2.0f})));
  REQUIRE(mm->named_buffers().keys() == std::vector<std::string>{"weight"});
  mm->to(kDouble);
  REQUIRE(mm->weight.scalar_type() == kDouble);
  // x = (0, 0), target 1: the class-0 term max(0, 1 - 0 + 0) = 1, weighted 2, over C = 2.
  require_values(mm(zeros({1, 2}, kDouble), tensor({1})), {1.0});
  nn::MultiLabelSoftMarginLoss ml(nn::MultiLabelSoftMarginLossOptions().weight(ones({2})));
  REQUIRE(ml->named_buffers().keys() == std::vector<std::string>{"weight"});
  REQUIRE(nn::KLDivLoss()->named_buffers().is_empty());
}

TEST_CASE("the extra loss modules print their names and main options", "[loss_extra]") {
  std::ostringstream os;
  os << nn::KLDivLoss() << " " << nn::HuberLoss(nn::HuberLossOptions().delta(0.5)) << " "
     << nn::MultiMarginLoss() << " " << nn::TripletMarginLoss() << " "
     << nn::TripletMarginWithDistanceLoss();
  REQUIRE(os.str() ==
          "KLDivLoss() HuberLoss(delta=0.5) MultiMarginLoss(p=1, margin=1) "
          "TripletMarginLoss(margin=1, p=2, eps=1e-06, swap=false) "
          "TripletMarginWithDistanceLoss(margin=1, swap=false)");
}

TEST_CASE("the extra losses read non-contiguous inputs as their contiguous copies",
          "[loss_extra]") {
  manual_seed(43);
  const Tensor x = randn({3, 4}, kDouble).t(), y = randn({3, 4}, kDouble).t();  // (4, 3) views
  REQUIRE_FALSE(x.is_contiguous());
  const Tensor xc = x.contiguous(), yc = y.contiguous(), labels = tensor({0, 2, 1, 2});
  auto same = [](const Tensor& a, const Tensor& b) { require_values(a, values(b), 1e-14); };
  auto none = [](auto opts) { return opts.reduction(kNone); };
  same(F::huber_loss(x, y, none(F::HuberLossFuncOptions())),
       F::huber_loss(xc, yc, none(F::HuberLossFuncOptions())));
  same(F::kl_div(x, y, F::KLDivFuncOptions().reduction(kNone).log_target(true)),
       F::kl_div(xc, yc, F::KLDivFuncOptions().reduction(kNone).log_target(true)));
  same(F::multi_margin_loss(x, labels, none(F::MultiMarginLossFuncOptions())),
       F::multi_margin_loss(xc, labels, none(F::MultiMarginLossFuncOptions())));
  same(
      F::multilabel_soft_margin_loss(x, sigmoid(y), none(F::MultilabelSoftMarginLossFuncOptions())),
      F::multilabel_soft_margin_loss(xc, sigmoid(yc),
                                     none(F::MultilabelSoftMarginLossFuncOptions())));
  same(F::triplet_margin_loss(x, y, x * 2, none(F::TripletMarginLossFuncOptions())),
       F::triplet_margin_loss(xc, yc, xc * 2, none(F::TripletMarginLossFuncOptions())));
  same(F::cosine_embedding_loss(x, y, tensor({1, -1, 1, -1}),
                                none(F::CosineEmbeddingLossFuncOptions())),
       F::cosine_embedding_loss(xc, yc, tensor({1, -1, 1, -1}),
                                none(F::CosineEmbeddingLossFuncOptions())));
}
