// linalg_vector_norm, linalg_matrix_norm, linalg_norm (core/ops/linalg/linalg_norms.cpp):
// values against loops in this file and matrices with known singular values,
// gradients by gradcheck, errors by message.
#include "test_helpers.h"

#include <cmath>
#include <vector>

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using ember_test::require_values;
using ember_test::values;

namespace {

// (sum |v|^p)^(1/p) with the inf, -inf and 0 cases, by a loop.
double naive_vector_norm(const std::vector<double>& v, double p) {
  if (p == INFINITY || p == -INFINITY) {
    double r = std::abs(v[0]);
    for (double x : v) r = p > 0 ? std::max(r, std::abs(x)) : std::min(r, std::abs(x));
    return r;
  }
  double s = 0;
  for (double x : v) s += p == 0 ? (x != 0) : std::pow(std::abs(x), p);
  return p == 0 ? s : std::pow(s, 1 / p);
}

// The rows of a (rows, cols) row-major matrix's |a| summed (by_rows) or its
// columns summed, then the max (or min) of those sums.
double naive_abs_sum_extreme(const std::vector<double>& a, int64_t rows, int64_t cols,
                             bool by_rows, bool largest) {
  std::vector<double> sums(static_cast<size_t>(by_rows ? rows : cols), 0.0);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      sums[static_cast<size_t>(by_rows ? i : j)] += std::abs(a[static_cast<size_t>(i * cols + j)]);
  return largest ? *std::max_element(sums.begin(), sums.end())
                 : *std::min_element(sums.begin(), sums.end());
}

Tensor rotation(double angle) {
  return tensor({{std::cos(angle), -std::sin(angle)}, {std::sin(angle), std::cos(angle)}}, kDouble);
}

// R(0.3) diag(3, 1) R(-1.1)^T: singular values 3 and 1.
Tensor known_singular_values_3_1() {
  return matmul(matmul(rotation(0.3), diag(tensor({3.0, 1.0}, kDouble))), rotation(-1.1).t());
}

}  // namespace

TEST_CASE("linalg_vector_norm matches (sum |x|^ord)^(1/ord) for any real ord, per row",
          "[linalg_spectral]") {
  const Tensor x = tensor({{3.0, -4.0, 0.5, 2.0}, {-1.0, 0.25, 6.0, -2.5}}, kDouble);
  for (double p : std::initializer_list<double>{2.0, 1.0, 3.0, 0.5, -1.0, -2.5, INFINITY, -INFINITY, 0.0}) {
    INFO("ord " << p);
    std::vector<double> want;
    for (int64_t r = 0; r < 2; ++r) want.push_back(naive_vector_norm(values(x[r]), p));
    require_values(linalg_vector_norm(x, p, {1}), want);
    const Tensor kept = linalg_vector_norm(x, p, {-1}, /*keepdim=*/true);
    REQUIRE(kept.sizes() == IntArrayRef{2, 1});
    require_values(kept, want);
    // No dim: all elements.
    require_values(linalg_vector_norm(x, p), {naive_vector_norm(values(x), p)});
  }
}

TEST_CASE("linalg_vector_norm counts zeros for ord 0 and casts to dtype first", "[linalg_spectral]") {
  const Tensor x = tensor({0.0f, 2.0f, 0.0f, -1.0f});
  require_values(linalg_vector_norm(x, 0), {2});
  const Tensor y = linalg_vector_norm(x, 2, {}, false, kDouble);
  REQUIRE(y.scalar_type() == kDouble);
  require_values(y, {std::sqrt(5.0)});
}

TEST_CASE("linalg_vector_norm gradients pass gradcheck for positive, negative and inf ords",
          "[linalg_spectral]") {
  const Tensor x = tensor({{1.5, -0.7, 2.2}, {-0.4, 0.9, -3.1}}, kDouble).t().requires_grad_();
  for (double p : std::initializer_list<double>{2.0, 1.0, 3.0, -1.5, INFINITY, -INFINITY}) {
    INFO("ord " << p);
    auto fn = [p](const tensor_list& in) { return linalg_vector_norm(in[0], p, {0}); };
    REQUIRE_GRADCHECK(gradcheck(fn, {x}));
    if (!std::isinf(p) && p != 1) REQUIRE_GRADCHECK(gradgradcheck(fn, {x}));
  }
}

TEST_CASE("linalg_vector_norm rejects integers, non-float dtypes and empty inf-norms",
          "[linalg_spectral]") {
  REQUIRE_THROWS_WITH(linalg_vector_norm(zeros({3}, kLong)),
                      Catch::Contains("linalg.vector_norm") && Catch::Contains("int64"));
  REQUIRE_THROWS_WITH(linalg_vector_norm(zeros({3}), 2, {}, false, kLong),
                      Catch::Contains("linalg.vector_norm: dtype must be floating point"));
  REQUIRE_THROWS_WITH(linalg_vector_norm(zeros({2, 0}), INFINITY, {1}),
                      Catch::Contains("linalg.vector_norm") && Catch::Contains("[2, 0]") &&
                          Catch::Contains("no identity"));
  require_values(linalg_vector_norm(zeros({2, 0}), 2, {1}), {0, 0});
}

TEST_CASE("linalg_matrix_norm fro, 1, -1, inf, -inf match loops over a batch, in any two dims",
          "[linalg_spectral]") {
  manual_seed(11);
  const Tensor A = randn({2, 3, 4}, kDouble);
  struct Case {
    double ord;
    bool by_rows, largest;
  };
  for (const Case c : {Case{1, false, true}, Case{-1, false, false}, Case{INFINITY, true, true},
                       Case{-INFINITY, true, false}}) {
    INFO("ord " << c.ord);
    std::vector<double> want;
    for (int64_t b = 0; b < 2; ++b) want.push_back(naive_abs_sum_extreme(values(A[b]), 3, 4, c.by_rows, c.largest));
    require_values(linalg_matrix_norm(A, c.ord), want);
    // The same matrices with rows in dim 2 and columns in dim 0.
    require_values(linalg_matrix_norm(A.permute({2, 0, 1}), c.ord, {2, 0}), want);
    const Tensor kept = linalg_matrix_norm(A, c.ord, {-2, -1}, /*keepdim=*/true);
    REQUIRE(kept.sizes() == IntArrayRef{2, 1, 1});
    require_values(kept, want);
  }
  std::vector<double> fro;
  for (int64_t b = 0; b < 2; ++b) fro.push_back(naive_vector_norm(values(A[b]), 2));
  require_values(linalg_matrix_norm(A), fro);
  require_values(linalg_matrix_norm(A, "fro"), fro);
}

TEST_CASE("linalg_matrix_norm 2, -2 and nuc are the largest, smallest and summed singular values",
          "[linalg_spectral]") {
  const Tensor A = known_singular_values_3_1();
  require_values(linalg_matrix_norm(A, 2), {3}, 1e-12);
  require_values(linalg_matrix_norm(A, -2), {1}, 1e-12);
  require_values(linalg_matrix_norm(A, "nuc"), {4}, 1e-12);
  const Tensor batch = stack({A, 2.0 * A.t()}).permute({1, 0, 2});  // matrices in dims (0, 2)
  const Tensor kept = linalg_matrix_norm(batch, "nuc", {0, 2}, /*keepdim=*/true);
  REQUIRE(kept.sizes() == IntArrayRef{1, 2, 1});
  require_values(kept, {4, 8}, 1e-12);
}

TEST_CASE("linalg_matrix_norm gradients pass gradcheck for every ord", "[linalg_spectral]") {
  const Tensor A = tensor({{1.5, -0.7, 2.2}, {-0.4, 0.9, -3.1}, {0.3, 2.6, 1.1}}, kDouble)
                       .t()
                       .requires_grad_();
  for (double p : std::initializer_list<double>{1.0, -1.0, INFINITY, -INFINITY, 2.0, -2.0}) {
    INFO("ord " << p);
    REQUIRE_GRADCHECK(gradcheck([p](const tensor_list& in) { return linalg_matrix_norm(in[0], p); }, {A}));
  }
  for (const char* p : {"fro", "nuc"}) {
    INFO("ord " << p);
    auto fn = [p](const tensor_list& in) { return linalg_matrix_norm(in[0], p); };
    REQUIRE_GRADCHECK(gradcheck(fn, {A}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {A}));
  }
}

TEST_CASE("linalg_matrix_norm rejects vectors, repeated dims and unknown ords", "[linalg_spectral]") {
  REQUIRE_THROWS_WITH(linalg_matrix_norm(zeros({3})),
                      Catch::Contains("linalg.matrix_norm") && Catch::Contains("[3]"));
  REQUIRE_THROWS_WITH(linalg_matrix_norm(zeros({3, 3}), "fro", {1, -1}),
                      Catch::Contains("linalg.matrix_norm: dim must name two different dims"));
  REQUIRE_THROWS_WITH(linalg_matrix_norm(zeros({3, 3}), 3),
                      Catch::Contains("linalg.matrix_norm: ord 3 is not supported"));
  REQUIRE_THROWS_WITH(linalg_matrix_norm(zeros({3, 3}), "max"),
                      Catch::Contains("linalg.matrix_norm: ord \"max\" is not supported"));
}

TEST_CASE("linalg_norm dispatches to the vector or matrix norm as libtorch", "[linalg_spectral]") {
  const Tensor M = tensor({{1.0, -2.0}, {3.0, 4.0}}, kDouble);
  // No ord: the 2-norm of all elements, whatever the dims.
  require_values(linalg_norm(M.reshape({1, 2, 2})), {std::sqrt(30.0)});
  // ord on a matrix: the matrix norm (inf: max row sum 7, not max |x| 4).
  require_values(linalg_norm(M, INFINITY), {7});
  require_values(linalg_norm(M.reshape({4}), INFINITY), {4});
  // One dim: vector norms along it; two dims: the matrix norm.
  require_values(linalg_norm(M, 1, {0}), {4, 6});
  require_values(linalg_norm(M.unsqueeze(0), 1, {1, 2}), {6});
  require_values(linalg_norm(M, "fro"), {std::sqrt(30.0)});
  require_values(linalg::norm(M, -INFINITY), {3});  // the smaller row sum
  require_values(linalg::vector_norm(M, 1), {10});
  require_values(linalg::matrix_norm(M, 1), {6});
}

TEST_CASE("linalg_norm refuses an ord without dim on 3-d input and dims of length 3",
          "[linalg_spectral]") {
  REQUIRE_THROWS_WITH(linalg_norm(zeros({2, 2, 2}), 2),
                      Catch::Contains("linalg.norm") && Catch::Contains("[2, 2, 2]"));
  REQUIRE_THROWS_WITH(linalg_norm(zeros({2, 2, 2}), "fro"), Catch::Contains("linalg.norm"));
  REQUIRE_THROWS_WITH(linalg_norm(zeros({2, 2, 2}), std::nullopt, {0, 1, 2}),
                      Catch::Contains("linalg.norm: dim must name 1 or 2 dims, got [0, 1, 2]"));
}
