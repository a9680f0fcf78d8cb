// The host half of the fused CUDA optimizer updates, on the CPU: the launch
// grid (kernels/cuda/optim.h) and the shared per-element functors
// (kernels/common/optim_functors.h) against values worked out by hand.
#include <catch2/catch.hpp>

#include <cmath>

#include <ember/kernels/common/optim_functors.h>
#include <ember/kernels/common/cuda_plans/optim_grid.h>

using namespace ember;

TEST_CASE("cuda optim plan: the grid covers every element and caps at 65535 blocks",
          "[cuda_optim]") {
  CHECK(cuda::optim_grid(0).blocks == 0);  // no launch for an empty parameter
  CHECK(cuda::optim_grid(1).blocks == 1);
  CHECK(cuda::optim_grid(1).threads == 256);
  CHECK(cuda::optim_grid(256).blocks == 1);
  CHECK(cuda::optim_grid(257).blocks == 2);
  CHECK(cuda::optim_grid(65535LL * 256).blocks == 65535);
  CHECK(cuda::optim_grid(65535LL * 256 + 1).blocks == 65535);  // the grid-stride loop does the rest
}

TEST_CASE("cuda optim plan: the SGD functor applies momentum, dampening, nesterov and decay",
          "[cuda_optim]") {
  const SgdHyper h{/*lr=*/0.1, /*momentum=*/0.9, /*dampening=*/0.5, /*weight_decay=*/0.01, false};
  double p = 2, g = 1, buf = 4;
  // g' = 1 + 0.01 * 2 = 1.02; buf = 0.9 * 4 + 0.5 * 1.02 = 4.11; p = 2 - 0.1 * 4.11
  functors::make_sgd_update<double, true, false, false>(h)(&p, &g, &buf, 0);
  CHECK(buf == Approx(4.11).epsilon(1e-15));
  CHECK(p == Approx(1.589).epsilon(1e-15));
  double pf = 2, bf = 0;
  // first step: buf = g' = 1.02; nesterov: d = 1.02 + 0.9 * 1.02 = 1.938
  functors::make_sgd_update<double, true, true, true>(h)(&pf, &g, &bf, 0);
  CHECK(bf == Approx(1.02).epsilon(1e-15));
  CHECK(pf == Approx(2 - 0.1938).epsilon(1e-15));
  double pp = 2;
  double* const no_buffer = nullptr;  // unused without momentum
  functors::make_sgd_update<double, false, false, false>(h)(&pp, &g, no_buffer, 0);
  CHECK(pp == Approx(2 - 0.102).epsilon(1e-15));
}

TEST_CASE("cuda optim plan: the Adam functor's first step moves by lr against the gradient's "
          "sign", "[cuda_optim]") {
  // Step 1 from zero state: m = 0.1 g, v = 0.001 g^2, so the bias-corrected
  // update is lr * g / (|g| + eps).
  const AdamHyper adam{/*lr=*/0.01, 0.9, 0.999, /*eps=*/1e-8, /*wd=*/0, false, false, /*step=*/1};
  double p = 1, g = -3, m = 0, v = 0;
  double* const no_vmax = nullptr;  // unused without amsgrad
  functors::make_adam_update<double, false, false>(adam)(&p, &g, &m, &v, no_vmax, 0);
  CHECK(m == Approx(-0.3).epsilon(1e-14));
  CHECK(v == Approx(0.009).epsilon(1e-14));
  CHECK(p == Approx(1 + 0.01 * 3 / (3 + 1e-8)).epsilon(1e-14));

  // AdamW decays p by 1 - lr * wd before the step; amsgrad keeps the larger v.
  const AdamHyper adamw{0.01, 0.9, 0.999, 1e-8, /*wd=*/0.5, true, true, /*step=*/1};
  double q = 1, vmax = 1;
  m = 0;
  v = 0;
  functors::make_adam_update<double, true, true>(adamw)(&q, &g, &m, &v, &vmax, 0);
  CHECK(vmax == 1);  // max(1, 0.009)
  // denom = sqrt(1) / sqrt(0.001) + 1e-8; step = 0.01 / 0.1 * m
  const double want = 1 * (1 - 0.005) - 0.1 * (-0.3) / (1 / std::sqrt(0.001) + 1e-8);
  CHECK(q == Approx(want).epsilon(1e-14));
}

// The rules a gated CUDA step builds in its kernel from the device's step
// count (Note [Steps skipped on the device]) are the host's updates for that
// count: applied to the same state they give bit-identical results.
TEST_CASE("cuda optim plan: a gated step's rule for step count n is the host's update at step n",
          "[cuda_optim]") {
  const AdamHyper adam{0.01, 0.9, 0.999, 1e-8, 0.1, /*amsgrad=*/true, /*decoupled=*/false,
                       /*step=*/0};
  for (int64_t n : {1, 2, 7, 1000}) {
    AdamHyper at = adam;
    at.step = n;
    double p1 = 1.5, g = -0.25, m1 = 0.1, v1 = 0.02, vmax1 = 0.03;
    double p2 = p1, m2 = m1, v2 = v1, vmax2 = vmax1;
    functors::make_adam_update<double, true, false>(at)(&p1, &g, &m1, &v1, &vmax1, 0);
    functors::AdamRule<double, true, false>{adam}(n)(&p2, &g, &m2, &v2, &vmax2, 0);
    CHECK(p1 == p2);
    CHECK(m1 == m2);
    CHECK(v1 == v2);
    CHECK(vmax1 == vmax2);
    // Different counts give different steps (the rule does read the count).
    double p3 = 1.5, m3 = 0.1, v3 = 0.02, vmax3 = 0.03;
    functors::AdamRule<double, true, false>{adam}(n + 1)(&p3, &g, &m3, &v3, &vmax3, 0);
    CHECK(p3 != p2);
  }

  // Adagrad: lr / (1 + (n - 1) * lr_decay).
  const AdagradHyper adagrad{0.1, /*lr_decay=*/0.5, 0, 1e-10, /*step=*/0};
  double p = 1, g = 2, sum = 0;
  functors::AdagradRule<double>{adagrad}(3)(&p, &g, &sum, 0);
  CHECK(sum == 4);
  CHECK(p == Approx(1 - 0.1 / 2 * 2 / (2 + 1e-10)).epsilon(1e-15));

  // SGD with momentum: the count of the buffer's steps reaching 1 is its
  // first step (buf = g'); any other count (0: no count kept) is a later one.
  const SgdHyper sgd{0.1, 0.9, /*dampening=*/0.5, 0, false};
  double pf = 2, gf = 1, bf = 4;
  functors::SgdMomentumRule<double, false>{sgd}(1)(&pf, &gf, &bf, 0);
  CHECK(bf == 1);
  CHECK(pf == Approx(1.9).epsilon(1e-15));
  for (int64_t n : {0, 2, 5}) {
    double pl = 2, bl = 4;
    functors::SgdMomentumRule<double, false>{sgd}(n)(&pl, &gf, &bl, 0);
    CHECK(bl == Approx(0.9 * 4 + 0.5 * 1).epsilon(1e-15));
  }
}
