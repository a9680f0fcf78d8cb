// Distances (core/ops/linalg/distance.cpp, nn/functional/distance.cpp): cdist, pdist,
// cosine_similarity and pairwise_distance against float64 loops written here,
// gradients by gradcheck / gradgradcheck, and error messages.
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
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

// ||a - b||_p of two m-vectors: p = 0 counts the nonzero differences, p = inf
// takes the largest.
double p_distance(const double* a, const double* b, int64_t m, double p) {
  double acc = 0;
  for (int64_t k = 0; k < m; ++k) {
    const double d = std::abs(a[k] - b[k]);
    if (p == 0)
      acc += d != 0;
    else if (std::isinf(p))
      acc = std::max(acc, d);
    else
      acc += std::pow(d, p);
  }
  return p == 0 || std::isinf(p) ? acc : std::pow(acc, 1 / p);
}

}  // namespace

// ---------------------------------------------------------------- cdist

TEST_CASE("cdist matches ||x1[i] - x2[j]||_p for p = 0, 0.5, 1, 2, 3, inf", "[distance]") {
  manual_seed(3);
  const Tensor x1 = randn({4, 3}, kDouble), x2 = randn({5, 3}, kDouble);
  const std::vector<double> a = values(x1), b = values(x2);
  for (double p : {0.0, 0.5, 1.0, 2.0, 3.0, std::numeric_limits<double>::infinity()}) {
    INFO("p = " << p);
    std::vector<double> want;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 5; ++j) want.push_back(p_distance(&a[i * 3], &b[j * 3], 3, p));
    const Tensor got = cdist(x1, x2, p);
    REQUIRE(got.sizes() == IntArrayRef{4, 5});
    require_values(got, want, 1e-12);
  }
}

TEST_CASE("cdist broadcasts batch dims: (2, 3, 4) with (1, 5, 4) gives (2, 3, 5)", "[distance]") {
  manual_seed(4);
  const Tensor x1 = randn({2, 3, 4}, kDouble), x2 = randn({1, 5, 4}, kDouble);
  const std::vector<double> a = values(x1), b = values(x2);
  std::vector<double> want;
  for (int n = 0; n < 2; ++n)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 5; ++j) want.push_back(p_distance(&a[(n * 3 + i) * 4], &b[j * 4], 4, 2));
  const Tensor got = cdist(x1, x2);
  REQUIRE(got.sizes() == IntArrayRef{2, 3, 5});
  require_values(got, want, 1e-12);
  REQUIRE(cdist(zeros({0, 4}, kDouble), x2[0]).sizes() == IntArrayRef{0, 5});
}

TEST_CASE("cdist gradients pass gradcheck and gradgradcheck (p = 1.5, 2; transposed x1)",
          "[distance]") {
  manual_seed(5);
  const Tensor x1 = leaf(randn({3, 4}, kDouble).t());  // (4, 3), non-contiguous
  const Tensor x2 = leaf(randn({2, 3}, kDouble));
  for (double p : {1.5, 2.0}) {
    auto fn = [p](const tensor_list& in) { return cdist(in[0], in[1], p); };
    REQUIRE_GRADCHECK(gradcheck(fn, {x1, x2}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {x1, x2}));
  }
}

TEST_CASE("cdist gradient is 0 where two rows coincide (p = 2)", "[distance]") {
  const Tensor x1 = leaf(tensor({{1.0, 2.0}}, kDouble));
  const Tensor x2 = tensor({{1.0, 2.0}, {4.0, 6.0}}, kDouble);
  cdist(x1, x2).sum().backward();
  // Only the second row contributes: (x1 - x2) / 5 = (-0.6, -0.8).
  require_values(x1.grad(), {-0.6, -0.8});
}

TEST_CASE("cdist rejects bad shapes, dtypes and p with messages", "[distance]") {
  const Tensor a = zeros({3, 4}, kDouble);
  REQUIRE_THROWS_WITH(cdist(zeros({4}, kDouble), a),
                      Catch::Contains("cdist") && Catch::Contains("at least 2 dims"));
  REQUIRE_THROWS_WITH(cdist(a, zeros({3, 5}, kDouble)),
                      Catch::Contains("same number of columns") && Catch::Contains("[3, 5]"));
  REQUIRE_THROWS_WITH(cdist(a, zeros({3, 4}, kFloat)),
                      Catch::Contains("cdist") && Catch::Contains("float64 and float32"));
  REQUIRE_THROWS_WITH(cdist(zeros({3, 4}, kLong), zeros({3, 4}, kLong)),
                      Catch::Contains("floating point") && Catch::Contains("int64"));
  REQUIRE_THROWS_WITH(cdist(a, a, -1), Catch::Contains("cdist: p must be non-negative, got -1"));
  REQUIRE_THROWS_WITH(cdist(zeros({2, 3, 4}, kDouble), zeros({3, 5, 4}, kDouble)),
                      Catch::Contains("[2, 3, 1, 4]") || Catch::Contains("broadcast"));
}

// ---------------------------------------------------------------- pdist

TEST_CASE("pdist gives the i < j row distances in row-major order", "[distance]") {
  manual_seed(6);
  const Tensor x = randn({5, 3}, kDouble);
  const std::vector<double> a = values(x);
  for (double p : {1.0, 2.0, 0.7, std::numeric_limits<double>::infinity()}) {
    std::vector<double> want;
    for (int i = 0; i < 5; ++i)
      for (int j = i + 1; j < 5; ++j) want.push_back(p_distance(&a[i * 3], &a[j * 3], 3, p));
    require_values(pdist(x, p), want, 1e-12);
  }
  REQUIRE(pdist(zeros({1, 3}, kDouble)).sizes() == IntArrayRef{0});
}

TEST_CASE("pdist gradients pass gradcheck and gradgradcheck", "[distance]") {
  manual_seed(7);
  const Tensor x = leaf(randn({4, 3}, kDouble));
  for (double p : {1.5, 2.0}) {
    auto fn = [p](const tensor_list& in) { return pdist(in[0], p); };
    REQUIRE_GRADCHECK(gradcheck(fn, {x}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {x}));
  }
}

TEST_CASE("pdist rejects non-2-d, integer input and negative p", "[distance]") {
  REQUIRE_THROWS_WITH(
      pdist(zeros({2, 3, 4}, kDouble)),
      Catch::Contains("pdist: expected a 2-d input") && Catch::Contains("[2, 3, 4]"));
  REQUIRE_THROWS_WITH(pdist(zeros({2, 3}, kLong)),
                      Catch::Contains("pdist: expected a floating point input, got int64"));
  REQUIRE_THROWS_WITH(pdist(zeros({2, 3}, kDouble), -2),
                      Catch::Contains("pdist: p must be non-negative"));
}

// ---------------------------------------------------------------- cosine_similarity

TEST_CASE("cosine_similarity matches sum(x1 x2) / (max(|x1|, eps) max(|x2|, eps))", "[distance]") {
  manual_seed(8);
  const Tensor x1 = randn({3, 4}, kDouble), x2 = randn({3, 4}, kDouble);
  const std::vector<double> a = values(x1), b = values(x2);
  auto cos_of = [](const std::vector<double>& u, const std::vector<double>& v, double eps) {
    double dot = 0, uu = 0, vv = 0;
    for (size_t k = 0; k < u.size(); ++k) dot += u[k] * v[k], uu += u[k] * u[k], vv += v[k] * v[k];
    return dot / (std::max(std::sqrt(uu), eps) * std::max(std::sqrt(vv), eps));
  };
  SECTION("dim 1 (the default): one value per row") {
    std::vector<double> want;
    for (int i = 0; i < 3; ++i)
      want.push_back(cos_of({&a[i * 4], &a[i * 4 + 4]}, {&b[i * 4], &b[i * 4 + 4]}, 1e-8));
    require_values(F::cosine_similarity(x1, x2), want);
  }
  SECTION("dim 0: one value per column") {
    std::vector<double> want;
    for (int j = 0; j < 4; ++j)
      want.push_back(cos_of({a[j], a[4 + j], a[8 + j]}, {b[j], b[4 + j], b[8 + j]}, 1e-8));
    require_values(F::cosine_similarity(x1, x2, F::CosineSimilarityFuncOptions().dim(0)), want);
  }
  SECTION("a (4) second input broadcasts over the rows") {
    std::vector<double> want;
    for (int i = 0; i < 3; ++i)
      want.push_back(cos_of({&a[i * 4], &a[i * 4 + 4]}, {&b[0], &b[4]}, 1e-8));
    require_values(F::cosine_similarity(x1, x2[0], F::CosineSimilarityFuncOptions().dim(-1)), want);
  }
  SECTION("eps clamps each norm") {
    // |u| = 0.1 < eps = 0.5: (0.1 / 0.5) (2 / 2) = 0.2 (clamping |u| |v| = 0.2 would give 0.4).
    const Tensor u = tensor({{0.1, 0.0}}, kDouble), v = tensor({{2.0, 0.0}}, kDouble);
    require_values(F::cosine_similarity(u, v, F::CosineSimilarityFuncOptions().eps(0.5)), {0.2});
    require_values(F::cosine_similarity(zeros({1, 2}, kDouble), v), {0.0});
  }
}

TEST_CASE("cosine_similarity gradients pass gradcheck and gradgradcheck", "[distance]") {
  manual_seed(9);
  const Tensor x1 = leaf(randn({3, 4}, kDouble)), x2 = leaf(randn({4}, kDouble));
  auto fn = [](const tensor_list& in) {
    return F::cosine_similarity(in[0], in[1], F::CosineSimilarityFuncOptions().dim(1));
  };
  REQUIRE_GRADCHECK(gradcheck(fn, {x1, x2}));
  REQUIRE_GRADCHECK(gradgradcheck(fn, {x1, x2}));
}

TEST_CASE("cosine_similarity rejects integer inputs, bad dims and shapes", "[distance]") {
  const Tensor a = zeros({3, 4}, kDouble);
  REQUIRE_THROWS_WITH(F::cosine_similarity(zeros({3, 4}, kLong), a),
                      Catch::Contains("cosine_similarity") && Catch::Contains("int64"));
  REQUIRE_THROWS_WITH(F::cosine_similarity(a, zeros({3, 5}, kDouble)),
                      Catch::Contains("cosine_similarity") && Catch::Contains("[3, 5]"));
  REQUIRE_THROWS_WITH(F::cosine_similarity(a, a, F::CosineSimilarityFuncOptions().dim(2)),
                      Catch::Contains("cosine_similarity: dimension 2 out of range"));
}

// ---------------------------------------------------------------- pairwise_distance

TEST_CASE("pairwise_distance matches ||x1 - x2 + eps||_p over the last dim", "[distance]") {
  manual_seed(10);
  const Tensor x1 = randn({3, 4}, kDouble), x2 = randn({4}, kDouble);
  const std::vector<double> a = values(x1), b = values(x2);
  for (double p : {1.0, 2.0, 3.0}) {
    for (double eps : {1e-6, 0.25}) {
      std::vector<double> want;
      for (int i = 0; i < 3; ++i) {
        double acc = 0;
        for (int k = 0; k < 4; ++k) acc += std::pow(std::abs(a[i * 4 + k] - b[k] + eps), p);
        want.push_back(std::pow(acc, 1 / p));
      }
      const auto opts = F::PairwiseDistanceFuncOptions().p(p).eps(eps);
      require_values(F::pairwise_distance(x1, x2, opts), want, 1e-12);
      const Tensor kept =
          F::pairwise_distance(x1, x2, F::PairwiseDistanceFuncOptions(opts).keepdim(true));
      REQUIRE(kept.sizes() == IntArrayRef{3, 1});
      require_values(kept, want, 1e-12);
    }
  }
}

TEST_CASE("pairwise_distance gradients pass gradcheck and gradgradcheck", "[distance]") {
  manual_seed(11);
  const Tensor x1 = leaf(randn({3, 4}, kDouble)), x2 = leaf(randn({3, 4}, kDouble));
  for (double p : {1.5, 2.0}) {
    auto fn = [p](const tensor_list& in) {
      return F::pairwise_distance(in[0], in[1], F::PairwiseDistanceFuncOptions().p(p));
    };
    REQUIRE_GRADCHECK(gradcheck(fn, {x1, x2}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {x1, x2}));
  }
}

TEST_CASE("pairwise_distance rejects shapes that do not broadcast and integer inputs",
          "[distance]") {
  REQUIRE_THROWS_WITH(F::pairwise_distance(zeros({3, 4}, kDouble), zeros({2, 4}, kDouble)),
                      Catch::Contains("pairwise_distance") && Catch::Contains("[2, 4]"));
  REQUIRE_THROWS_WITH(F::pairwise_distance(zeros({3}, kLong), zeros({3}, kDouble)),
                      Catch::Contains("pairwise_distance: expected floating point inputs"));
}

// ---------------------------------------------------------------- modules

TEST_CASE("CosineSimilarity and PairwiseDistance modules apply their options", "[distance]") {
  const Tensor u = tensor({{3.0, 4.0}, {1.0, 0.0}}, kDouble);
  const Tensor v = tensor({{3.0, 4.0}, {0.0, 2.0}}, kDouble);
  // Columns: (3, 1).(3, 0) / (sqrt(10) 3) and (4, 0).(4, 2) / (4 sqrt(20)).
  nn::CosineSimilarity by_column(nn::CosineSimilarityOptions().dim(0));
  require_values(by_column(u, v), {9 / (std::sqrt(10.0) * 3), 16 / (4 * std::sqrt(20.0))});
  nn::PairwiseDistance l1(nn::PairwiseDistanceOptions().p(1).eps(0).keepdim(true));
  const Tensor d = l1(u, v);
  REQUIRE(d.sizes() == IntArrayRef{2, 1});
  require_values(d, {0.0, 3.0});
  std::ostringstream os;
  os << nn::CosineSimilarity() << " " << nn::PairwiseDistance();
  REQUIRE(os.str() ==
          "CosineSimilarity(dim=1, eps=1e-08) PairwiseDistance(p=2, eps=1e-06, keepdim=false)");
}
