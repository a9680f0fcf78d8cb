// Solvers and factorizations (core/ops/linalg/linalg_solve.cpp, linalg_cholesky.cpp,
// linalg_triangular.cpp, linalg_lu.cpp): values by hand and by identities
// (A inv(A) = I, A X = B, L L^T = A, P L U = A), gradients by gradcheck and
// gradgradcheck, errors by message.
#include "test_helpers.h"

#include <cmath>

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using ember_test::require_values;
using ember_test::values;

namespace {

Tensor mT(const Tensor& x) { return x.transpose(-2, -1); }

// Random (batch..., n, n) matrices with n added to the diagonal: far from singular.
Tensor well_conditioned(IntArrayRef shape, ScalarType t = kDouble) {
  const int64_t n = shape.back();
  return (randn(shape, kDouble) + n * eye(n, kDouble)).to(t);
}

// Symmetric positive-definite: X X^T + n I.
Tensor spd(IntArrayRef shape, ScalarType t = kDouble) {
  const Tensor x = randn(shape, kDouble);
  return (matmul(x, mT(x)) + shape.back() * eye(shape.back(), kDouble)).to(t);
}

// Elementwise |got - want| <= tol * max(1, |want|), shapes equal.
void require_close(const Tensor& got, const Tensor& want, double tol) {
  REQUIRE(got.sizes() == want.sizes());
  require_values(got, values(want), tol);
}

Tensor identity_batch(IntArrayRef batch, int64_t n, ScalarType t = kDouble) {
  DimVector s(batch);
  s.push_back(n);
  s.push_back(n);
  return eye(n, t).expand(s);
}

}  // namespace

// --- inv ---

TEST_CASE("linalg_inv of a 2x2 matrix matches the adjugate formula", "[linalg_solve]") {
  const Tensor A = tensor({{4.0, 7.0}, {2.0, 6.0}}, kDouble);  // det 10
  require_values(linalg_inv(A), {0.6, -0.7, -0.2, 0.4});
  require_values(inverse(A), {0.6, -0.7, -0.2, 0.4});
  require_values(A.inverse(), {0.6, -0.7, -0.2, 0.4});
  require_values(linalg::inv(A), {0.6, -0.7, -0.2, 0.4});
}

TEST_CASE("linalg_inv of a batch gives A inv(A) = I in float32 and float64", "[linalg_solve]") {
  for (ScalarType t : {kFloat, kDouble}) {
    const Tensor A = well_conditioned({2, 3, 5, 5}, t);
    const Tensor X = linalg_inv(A);
    REQUIRE(X.scalar_type() == t);
    REQUIRE(X.sizes() == A.sizes());
    require_close(matmul(A, X), identity_batch({2, 3}, 5, t), t == kFloat ? 1e-5 : 1e-12);
  }
}

TEST_CASE("linalg_inv of a transposed (non-contiguous) matrix inverts it", "[linalg_solve]") {
  const Tensor A = well_conditioned({4, 4});
  require_close(matmul(mT(A), linalg_inv(mT(A))), eye(4, kDouble), 1e-12);
}

TEST_CASE("linalg_inv of empty batches and 0x0 matrices is empty", "[linalg_solve]") {
  REQUIRE(linalg_inv(zeros({0, 3, 3}, kDouble)).sizes() == IntArrayRef{0, 3, 3});
  REQUIRE(linalg_inv(zeros({2, 0, 0}, kDouble)).sizes() == IntArrayRef{2, 0, 0});
}

TEST_CASE("linalg_inv of a singular matrix raises naming the batch element", "[linalg_solve]") {
  Tensor A = well_conditioned({3, 3, 3});
  A.select(0, 1).select(0, 2).zero_();  // element 1 gets a zero row
  REQUIRE_THROWS_WITH(linalg_inv(A), Catch::Contains("linalg.inv: (Batch element 1)") &&
                                         Catch::Contains("singular"));
  REQUIRE_THROWS_WITH(linalg_inv(zeros({2, 2}, kDouble)),
                      Catch::StartsWith("linalg.inv: the matrix is singular"));
}

TEST_CASE("linalg_inv rejects non-square, 1-d and int64 input", "[linalg_solve]") {
  REQUIRE_THROWS_WITH(linalg_inv(zeros({2, 3}, kDouble)),
                      Catch::Contains("linalg.inv: A must be a batch of square matrices") &&
                          Catch::Contains("[2, 3]"));
  REQUIRE_THROWS_WITH(linalg_inv(zeros({3}, kDouble)),
                      Catch::Contains("linalg.inv: A must have at least 2 dims"));
  REQUIRE_THROWS_WITH(linalg_inv(zeros({2, 2}, kLong)),
                      Catch::Contains("linalg.inv: A must be float32 or float64, got int64"));
}

TEST_CASE("linalg_inv gradients pass gradcheck and gradgradcheck", "[linalg_solve]") {
  const Tensor A = well_conditioned({2, 3, 3}).requires_grad_();
  auto fn = [](const tensor_list& in) { return linalg_inv(in[0]); };
  REQUIRE_GRADCHECK(gradcheck(fn, {A}));
  REQUIRE_GRADCHECK(gradgradcheck(fn, {A}));
}

// --- solve ---

TEST_CASE("linalg_solve of a 2x2 system matches the hand solution", "[linalg_solve]") {
  const Tensor A = tensor({{3.0, 1.0}, {1.0, 2.0}}, kDouble);
  require_values(linalg_solve(A, tensor({9.0, 8.0}, kDouble)), {2.0, 3.0});
  require_values(linalg::solve(A, tensor({{9.0}, {8.0}}, kDouble)), {2.0, 3.0});
  // x A = b: [2, 3] A = [9, 8].
  require_values(linalg_solve(A, tensor({9.0, 8.0}, kDouble), /*left=*/false), {2.0, 3.0});
}

TEST_CASE("linalg_solve broadcasts batch dims and solves A X = B", "[linalg_solve]") {
  for (ScalarType t : {kFloat, kDouble}) {
    const Tensor A = well_conditioned({2, 1, 4, 4}, t);
    const Tensor B = randn({3, 4, 2}, t);
    const Tensor X = linalg_solve(A, B);
    REQUIRE(X.sizes() == IntArrayRef{2, 3, 4, 2});
    require_close(matmul(A, X), B.expand({2, 3, 4, 2}), t == kFloat ? 1e-5 : 1e-12);
  }
}

TEST_CASE("linalg_solve takes B as vectors when it is 1-d or A's shape without a dim",
          "[linalg_solve]") {
  const Tensor A = well_conditioned({2, 3, 3});
  const Tensor b = randn({2, 3}, kDouble);  // A.shape[:-1]: a batch of vectors
  const Tensor x = linalg_solve(A, b);
  REQUIRE(x.sizes() == IntArrayRef{2, 3});
  require_close(matmul(A, x.unsqueeze(-1)).squeeze(-1), b, 1e-12);
  const Tensor v = randn({3}, kDouble);  // 1-d: one vector for every matrix
  const Tensor y = linalg_solve(A, v);
  REQUIRE(y.sizes() == IntArrayRef{2, 3});
  require_close(matmul(A, y.unsqueeze(-1)).squeeze(-1), v.expand({2, 3}), 1e-12);
  // (3, 3) against B (3, 3) is the matrix case even though B looks like a batch of rows.
  const Tensor M = randn({3, 3}, kDouble);
  require_close(matmul(A.select(0, 0), linalg_solve(A.select(0, 0), M)), M, 1e-12);
}

TEST_CASE("linalg_solve with left=false solves X A = B", "[linalg_solve]") {
  const Tensor A = well_conditioned({2, 4, 4});
  const Tensor B = randn({2, 3, 4}, kDouble);
  const Tensor X = linalg_solve(A, B, /*left=*/false);
  REQUIRE(X.sizes() == IntArrayRef{2, 3, 4});
  require_close(matmul(X, A), B, 1e-12);
}

TEST_CASE("linalg_solve with a non-contiguous B solves it", "[linalg_solve]") {
  const Tensor A = well_conditioned({3, 3});
  const Tensor B = mT(randn({2, 3}, kDouble));
  require_close(matmul(A, linalg_solve(A, B)), B, 1e-12);
}

TEST_CASE("linalg_solve rejects mismatched dtypes, shapes and singular A", "[linalg_solve]") {
  const Tensor A = well_conditioned({3, 3});
  REQUIRE_THROWS_WITH(linalg_solve(A, zeros({3, 1}, kFloat)),
                      Catch::Contains("linalg.solve: expected A and B of one dtype, got float64 and float32"));
  REQUIRE_THROWS_WITH(linalg_solve(A, zeros({4, 2}, kDouble)),
                      Catch::Contains("linalg.solve: A of shape [3, 3] and B of shape [4, 2] do not match"));
  REQUIRE_THROWS_WITH(linalg_solve(A, zeros({4}, kDouble), /*left=*/false),
                      Catch::Contains("linalg.solve: A of shape [3, 3] and B of shape [4] do not match "
                                      "(B is a vector of size 4, A has 3 columns)"));
  REQUIRE_THROWS_WITH(linalg_solve(A, zeros({2, 4}, kDouble), /*left=*/false),
                      Catch::Contains("linalg.solve: A of shape [3, 3] and B of shape [2, 4] do not match "
                                      "(X A = B needs B with 3 columns)"));
  REQUIRE_THROWS_WITH(lu_solve(zeros({2, 1}, kDouble), std::get<0>(linalg_lu_factor(A)),
                               std::get<1>(linalg_lu_factor(A))),
                      Catch::Contains("linalg.lu_solve: A of shape [3, 3] and B of shape [2, 1] do not match"));
  REQUIRE_THROWS_WITH(linalg_solve(well_conditioned({2, 3, 3}), zeros({3, 3, 1}, kDouble)),
                      Catch::Contains("linalg.solve"));
  Tensor S = well_conditioned({2, 3, 3});
  S.select(0, 0).select(1, 1).zero_();  // element 0 gets a zero column
  REQUIRE_THROWS_WITH(linalg_solve(S, zeros({3}, kDouble)),
                      Catch::Contains("linalg.solve: (Batch element 0)") && Catch::Contains("singular"));
}

TEST_CASE("linalg_solve gradients pass gradcheck and gradgradcheck", "[linalg_solve]") {
  const Tensor A = well_conditioned({2, 1, 3, 3}).requires_grad_();
  SECTION("matrix B, broadcast batch") {
    const Tensor B = randn({2, 3, 2}, kDouble).requires_grad_();
    auto fn = [](const tensor_list& in) { return linalg_solve(in[0], in[1]); };
    REQUIRE_GRADCHECK(gradcheck(fn, {A, B}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {A, B}));
  }
  SECTION("vector B") {
    const Tensor b = randn({3}, kDouble).requires_grad_();
    auto fn = [](const tensor_list& in) { return linalg_solve(in[0], in[1]); };
    REQUIRE_GRADCHECK(gradcheck(fn, {A, b}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {A, b}));
  }
  SECTION("left = false") {
    const Tensor B = randn({2, 3}, kDouble).requires_grad_();
    auto fn = [](const tensor_list& in) { return linalg_solve(in[0], in[1], false); };
    REQUIRE_GRADCHECK(gradcheck(fn, {A, B}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {A, B}));
  }
}

// --- det, slogdet, logdet ---

TEST_CASE("linalg_det of a 3x3 matrix matches its cofactor expansion", "[linalg_solve]") {
  // 2 (3*4 - 2*1) + 1 (1*4 - 2*0) = 24
  const Tensor A = tensor({{2.0, -1.0, 0.0}, {1.0, 3.0, 2.0}, {0.0, 1.0, 4.0}}, kDouble);
  require_values(linalg_det(A), {24.0});
  require_values(det(A), {24.0});
  require_values(A.det(), {24.0});
  require_values(linalg::det(A), {24.0});
  // Swapping two rows flips the sign.
  require_values(det(A.index_select(0, tensor({1, 0, 2}, kLong))), {-24.0});
  require_values(det(tensor({{1.0, 2.0}, {2.0, 4.0}}, kDouble)), {0.0});
}

TEST_CASE("det of a batch of triangular matrices is the product of the diagonals",
          "[linalg_solve]") {
  for (ScalarType t : {kFloat, kDouble}) {
    const Tensor T = randn({2, 3, 4, 4}, kDouble).triu();
    const std::vector<double> tv = values(T);
    const std::vector<double> got = values(det(T.to(t)));
    REQUIRE(got.size() == 6);
    for (size_t b = 0; b < 6; ++b) {
      double p = 1;
      for (size_t i = 0; i < 4; ++i) p *= tv[b * 16 + i * 5];
      REQUIRE(got[b] == Approx(p).epsilon(t == kFloat ? 1e-5 : 1e-12));
    }
  }
}

TEST_CASE("det of a 0x0 matrix is 1 and a batch keeps its shape", "[linalg_solve]") {
  require_values(det(zeros({2, 0, 0}, kDouble)), {1.0, 1.0});
  REQUIRE(det(zeros({0, 2, 2}, kDouble)).sizes() == IntArrayRef{0});
}

TEST_CASE("slogdet gives sign and log|det|; logdet is NaN for a negative det", "[linalg_solve]") {
  const Tensor A = tensor({{{1.0, 2.0}, {3.0, 4.0}},     // det -2
                           {{2.0, 1.0}, {1.0, 3.0}},     // det 5
                           {{1.0, 2.0}, {2.0, 4.0}}},    // det 0
                          kDouble);
  auto [sign, logabs] = linalg_slogdet(A);
  require_values(sign, {-1.0, 1.0, 0.0});
  require_values(logabs, {std::log(2.0), std::log(5.0), -INFINITY});
  auto [s2, l2] = A.slogdet();
  require_values(s2, {-1.0, 1.0, 0.0});
  auto [s3, l3] = linalg::slogdet(A);
  require_values(l3, {std::log(2.0), std::log(5.0), -INFINITY});
  require_values(logdet(A), {NAN, std::log(5.0), -INFINITY});
  require_values(A.logdet(), {NAN, std::log(5.0), -INFINITY});
  REQUIRE_FALSE(sign.requires_grad());
}

TEST_CASE("det, slogdet and logdet gradients pass gradcheck and gradgradcheck", "[linalg_solve]") {
  const Tensor A = well_conditioned({2, 3, 3}).requires_grad_();
  auto det_fn = [](const tensor_list& in) { return linalg_det(in[0]); };
  REQUIRE_GRADCHECK(gradcheck(det_fn, {A}));
  REQUIRE_GRADCHECK(gradgradcheck(det_fn, {A}));
  // A negative determinant: log|det| is still smooth.
  const Tensor N = (well_conditioned({3, 3}) * tensor({{-1.0}, {1.0}, {1.0}}, kDouble)).requires_grad_();
  auto slog_fn = [](const tensor_list& in) { return std::get<1>(slogdet(in[0])); };
  REQUIRE_GRADCHECK(gradcheck(slog_fn, {N}));
  REQUIRE_GRADCHECK(gradgradcheck(slog_fn, {N}));
  const Tensor P = spd({2, 3, 3}).requires_grad_();
  auto logdet_fn = [](const tensor_list& in) { return logdet(in[0]); };
  REQUIRE_GRADCHECK(gradcheck(logdet_fn, {P}));
  REQUIRE_GRADCHECK(gradgradcheck(logdet_fn, {P}));
}

TEST_CASE("det's gradient at a singular matrix raises (it needs the inverse)", "[linalg_solve]") {
  const Tensor A = tensor({{1.0, 2.0}, {2.0, 4.0}}, kDouble).requires_grad_();
  REQUIRE_THROWS_WITH(det(A).backward(),
                      Catch::Contains("linalg.det (backward)") && Catch::Contains("singular"));
}

// --- Cholesky ---

TEST_CASE("linalg_cholesky of a 2x2 matrix matches the hand factor", "[linalg_solve]") {
  const Tensor A = tensor({{4.0, 2.0}, {2.0, 3.0}}, kDouble);
  const double r2 = std::sqrt(2.0);
  require_values(linalg_cholesky(A), {2.0, 0.0, 1.0, r2});
  require_values(linalg_cholesky(A, /*upper=*/true), {2.0, 1.0, 0.0, r2});
  require_values(cholesky(A), {2.0, 0.0, 1.0, r2});
  require_values(A.cholesky(true), {2.0, 1.0, 0.0, r2});
  require_values(linalg::cholesky(A), {2.0, 0.0, 1.0, r2});
  // Only the lower triangle is read.
  require_values(linalg_cholesky(tensor({{4.0, 99.0}, {2.0, 3.0}}, kDouble)), {2.0, 0.0, 1.0, r2});
}

TEST_CASE("linalg_cholesky of a batch gives L L^T = A and U^T U = A", "[linalg_solve]") {
  for (ScalarType t : {kFloat, kDouble}) {
    const Tensor A = spd({2, 3, 5, 5}, t);
    const double tol = t == kFloat ? 1e-5 : 1e-12;
    const Tensor L = linalg_cholesky(A);
    require_close(L, L.tril(), 0);
    require_close(matmul(L, mT(L)), A, tol);
    const Tensor U = linalg_cholesky(A, true);
    require_close(U, U.triu(), 0);
    require_close(matmul(mT(U), U), A, tol);
  }
}

TEST_CASE("linalg_cholesky of a matrix that is not positive-definite raises", "[linalg_solve]") {
  Tensor A = spd({3, 3, 3});
  A.select(0, 2).select(0, 1).select(0, 1).fill_(-1.0);  // element 2's minor of order 2
  REQUIRE_THROWS_WITH(linalg_cholesky(A), Catch::Contains("linalg.cholesky: (Batch element 2)") &&
                                              Catch::Contains("not positive-definite") &&
                                              Catch::Contains("order 2"));
  REQUIRE_THROWS_WITH(cholesky(tensor({{-1.0}}, kDouble)),
                      Catch::Contains("cholesky: the input is not positive-definite"));
}

TEST_CASE("linalg_cholesky gradients pass gradcheck and gradgradcheck", "[linalg_solve]") {
  // A symmetric input made from X, as libtorch's gradient treats A as symmetric.
  const Tensor X = randn({2, 3, 3}, kDouble).requires_grad_();
  for (bool upper : {false, true}) {
    auto fn = [upper](const tensor_list& in) {
      return linalg_cholesky(matmul(in[0], mT(in[0])) + 3.0 * eye(3, kDouble), upper);
    };
    REQUIRE_GRADCHECK(gradcheck(fn, {X}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {X}));
  }
}

TEST_CASE("cholesky_solve and cholesky_inverse match A^-1 B and A^-1", "[linalg_solve]") {
  const Tensor A = spd({2, 4, 4});
  const Tensor B = randn({3, 1, 4, 2}, kDouble);  // batch broadcasts against A's
  for (bool upper : {false, true}) {
    const Tensor F = linalg_cholesky(A, upper);
    const Tensor X = cholesky_solve(B, F, upper);
    REQUIRE(X.sizes() == IntArrayRef{3, 2, 4, 2});
    require_close(matmul(A, X), B.expand({3, 2, 4, 2}), 1e-12);
    require_close(B.cholesky_solve(F, upper), X, 1e-12);
    require_close(matmul(A, cholesky_inverse(F, upper)), identity_batch({2}, 4), 1e-12);
    require_close(F.cholesky_inverse(upper), cholesky_inverse(F, upper), 1e-12);
  }
}

TEST_CASE("cholesky_solve and cholesky_inverse gradients pass gradcheck", "[linalg_solve]") {
  const Tensor L = linalg_cholesky(spd({2, 3, 3})).requires_grad_();
  const Tensor B = randn({2, 3, 2}, kDouble).requires_grad_();
  auto solve_fn = [](const tensor_list& in) { return cholesky_solve(in[1], in[0]); };
  REQUIRE_GRADCHECK(gradcheck(solve_fn, {L, B}));
  REQUIRE_GRADCHECK(gradgradcheck(solve_fn, {L, B}));
  const Tensor U = mT(L).detach().contiguous().requires_grad_();
  auto inv_fn = [](const tensor_list& in) { return cholesky_inverse(in[0], /*upper=*/true); };
  REQUIRE_GRADCHECK(gradcheck(inv_fn, {U}));
  REQUIRE_GRADCHECK(gradgradcheck(inv_fn, {U}));
}

// --- triangular solves ---

TEST_CASE("linalg_solve_triangular solves with the selected triangle only", "[linalg_solve]") {
  // Full matrix: the other triangle (and the diagonal, when unitriangular) is ignored.
  const Tensor A = randn({2, 4, 4}, kDouble) + 4.0 * eye(4, kDouble);
  for (bool upper : {false, true})
    for (bool unit : {false, true})
      for (bool left : {true, false}) {
        INFO("upper " << upper << " unitriangular " << unit << " left " << left);
        Tensor T = upper ? A.triu(unit ? 1 : 0) : A.tril(unit ? -1 : 0);
        if (unit) T = T + eye(4, kDouble);
        const Tensor B = left ? randn({3, 1, 4, 2}, kDouble) : randn({3, 1, 2, 4}, kDouble);
        const Tensor X = linalg_solve_triangular(A, B, upper, left, unit);
        REQUIRE(X.sizes() == (left ? IntArrayRef{3, 2, 4, 2} : IntArrayRef{3, 2, 2, 4}));
        require_close(left ? matmul(T, X) : matmul(X, T), B.expand(X.sizes()), 1e-12);
      }
}

TEST_CASE("linalg_solve_triangular of a 2x2 system matches the hand solution", "[linalg_solve]") {
  // [[2, 0], [1, 4]] x = [4, 6]: x0 = 2, x1 = (6 - 2) / 4 = 1.
  const Tensor L = tensor({{2.0, 0.0}, {1.0, 4.0}}, kFloat);
  require_values(linalg::solve_triangular(L, tensor({{4.0}, {6.0}}, kFloat), false), {2.0, 1.0});
}

TEST_CASE("linalg_solve_triangular rejects a 1-d B and mismatched shapes", "[linalg_solve]") {
  const Tensor A = eye(3, kDouble);
  REQUIRE_THROWS_WITH(linalg_solve_triangular(A, zeros({3}, kDouble), true),
                      Catch::Contains("linalg.solve_triangular: B must have at least 2 dims"));
  REQUIRE_THROWS_WITH(linalg_solve_triangular(A, zeros({2, 3}, kDouble), true),
                      Catch::Contains("linalg.solve_triangular: A of shape [3, 3] and B of shape [2, 3] "
                                      "do not match (A X = B needs B with 3 rows)"));
  REQUIRE_THROWS_WITH(linalg_solve_triangular(A, zeros({3, 2}, kDouble), true, /*left=*/false),
                      Catch::Contains("linalg.solve_triangular: A of shape [3, 3] and B of shape [3, 2] "
                                      "do not match (X A = B needs B with 3 columns)"));
}

TEST_CASE("linalg_solve_triangular gradients pass gradcheck and gradgradcheck", "[linalg_solve]") {
  const Tensor A = (randn({2, 3, 3}, kDouble) + 3.0 * eye(3, kDouble)).requires_grad_();
  for (bool upper : {false, true})
    for (bool unit : {false, true})
      for (bool left : {true, false}) {
        INFO("upper " << upper << " unitriangular " << unit << " left " << left);
        const Tensor B = randn({2, 3, 3}, kDouble).requires_grad_();
        auto fn = [=](const tensor_list& in) {
          return linalg_solve_triangular(in[0], in[1], upper, left, unit);
        };
        REQUIRE_GRADCHECK(gradcheck(fn, {A, B}));
        REQUIRE_GRADCHECK(gradgradcheck(fn, {A, B}));
      }
}

TEST_CASE("triangular_solve returns the solution of op(A) X = b and a copy of A", "[linalg_solve]") {
  const Tensor A = randn({3, 3}, kDouble) + 3.0 * eye(3, kDouble);
  const Tensor b = randn({2, 3, 2}, kDouble);
  for (bool upper : {false, true})
    for (bool transpose : {false, true}) {
      auto [x, copy] = triangular_solve(b, A, upper, transpose);
      const Tensor T = upper ? A.triu() : A.tril();
      require_close(matmul(transpose ? mT(T) : T, x), b, 1e-12);
      REQUIRE(copy.sizes() == IntArrayRef{2, 3, 3});
      require_close(copy, A.expand({2, 3, 3}), 0);
      REQUIRE(copy.data_ptr() != A.data_ptr());
    }
  auto [x, copy] = b.triangular_solve(A, /*upper=*/true, false, /*unitriangular=*/true);
  require_close(matmul(A.triu(1) + eye(3, kDouble), x), b, 1e-12);
}

// --- LU ---

TEST_CASE("linalg_lu_factor of a 2x2 matrix matches LAPACK's packed factors", "[linalg_solve]") {
  // Row 2 is the larger pivot: swap, l = 1/3, u22 = 2 - 4/3.
  auto [LU, piv] = linalg_lu_factor(tensor({{1.0, 2.0}, {3.0, 4.0}}, kDouble));
  require_values(LU, {3.0, 4.0, 1.0 / 3, 2.0 / 3});
  REQUIRE(piv.scalar_type() == kLong);
  require_values(piv, {2.0, 2.0});
}

TEST_CASE("linalg_lu and lu_unpack rebuild A = P L U, square and rectangular", "[linalg_solve]") {
  for (ScalarType t : {kFloat, kDouble})
    for (const std::vector<int64_t>& shape :
         std::vector<std::vector<int64_t>>{{2, 3, 5, 5}, {2, 3, 5}, {5, 3}}) {
      const Tensor A = randn(shape, t);
      auto [P, L, U] = linalg_lu(A);
      const int64_t m = shape[shape.size() - 2], n = shape.back(), k = std::min(m, n);
      REQUIRE(L.size(-1) == k);
      REQUIRE(U.size(-2) == k);
      require_close(L, L.tril(), 0);
      require_close(U, U.triu(), 0);
      require_values(L.diagonal(0, -2, -1), std::vector<double>(static_cast<size_t>(L.numel() / (m * k) * k), 1.0));
      require_close(matmul(P, matmul(L, U)), A, t == kFloat ? 1e-5 : 1e-12);
      auto [LU, piv] = linalg::lu_factor(A);
      auto [P2, L2, U2] = lu_unpack(LU, piv);
      require_close(P2, P, 0);
      require_close(L2, L, 0);
      require_close(U2, U, 0);
    }
}

TEST_CASE("linalg_lu factors a singular matrix; linalg_lu_factor raises for it", "[linalg_solve]") {
  const Tensor S = tensor({{1.0, 2.0}, {2.0, 4.0}}, kDouble);
  auto [P, L, U] = linalg_lu(S);
  require_close(matmul(P, matmul(L, U)), S, 1e-15);
  REQUIRE_THROWS_WITH(linalg_lu_factor(S), Catch::StartsWith("linalg.lu_factor: U[2, 2] is zero"));
  REQUIRE_THROWS_WITH(linalg_lu_factor(S.expand({2, 2, 2})),
                      Catch::StartsWith("linalg.lu_factor: (Batch element 0)"));
  REQUIRE_THROWS_WITH(linalg_lu_factor(S, /*pivot=*/false),
                      Catch::Contains("linalg.lu_factor: LU without pivoting is not implemented"));
}

TEST_CASE("linalg_lu_solve and lu_solve solve A X = B in every form", "[linalg_solve]") {
  const Tensor A = well_conditioned({2, 4, 4});
  auto [LU, piv] = linalg_lu_factor(A);
  for (bool left : {true, false})
    for (bool adjoint : {false, true}) {
      INFO("left " << left << " adjoint " << adjoint);
      const Tensor B = left ? randn({3, 1, 4, 2}, kDouble) : randn({3, 1, 2, 4}, kDouble);
      const Tensor X = linalg_lu_solve(LU, piv, B, left, adjoint);
      const Tensor op = adjoint ? mT(A) : A;
      require_close(left ? matmul(op, X) : matmul(X, op), B.expand(X.sizes()), 1e-12);
    }
  const Tensor b = randn({2, 4, 3}, kDouble);
  require_close(matmul(A, lu_solve(b, LU, piv)), b, 1e-12);
  require_close(matmul(A, b.lu_solve(LU, piv)), b, 1e-12);
  require_close(matmul(A, linalg::lu_solve(LU, piv, b)), b, 1e-12);
}

TEST_CASE("lu_unpack rejects pivots out of range", "[linalg_solve]") {
  REQUIRE_THROWS_WITH(lu_unpack(eye(2, kDouble), tensor({3, 2}, kLong)),
                      Catch::Contains("lu_unpack: pivots[0, 0] = 3 is out of range (expected 1 to 2)"));
}

TEST_CASE("linalg_lu_factor, linalg_lu and lu_solve gradients pass gradcheck and gradgradcheck",
          "[linalg_solve]") {
  const Tensor A = randn({2, 3, 3}, kDouble).requires_grad_();
  auto factor_fn = [](const tensor_list& in) { return std::get<0>(linalg_lu_factor(in[0])); };
  REQUIRE_GRADCHECK(gradcheck(factor_fn, {A}));
  REQUIRE_GRADCHECK(gradgradcheck(factor_fn, {A}));
  auto lu_fn = [](const tensor_list& in) {
    auto [P, L, U] = linalg_lu(in[0]);
    return L * 2.0 + U;
  };
  REQUIRE_GRADCHECK(gradcheck(lu_fn, {A}));
  const Tensor B = randn({2, 3, 2}, kDouble).requires_grad_();
  for (bool adjoint : {false, true}) {
    auto solve_fn = [adjoint](const tensor_list& in) {
      auto [LU, piv] = linalg_lu_factor(in[0]);
      return linalg_lu_solve(LU, piv, in[1], /*left=*/true, adjoint);
    };
    REQUIRE_GRADCHECK(gradcheck(solve_fn, {A, B}));
    REQUIRE_GRADCHECK(gradgradcheck(solve_fn, {A, B}));
  }
}

TEST_CASE("linalg_lu_factor refuses to record a gradient for a rectangular matrix",
          "[linalg_solve]") {
  REQUIRE_THROWS_WITH(linalg_lu_factor(randn({3, 2}, kDouble).requires_grad_()),
                      Catch::Contains("linalg.lu_factor: the derivative is implemented for square matrices only"));
}

// --- the _ex forms ---

TEST_CASE("linalg_inv_ex reports singular matrices in info instead of raising", "[linalg_solve]") {
  Tensor A = well_conditioned({3, 3, 3});
  A.select(0, 1).select(0, 2).zero_();  // element 1: U[2, 2] (1-based 3) is zero
  auto [inv, info] = linalg_inv_ex(A);
  REQUIRE(info.sizes() == IntArrayRef{3});
  REQUIRE(info.scalar_type() == kLong);
  require_values(info, {0, 3, 0});
  require_close(matmul(A.select(0, 2), inv.select(0, 2)), eye(3, kDouble), 1e-12);
  auto [inv2, info2] = linalg::inv_ex(A.select(0, 0));
  REQUIRE(info2.dim() == 0);
  require_values(info2, {0});
  REQUIRE_THROWS_WITH(linalg_inv_ex(A, /*check_errors=*/true),
                      Catch::Contains("linalg.inv_ex: (Batch element 1)"));
}

TEST_CASE("linalg_cholesky_ex reports the failing minor in info", "[linalg_solve]") {
  Tensor A = spd({3, 3, 3});
  A.select(0, 2).select(0, 1).select(0, 1).fill_(-1.0);
  auto [L, info] = linalg_cholesky_ex(A);
  require_values(info, {0, 0, 2});
  require_close(matmul(L.select(0, 0), mT(L.select(0, 0))), A.select(0, 0), 1e-12);
  auto [U, info_u] = linalg::cholesky_ex(A.select(0, 1), /*upper=*/true);
  require_values(info_u, {0});
  require_close(matmul(mT(U), U), A.select(0, 1), 1e-12);
  REQUIRE_THROWS_WITH(linalg_cholesky_ex(A, false, /*check_errors=*/true),
                      Catch::Contains("linalg.cholesky_ex: (Batch element 2)"));
}

TEST_CASE("linalg_lu_factor_ex factors a singular matrix and reports it in info", "[linalg_solve]") {
  const Tensor S = tensor({{1.0, 2.0}, {2.0, 4.0}}, kDouble);
  auto [LU, piv, info] = linalg_lu_factor_ex(S);
  require_values(info, {2});
  auto [P, L, U] = lu_unpack(LU, piv);
  require_close(matmul(P, matmul(L, U)), S, 1e-15);
  auto [LU2, piv2, info2] = linalg::lu_factor_ex(S.expand({2, 2, 2}));
  require_values(info2, {2, 2});
  REQUIRE_THROWS_WITH(linalg_lu_factor_ex(S, true, /*check_errors=*/true),
                      Catch::StartsWith("linalg.lu_factor_ex: U[2, 2] is zero"));
}
