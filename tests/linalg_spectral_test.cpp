// linalg_eigh/eigvalsh, linalg_svd/svdvals/svd, linalg_qr/qr, and pinv,
// matrix_rank, matrix_power, cond (core/ops/linalg_spectral*.cpp): the
// defining identities (A V = V diag(L), A = U diag(S) Vh, A = Q R,
// orthonormality, order, triangularity), matrices with known spectra,
// gradients by gradcheck on sign-invariant functions, errors by message.
#include "test_helpers.h"

#include <cmath>
#include <vector>

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using ember_test::require_values;
using ember_test::values;

namespace {

Tensor mT(const Tensor& t) { return t.transpose(-2, -1); }

// max |a - b| over all elements.
double max_diff(const Tensor& a, const Tensor& b) {
  const std::vector<double> x = values(a), y = values(b.expand(a.sizes()));
  double d = 0;
  for (size_t i = 0; i < x.size(); ++i) d = std::max(d, std::abs(x[i] - y[i]));
  return d;
}

// The identity in the last two dims of m's shape (columns of m orthonormal
// when mT(m) m is this).
Tensor eye_like_cols(const Tensor& m) { return eye(m.size(-1), m.options()); }

Tensor symmetric(IntArrayRef shape, ScalarType dtype) {
  const Tensor x = randn(shape, dtype);
  return x + mT(x);
}

Tensor rotation(double angle) {
  return tensor({{std::cos(angle), -std::sin(angle)}, {std::sin(angle), std::cos(angle)}}, kDouble);
}

// Every element of a (batch of) matrices below the main diagonal is 0.
bool upper_triangular(const Tensor& R) { return max_diff(tril(R, -1), zeros({1}, R.options())) == 0; }

// Each column's entry of largest magnitude is positive (Note [Decomposition signs]).
bool columns_positive(const Tensor& m) {
  const Tensor flat = m.reshape({-1, m.size(-2), m.size(-1)});
  for (int64_t b = 0; b < flat.size(0); ++b)
    for (int64_t j = 0; j < flat.size(2); ++j) {
      const std::vector<double> col = values(flat[b].select(1, j));
      double best = 0;
      for (double x : col)
        if (std::abs(x) > std::abs(best)) best = x;
      if (best < 0) return false;
    }
  return true;
}

tensor_list sym_input(const tensor_list& in) { return {in[0] + mT(in[0])}; }

}  // namespace

// ---- eigh ----

TEST_CASE("linalg_eigh of [[2, 1], [1, 2]] gives 1, 3 and the fixed-sign eigenvectors",
          "[linalg_spectral]") {
  const Tensor A = tensor({{2.0, 1.0}, {1.0, 2.0}}, kDouble);
  const auto [L, V] = linalg_eigh(A);
  require_values(L, {1, 3}, 1e-14);
  const double h = 1 / std::sqrt(2.0);
  // Columns (1, -1)/sqrt2 and (1, 1)/sqrt2: the first of equal-magnitude entries positive.
  require_values(V, {h, h, -h, h}, 1e-14);
  require_values(linalg_eigvalsh(A), {1, 3}, 1e-14);
}

TEST_CASE("linalg_eigh satisfies A V = V diag(L), V^T V = I, ascending L, over a batch",
          "[linalg_spectral]") {
  manual_seed(3);
  for (ScalarType t : {kDouble, kFloat}) {
    const double tol = t == kDouble ? 1e-12 : 2e-5;
    const Tensor A = symmetric({2, 3, 5, 5}, t);
    const auto [L, V] = linalg_eigh(A);
    REQUIRE(L.sizes() == IntArrayRef{2, 3, 5});
    REQUIRE(V.sizes() == IntArrayRef{2, 3, 5, 5});
    REQUIRE(L.scalar_type() == t);
    REQUIRE(max_diff(matmul(A, V), V * L.unsqueeze(-2)) < tol * 10);
    REQUIRE(max_diff(matmul(mT(V), V), eye(5, t)) < tol);
    const Tensor steps = L.narrow(-1, 1, 4) - L.narrow(-1, 0, 4);
    REQUIRE(values(steps.min())[0] >= 0);
    REQUIRE(columns_positive(V));
  }
}

TEST_CASE("linalg_eigh reads only the triangle UPLO names", "[linalg_spectral]") {
  manual_seed(4);
  const Tensor S = symmetric({4, 4}, kDouble);
  const Tensor junk = randn({4, 4}, kDouble);
  const Tensor lower_only = tril(S) + triu(junk, 1), upper_only = triu(S) + tril(junk, -1);
  require_values(linalg_eigvalsh(lower_only), values(linalg_eigvalsh(S)), 1e-12);
  require_values(linalg_eigvalsh(upper_only, "U"), values(linalg_eigvalsh(S)), 1e-12);
  require_values(std::get<1>(linalg::eigh(upper_only, "U")), values(std::get<1>(linalg_eigh(S))),
                 1e-12);
}

TEST_CASE("linalg_eigh gradients pass gradcheck and gradgradcheck on sign-invariant functions",
          "[linalg_spectral]") {
  manual_seed(5);
  const Tensor X = randn({2, 3, 3}, kDouble).requires_grad_();
  // Eigenvalues, and V diag(w) V^T and V o V, which do not change with the signs of V.
  auto fn = [](const tensor_list& in) {
    const auto [L, V] = linalg_eigh(sym_input(in)[0]);
    const Tensor w = tensor({1.0, -2.0, 0.5}, kDouble);
    return cat({L.flatten(), matmul(V * w, mT(V)).flatten(), (V * V).flatten()});
  };
  REQUIRE_GRADCHECK(gradcheck(fn, {X}));
  REQUIRE_GRADCHECK(gradgradcheck(fn, {X}));
  auto values_only = [](const tensor_list& in) { return linalg_eigvalsh(sym_input(in)[0]); };
  REQUIRE_GRADCHECK(gradcheck(values_only, {X}));
  REQUIRE_GRADCHECK(gradgradcheck(values_only, {X}));
}

TEST_CASE("linalg_eigh rejects non-square, integer, 1-d, NaN input and a bad UPLO",
          "[linalg_spectral]") {
  REQUIRE_THROWS_WITH(linalg_eigh(zeros({2, 3})),
                      Catch::Contains("linalg.eigh: expected square matrices, got shape [2, 3]"));
  REQUIRE_THROWS_WITH(linalg_eigvalsh(zeros({2, 2}, kLong)),
                      Catch::Contains("linalg.eigvalsh") && Catch::Contains("int64"));
  REQUIRE_THROWS_WITH(linalg_eigh(zeros({3})), Catch::Contains("linalg.eigh") && Catch::Contains("[3]"));
  REQUIRE_THROWS_WITH(linalg_eigh(zeros({2, 2}), "X"),
                      Catch::Contains("linalg.eigh: UPLO must be \"L\" or \"U\", got \"X\""));
  REQUIRE_THROWS_WITH(linalg_eigh(full({2, 2}, NAN)),
                      Catch::Contains("linalg.eigh") && Catch::Contains("NaN or infinity"));
}

// ---- svd ----

TEST_CASE("linalg_svd satisfies A = U diag(S) Vh with orthonormal factors, full and reduced",
          "[linalg_spectral]") {
  manual_seed(6);
  for (ScalarType t : {kDouble, kFloat}) {
    const double tol = t == kDouble ? 1e-12 : 2e-5;
    for (const std::vector<int64_t>& shape : {std::vector<int64_t>{2, 5, 3}, {2, 3, 5}, {4, 4}}) {
      const Tensor A = randn(shape, t);
      const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
      for (bool full : {true, false}) {
        INFO("shape " << A.sizes() << " full " << full << " dtype " << t);
        const auto [U, S, Vh] = linalg_svd(A, full);
        REQUIRE(U.size(-1) == (full ? m : k));
        REQUIRE(Vh.size(-2) == (full ? n : k));
        REQUIRE(S.size(-1) == k);
        const Tensor Uk = U.narrow(-1, 0, k), Vhk = Vh.narrow(-2, 0, k);
        REQUIRE(max_diff(matmul(Uk * S.unsqueeze(-2), Vhk), A) < tol * 10);
        REQUIRE(max_diff(matmul(mT(U), U), eye_like_cols(U)) < tol);
        REQUIRE(max_diff(matmul(Vh, mT(Vh)), eye(Vh.size(-2), t)) < tol);
        if (k > 1) REQUIRE(values((S.narrow(-1, 0, k - 1) - S.narrow(-1, 1, k - 1)).min())[0] >= 0);
        REQUIRE(values(S.min())[0] >= 0);
        REQUIRE(columns_positive(U));
        require_values(linalg_svdvals(A), values(S), tol);
      }
    }
  }
}

TEST_CASE("linalg_svd of known matrices: diag(3, -2, 1) and R(0.4) diag(5, 2) R(-0.9)^T",
          "[linalg_spectral]") {
  require_values(linalg_svdvals(diag(tensor({3.0, -2.0, 1.0}, kDouble))), {3, 2, 1}, 1e-14);
  const Tensor A = matmul(matmul(rotation(0.4), diag(tensor({5.0, 2.0}, kDouble))), rotation(-0.9).t());
  const auto [U, S, Vh] = linalg::svd(A);
  require_values(S, {5, 2}, 1e-13);
  // U is R(0.4) up to column signs; the sign rule makes column 0 (cos, sin) positive.
  require_values(U.abs(), values(rotation(0.4).abs()), 1e-13);
  REQUIRE(values(U)[0] > 0);
}

TEST_CASE("svd returns V = Vh^T, and zero U and V without compute_uv", "[linalg_spectral]") {
  manual_seed(7);
  const Tensor A = randn({4, 3}, kDouble);
  const auto [U, S, V] = svd(A);
  const auto [U2, S2, Vh] = linalg_svd(A, false);
  require_values(U, values(U2));
  require_values(V, values(mT(Vh)));
  const auto [Uf, Sf, Vf] = svd(A, /*some=*/false);
  REQUIRE(Uf.sizes() == IntArrayRef{4, 4});
  const auto [Z1, S3, Z2] = svd(A, true, /*compute_uv=*/false);
  REQUIRE(Z1.sizes() == IntArrayRef{4, 4});
  REQUIRE(Z2.sizes() == IntArrayRef{3, 3});
  REQUIRE(max_diff(Z1, zeros({1}, kDouble)) == 0);
  require_values(S3, values(S));
}

TEST_CASE("linalg_svd gradients pass gradcheck and gradgradcheck on sign-invariant functions",
          "[linalg_spectral]") {
  manual_seed(8);
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{4, 3}, {2, 3, 4}, {3, 3}}) {
    const Tensor A = randn(shape, kDouble).requires_grad_();
    INFO("shape " << A.sizes());
    // S, U diag(S) Vh, and U o U, Vh o Vh (unchanged by a sign flip of a pair).
    auto fn = [](const tensor_list& in) {
      const auto [U, S, Vh] = linalg_svd(in[0], false);
      return cat({S.flatten(), matmul(U * S.unsqueeze(-2), Vh).flatten(), (U * U).flatten(),
                  (Vh * Vh).flatten()});
    };
    REQUIRE_GRADCHECK(gradcheck(fn, {A}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {A}));
    auto full = [](const tensor_list& in) {
      const auto [U, S, Vh] = linalg_svd(in[0], true);
      const int64_t k = S.size(-1);
      return cat({(U.narrow(-1, 0, k) * S.unsqueeze(-2)).flatten(), (Vh.narrow(-2, 0, k) * Vh.narrow(-2, 0, k)).flatten()});
    };
    REQUIRE_GRADCHECK(gradcheck(full, {A}));
    auto vals = [](const tensor_list& in) { return linalg_svdvals(in[0]); };
    REQUIRE_GRADCHECK(gradcheck(vals, {A}));
    REQUIRE_GRADCHECK(gradgradcheck(vals, {A}));
  }
}

TEST_CASE("linalg_svd rejects 1-d, integer and infinite input", "[linalg_spectral]") {
  REQUIRE_THROWS_WITH(linalg_svd(zeros({4})),
                      Catch::Contains("linalg.svd: expected a matrix or a batch of matrices, got shape [4]"));
  REQUIRE_THROWS_WITH(linalg_svdvals(zeros({2, 2}, kLong)),
                      Catch::Contains("linalg.svdvals: expected a float32 or float64 tensor, got int64"));
  REQUIRE_THROWS_WITH(linalg_svd(full({2, 3}, INFINITY)),
                      Catch::Contains("linalg.svd: the input of shape [2, 3] holds NaN or infinity"));
}

// ---- qr ----

TEST_CASE("linalg_qr satisfies A = Q R, Q^T Q = I, R upper with diag >= 0, in every mode",
          "[linalg_spectral]") {
  manual_seed(9);
  for (ScalarType t : {kDouble, kFloat}) {
    const double tol = t == kDouble ? 1e-12 : 2e-5;
    for (const std::vector<int64_t>& shape : {std::vector<int64_t>{2, 5, 3}, {3, 5}, {4, 4}}) {
      const Tensor A = randn(shape, t);
      const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
      for (const char* mode : {"reduced", "complete"}) {
        INFO("shape " << A.sizes() << " mode " << mode << " dtype " << t);
        const auto [Q, R] = linalg_qr(A, mode);
        const bool complete = std::string(mode) == "complete";
        REQUIRE(Q.size(-1) == (complete ? m : k));
        REQUIRE(R.size(-2) == (complete ? m : k));
        REQUIRE(max_diff(matmul(Q, R), A) < tol * 10);
        REQUIRE(max_diff(matmul(mT(Q), Q), eye_like_cols(Q)) < tol);
        REQUIRE(upper_triangular(R));
        REQUIRE(values(diagonal(R, 0, -2, -1).min())[0] >= 0);
      }
      const auto [Qr, R] = linalg_qr(A, "r");
      REQUIRE(Qr.numel() == 0);
      require_values(R, values(std::get<1>(linalg_qr(A))));
    }
  }
}

TEST_CASE("qr of [[3, 1], [4, 2]] is the Gram-Schmidt factorization", "[linalg_spectral]") {
  const Tensor A = tensor({{3.0, 1.0}, {4.0, 2.0}}, kDouble);
  const auto [Q, R] = qr(A);
  // Columns q0 = (3, 4)/5, q1 = (-4, 3)/5 (second column minus its q0 part, 11/25 * (3, 4)).
  require_values(Q, {0.6, -0.8, 0.8, 0.6}, 1e-14);
  require_values(R, {5, 2.2, 0, 0.4}, 1e-14);
  REQUIRE(std::get<0>(qr(A, /*some=*/false)).sizes() == IntArrayRef{2, 2});
}

TEST_CASE("linalg_qr gradients pass gradcheck and gradgradcheck for m >= n", "[linalg_spectral]") {
  manual_seed(10);
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{4, 3}, {2, 3, 3}}) {
    const Tensor A = randn(shape, kDouble).requires_grad_();
    INFO("shape " << A.sizes());
    auto fn = [](const tensor_list& in) {
      const auto [Q, R] = linalg_qr(in[0]);
      return cat({Q.flatten(), R.flatten()});
    };
    REQUIRE_GRADCHECK(gradcheck(fn, {A}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {A}));
    auto r_only = [](const tensor_list& in) { return std::get<1>(linalg::qr(in[0])); };
    REQUIRE_GRADCHECK(gradcheck(r_only, {A}));
  }
}

TEST_CASE("linalg_qr refuses a bad mode, and its derivative for mode r and m < n",
          "[linalg_spectral]") {
  REQUIRE_THROWS_WITH(linalg_qr(zeros({2, 2}), "full"),
                      Catch::Contains("linalg.qr: mode must be \"reduced\", \"complete\" or \"r\", got \"full\""));
  const Tensor wide = randn({2, 3}, kDouble).requires_grad_();
  REQUIRE_THROWS_WITH(std::get<1>(linalg_qr(wide)).sum().backward(),
                      Catch::Contains("linalg.qr: the derivative is only implemented for m >= n"));
  const Tensor tall = randn({3, 2}, kDouble).requires_grad_();
  REQUIRE_THROWS_WITH(std::get<1>(linalg_qr(tall, "r")).sum().backward(),
                      Catch::Contains("linalg.qr: the derivative needs Q"));
}

// ---- pinv, matrix_rank, matrix_power, cond ----

TEST_CASE("linalg_pinv inverts the kept singular values and meets the Penrose conditions",
          "[linalg_spectral]") {
  require_values(linalg_pinv(diag(tensor({2.0, 0.0, -4.0}, kDouble))),
                 {0.5, 0, 0, 0, 0, 0, 0, 0, -0.25}, 1e-14);
  manual_seed(12);
  const Tensor A = randn({2, 5, 3}, kDouble);
  const Tensor P = linalg_pinv(A);
  REQUIRE(P.sizes() == IntArrayRef{2, 3, 5});
  REQUIRE(max_diff(matmul(matmul(A, P), A), A) < 1e-12);
  REQUIRE(max_diff(matmul(matmul(P, A), P), P) < 1e-12);
  REQUIRE(max_diff(matmul(P, A), eye(3, kDouble)) < 1e-12);  // full column rank
  // Hermitian: from the eigenvalues, dropping the zero one.
  const Tensor S = tensor({{2.0, 0.0}, {0.0, 0.0}}, kDouble);
  require_values(linalg_pinv(S, std::nullopt, std::nullopt, /*hermitian=*/true), {0.5, 0, 0, 0}, 1e-14);
  // rcond (relative): 1 / 0.25 of the largest keeps only 4.
  require_values(pinverse(diag(tensor({4.0, 0.5}, kDouble)), 0.25), {0.25, 0, 0, 0}, 1e-14);
  require_values(linalg::pinv(diag(tensor({4.0, 0.5}, kDouble)), std::optional<double>(0.6)),
                 {0.25, 0, 0, 0}, 1e-14);  // atol alone
}

TEST_CASE("linalg_pinv gradients pass gradcheck (full rank, distinct singular values)",
          "[linalg_spectral]") {
  manual_seed(13);
  const Tensor A = randn({4, 3}, kDouble).requires_grad_();
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return linalg_pinv(in[0]); }, {A}));
  const Tensor X = randn({3, 3}, kDouble).requires_grad_();
  REQUIRE_GRADCHECK(gradcheck(
      [](const tensor_list& in) { return linalg_pinv(sym_input(in)[0], std::nullopt, std::nullopt, true); },
      {X}));
}

TEST_CASE("linalg_matrix_rank counts singular values above the tolerance", "[linalg_spectral]") {
  const Tensor D = diag(tensor({1.0, 1e-20, 3.0}, kDouble));
  REQUIRE(linalg_matrix_rank(D).item<int64_t>() == 2);
  REQUIRE(linalg_matrix_rank(D, 2.0).item<int64_t>() == 1);  // tol = atol
  REQUIRE(linalg_matrix_rank(D, std::nullopt, 0.5).item<int64_t>() == 1);  // 0.5 * 3
  const Tensor v = tensor({{1.0}, {2.0}, {-1.0}}, kDouble);
  const Tensor batch = stack({matmul(v, mT(v)), eye(3, kDouble)});
  const Tensor r = linalg::matrix_rank(batch, std::nullopt, std::nullopt, /*hermitian=*/true);
  REQUIRE(r.scalar_type() == kLong);
  require_values(r, {1, 3});
}

TEST_CASE("linalg_matrix_power multiplies A by itself n times; n = 0 is the identity",
          "[linalg_spectral]") {
  manual_seed(14);
  const Tensor A = randn({2, 3, 3}, kDouble);
  Tensor want = eye(3, kDouble).expand({2, 3, 3});
  for (int64_t n = 0; n <= 6; ++n) {
    INFO("n " << n);
    REQUIRE(max_diff(linalg_matrix_power(A, n), want) < 1e-12);
    want = matmul(want, A);
  }
  const Tensor X = randn({3, 3}, kDouble).requires_grad_();
  auto fn = [](const tensor_list& in) { return linalg::matrix_power(in[0], 5); };
  REQUIRE_GRADCHECK(gradcheck(fn, {X}));
  REQUIRE_GRADCHECK(gradgradcheck(fn, {X}));
  // A^-n = (A^-1)^n: A^-3 A^3 = I.
  REQUIRE(max_diff(matmul(linalg_matrix_power(A, -3), linalg_matrix_power(A, 3)),
                   eye(3, kDouble).expand({2, 3, 3})) < 1e-10);
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return linalg::matrix_power(in[0], -2); },
                              {X}));
  REQUIRE_THROWS_WITH(linalg_matrix_power(zeros({2, 3}), 2),
                      Catch::Contains("linalg.matrix_power: expected square matrices, got shape [2, 3]"));
}

TEST_CASE("linalg_cond is s_max / s_min (p = -2: s_min / s_max), else ||A|| ||A^-1||",
          "[linalg_spectral]") {
  const Tensor A = matmul(matmul(rotation(0.2), diag(tensor({4.0, 0.5}, kDouble))), rotation(1.0));
  require_values(linalg_cond(A), {8}, 1e-13);
  require_values(linalg::cond(A, -2), {0.125}, 1e-13);
  const Tensor X = randn({3, 3}, kDouble).requires_grad_();
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return linalg_cond(in[0]); }, {X}));

  // B = [[2, 1], [0, 4]], B^-1 = [[1/2, -1/8], [0, 1/4]]: column sums 2, 5 and
  // 1/2, 3/8; row sums 3, 4 and 5/8, 1/4; squares 21 and 21/64; singular values
  // of B: s1 s2 = 8, s1^2 + s2^2 = 21, so s1 + s2 = sqrt(37).
  const Tensor B = tensor({{2.0, 1.0}, {0.0, 4.0}}, kDouble);
  require_values(linalg_cond(B, 1), {5 * 0.5}, 1e-14);
  require_values(linalg_cond(B, -1), {2 * 0.375}, 1e-14);
  require_values(linalg_cond(B, INFINITY), {4 * 0.625}, 1e-14);
  require_values(linalg_cond(B, -INFINITY), {3 * 0.25}, 1e-14);
  require_values(linalg_cond(B, "fro"), {std::sqrt(21.0) * std::sqrt(21.0 / 64)}, 1e-14);
  require_values(linalg::cond(B, "nuc"), {std::sqrt(37.0) * std::sqrt(37.0) / 8}, 1e-12);
  require_values(linalg_cond(stack({B, zeros({2, 2}, kDouble)}), 1), {2.5, INFINITY});
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return linalg_cond(in[0], "fro"); }, {X}));

  REQUIRE_THROWS_WITH(linalg_cond(A, 3), Catch::Contains("linalg.cond: p must be one of"));
  REQUIRE_THROWS_WITH(linalg_cond(A, "max"), Catch::Contains("linalg.cond: p must be one of"));
  REQUIRE_THROWS_WITH(linalg_cond(zeros({2, 3}, kDouble), 1),
                      Catch::Contains("linalg.cond: expected square matrices"));
}

TEST_CASE("decompositions of empty matrices and empty batches have the right shapes",
          "[linalg_spectral]") {
  const auto [U, S, Vh] = linalg_svd(zeros({2, 0, 3}, kDouble));
  REQUIRE(U.sizes() == IntArrayRef{2, 0, 0});
  REQUIRE(S.sizes() == IntArrayRef{2, 0});
  REQUIRE(Vh.sizes() == IntArrayRef{2, 3, 3});
  REQUIRE(max_diff(Vh, eye(3, kDouble)) == 0);  // an orthonormal basis
  REQUIRE(std::get<2>(linalg_svd(zeros({0, 3}, kDouble), false)).sizes() == IntArrayRef{0, 3});
  const auto [L, V] = linalg_eigh(zeros({3, 0, 0}, kDouble));
  REQUIRE(L.sizes() == IntArrayRef{3, 0});
  REQUIRE(V.sizes() == IntArrayRef{3, 0, 0});
  REQUIRE(linalg_eigvalsh(zeros({0, 2, 2})).sizes() == IntArrayRef{0, 2});
  const auto [Q, R] = linalg_qr(zeros({3, 0}, kDouble), "complete");
  REQUIRE(max_diff(Q, eye(3, kDouble)) == 0);
  REQUIRE(R.sizes() == IntArrayRef{3, 0});
  REQUIRE(linalg_pinv(zeros({0, 3}, kDouble)).sizes() == IntArrayRef{3, 0});
  require_values(linalg_matrix_rank(zeros({2, 0, 3}, kDouble)), {0, 0});
}

TEST_CASE("linalg_lstsq solves overdetermined, underdetermined and rank-deficient systems",
          "[linalg_spectral]") {
  // A^T A = 3 I and A^T b = (8, 1): x = (8/3, 1/3), residual (5/3, -5/3, 0, -5/3).
  const Tensor A = tensor({{1.0, 0.0}, {0.0, 1.0}, {1.0, 1.0}, {1.0, -1.0}}, kDouble);
  const auto [x, res, rank, sv] = linalg_lstsq(A, tensor({1.0, 2.0, 3.0, 4.0}, kDouble));
  require_values(x, {8.0 / 3, 1.0 / 3}, 1e-14);
  require_values(res, {25.0 / 3}, 1e-13);
  require_values(rank, {2});
  require_values(sv, {std::sqrt(3.0), std::sqrt(3.0)}, 1e-14);
  // One equation x0 + x1 = 2: the smallest solution (1, 1); no residuals.
  const auto [x2, res2, rank2, sv2] = linalg::lstsq(tensor({{1.0, 1.0}}, kDouble), tensor({2.0}, kDouble));
  require_values(x2, {1, 1}, 1e-14);
  REQUIRE(res2.numel() == 0);
  // Rank 1 with m > n: the smallest solution of x0 + x1 = 2 (the mean of b); no residuals.
  const Tensor ones3 = ones({3, 2}, kDouble);
  const auto [x3, res3, rank3, sv3] = linalg_lstsq(ones3, tensor({{1.0}, {2.0}, {3.0}}, kDouble));
  require_values(x3, {1, 1}, 1e-14);
  REQUIRE(res3.numel() == 0);
  require_values(rank3, {1});
}

TEST_CASE("linalg_lstsq over a batch meets the normal equations; gradients pass gradcheck",
          "[linalg_spectral]") {
  manual_seed(15);
  const Tensor A = randn({2, 5, 3}, kDouble), B = randn({2, 5, 4}, kDouble);
  const auto [X, res, rank, sv] = linalg_lstsq(A, B);
  REQUIRE(X.sizes() == IntArrayRef{2, 3, 4});
  REQUIRE(res.sizes() == IntArrayRef{2, 4});
  const Tensor r = matmul(A, X) - B;
  REQUIRE(max_diff(matmul(mT(A), r), zeros({1}, kDouble)) < 1e-12);
  require_values(res, values((r * r).sum({-2})), 1e-12);
  const Tensor a = randn({4, 2}, kDouble).requires_grad_(), b = randn({4, 2}, kDouble).requires_grad_();
  REQUIRE_GRADCHECK(gradcheck(
      [](const tensor_list& in) { return std::get<0>(linalg_lstsq(in[0], in[1])); }, {a, b}));
  REQUIRE_THROWS_WITH(linalg_lstsq(A, randn({2, 4, 4}, kDouble)),
                      Catch::Contains("linalg.lstsq: A and B must have the same number of rows"));
  REQUIRE_THROWS_WITH(linalg_lstsq(A, B, std::nullopt, "qr"),
                      Catch::Contains("linalg.lstsq: driver must be"));
}
