// The linalg solvers on CUDA (kernels/cuda/linalg_solve.cu: cuSOLVER
// getrf/getrs/potrf, cuBLAS trsm) against the CPU (Eigen): forward values,
// pivots and errors, batches with broadcasting, odd and edge sizes, and the
// gradients (composed of the same ops).
#include <ember/ember.h>
#include <ember/kernels/cuda/linalg_solve.h>
#include <ember/core/cuda/sync_count.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <functional>
#include <vector>

#include "cuda_test_helpers.h"

using namespace ember;
using namespace cuda_test;

namespace {

Tensor mT(const Tensor& x) { return x.transpose(-2, -1); }

Tensor well_conditioned(IntArrayRef shape, ScalarType t) {
  return (randn(shape, kDouble) + shape.back() * eye(shape.back(), kDouble)).to(t);
}

Tensor spd(IntArrayRef shape, ScalarType t) {
  const Tensor x = randn(shape, kDouble);
  return (matmul(x, mT(x)) + shape.back() * eye(shape.back(), kDouble)).to(t);
}

const std::vector<std::vector<int64_t>> kShapes = {{1, 1}, {3, 3}, {2, 5, 5}, {3, 1, 17, 17}, {2, 0, 0}, {0, 4, 4}, {70, 70}};

}  // namespace

TEST_CASE("cuda inv, solve, det, slogdet match the CPU", "[cuda][cuda_linalg_solve]") {
  manual_seed(91);
  for (ScalarType t : {kFloat, kDouble})
    for (const std::vector<int64_t>& shape : kShapes) {
      INFO(t << ", shape " << IntArrayRef(shape));
      const double tol = tolerance(t, 1e-3);
      const Tensor A = well_conditioned(shape, t), Ag = A.to(kGpu);
      check_same(linalg_inv(Ag), linalg_inv(A), tol);
      check_same(det(Ag), det(A), tol * 100);
      auto [s, l] = slogdet(A);
      auto [sg, lg] = slogdet(Ag);
      check_same(sg, s);
      check_same(lg, l, tol * 100);
      std::vector<int64_t> bshape = shape;
      bshape.back() = 3;
      const Tensor B = randn(bshape, t);
      check_same(linalg_solve(Ag, B.to(kGpu)), linalg_solve(A, B), tol);
      check_same(linalg_solve(Ag, mT(B).to(kGpu), /*left=*/false), linalg_solve(A, mT(B), false), tol);
    }
}

TEST_CASE("cuda lu_factor, lu_solve and linalg_lu match the CPU", "[cuda][cuda_linalg_solve]") {
  manual_seed(92);
  for (ScalarType t : {kFloat, kDouble})
    for (const std::vector<int64_t>& shape : kShapes) {
      INFO(t << ", shape " << IntArrayRef(shape));
      const double tol = tolerance(t, 1e-3);
      const Tensor A = randn(shape, t), Ag = A.to(kGpu);
      auto [lu, piv] = linalg_lu_factor(A);
      auto [lug, pivg] = linalg_lu_factor(Ag);
      check_same(pivg, piv);
      check_same(lug, lu, tol);
      const Tensor B = randn(shape, t);
      for (bool left : {true, false})
        for (bool adjoint : {false, true})
          check_same(linalg_lu_solve(lug, pivg, B.to(kGpu), left, adjoint),
                     linalg_lu_solve(lu, piv, B, left, adjoint), tol * 10);
      auto [P, L, U] = linalg_lu(A);
      auto [Pg, Lg, Ug] = linalg_lu(Ag);
      check_same(Pg, P);
      check_same(Lg, L, tol);
      check_same(Ug, U, tol);
    }
  // Rectangular.
  const Tensor R = randn({2, 7, 4}, kDouble);
  auto [lu, piv] = linalg_lu_factor(R);
  auto [lug, pivg] = linalg_lu_factor(R.to(kGpu));
  check_same(pivg, piv);
  check_same(lug, lu, 1e-12);
}

TEST_CASE("cuda cholesky, cholesky_solve, cholesky_inverse and triangular solves match the CPU",
          "[cuda][cuda_linalg_solve]") {
  manual_seed(93);
  for (ScalarType t : {kFloat, kDouble})
    for (const std::vector<int64_t>& shape : kShapes) {
      INFO(t << ", shape " << IntArrayRef(shape));
      const double tol = tolerance(t, 1e-3);
      const Tensor A = spd(shape, t), Ag = A.to(kGpu);
      for (bool upper : {false, true}) {
        const Tensor L = linalg_cholesky(A, upper), Lg = linalg_cholesky(Ag, upper);
        check_same(Lg, L, tol);
        const Tensor B = randn(shape, t);
        check_same(cholesky_solve(B.to(kGpu), Lg, upper), cholesky_solve(B, L, upper), tol);
        check_same(cholesky_inverse(Lg, upper), cholesky_inverse(L, upper), tol);
        for (bool left : {true, false})
          for (bool unit : {false, true})
            check_same(linalg_solve_triangular(Ag, B.to(kGpu), upper, left, unit),
                       linalg_solve_triangular(A, B, upper, left, unit), tol * 10);
      }
    }
}

TEST_CASE("cuda singular and indefinite input raise as on the CPU", "[cuda][cuda_linalg_solve]") {
  Tensor S = eye(3, kDouble).expand({2, 3, 3}).contiguous();
  S.select(0, 1).select(0, 2).zero_();
  REQUIRE_THROWS_WITH(linalg_inv(S.to(kGpu)), Catch::Contains("linalg.inv: (Batch element 1)"));
  REQUIRE_THROWS_WITH(linalg_cholesky(S.to(kGpu)),
                      Catch::Contains("linalg.cholesky: (Batch element 1)") && Catch::Contains("order 3"));
}

TEST_CASE("cuda linalg gradients match the CPU", "[cuda][cuda_linalg_solve]") {
  manual_seed(94);
  const Tensor A = well_conditioned({2, 4, 4}, kDouble), B = randn({2, 4, 3}, kDouble);
  auto grads = [&](const Tensor& a, const Tensor& b) {
    const Tensor al = a.detach().clone().requires_grad_(), bl = b.detach().clone().requires_grad_();
    auto [lu, piv] = linalg_lu_factor(al);
    const Tensor y = linalg_solve(al, bl).sum() + det(al) + linalg_inv(al).sum() +
                     linalg_cholesky(matmul(al, mT(al))).sum() + linalg_lu_solve(lu, piv, bl).sum() +
                     linalg_solve_triangular(al, bl, true).sum();
    y.backward();
    return std::vector<Tensor>{al.grad(), bl.grad()};
  };
  const auto cpu = grads(A, B), gpu = grads(A.to(kGpu), B.to(kGpu));
  check_same(gpu[0], cpu[0], 1e-9);
  check_same(gpu[1], cpu[1], 1e-9);
}

// getrf, getrs and potrf report through device infos that the host reads
// back (one wait each, whatever the batch); trsm reports nothing.
TEST_CASE("cuda linalg solvers count each host wait for their infos in sync_count",
          "[cuda][cuda_linalg_solve]") {
  manual_seed(97);
  const auto syncs_of = [](const std::function<void()>& call) {
    const uint64_t before = ember::cuda::sync_count();
    call();
    return ember::cuda::sync_count() - before;
  };
  for (ScalarType t : {kFloat, kDouble}) {
    INFO(t);
    const double tol = tolerance(t, 1e-3);
    const Tensor A = well_conditioned({3, 5, 5}, t), B = random_nonzero({3, 5, 2}, t);
    const Tensor lu = A.to(kGpu), b = B.to(kGpu);
    const Tensor pivots = empty({3, 5}, TensorOptions().dtype(kLong).device(kGpu));
    const Tensor info = ones({3}, kLong);
    CHECK(syncs_of([&] { ember::cuda::lu_factor(lu, pivots, info); }) == 1);
    CHECK(info.eq(0).all().item<bool>());
    CHECK(syncs_of([&] { ember::cuda::lu_solve(lu, pivots, b, false); }) == 1);
    check_same(b, linalg_solve(A, B), tol);

    const Tensor S = spd({3, 4, 4}, t), l = S.to(kGpu), cinfo = ones({3}, kLong);
    CHECK(syncs_of([&] { ember::cuda::cholesky(l, cinfo); }) == 1);
    CHECK(cinfo.eq(0).all().item<bool>());
    check_same(l, linalg_cholesky(S), tol);

    const Tensor L = linalg_cholesky(S), R = random_nonzero({3, 4, 3}, t), r = R.to(kGpu);
    CHECK(syncs_of([&] { ember::cuda::triangular_solve(L.to(kGpu), r, false, false); }) == 0);
    check_same(r, linalg_solve_triangular(L, R, false), tol);

    // The public ops add no wait of their own: solve = getrf + getrs.
    CHECK(syncs_of([&] { (void)linalg_solve(A.to(kGpu), B.to(kGpu)); }) == 2);
  }
}
