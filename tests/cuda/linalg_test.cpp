// einsum, the diagonal view and the linalg composites on CUDA tensors against
// the CPU: they compose existing kernels (bmm, mul, sum, copies through
// strided views), so these check the device handling, forward and gradient.
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "cuda_test_helpers.h"

using namespace ember;
using namespace cuda_test;

TEST_CASE("cuda einsum matches the CPU, forward and gradient", "[cuda][cuda_linalg]") {
  manual_seed(31);
  struct Case {
    std::string equation;
    std::vector<std::vector<int64_t>> shapes;
  };
  const std::vector<Case> cases = {
      {"ij,jk->ik", {{5, 7}, {7, 3}}},
      {"bij,bjk->bik", {{3, 4, 6}, {3, 6, 5}}},
      {"ii->i", {{6, 6}}},
      {"...ij,...jk", {{2, 1, 3, 4}, {5, 4, 2}}},
      {"ij,jk,kl->il", {{3, 4}, {4, 5}, {5, 2}}},
      {"i,j->ij", {{4}, {5}}},
  };
  for (const Case& c : cases) {
    for (ScalarType t : {kFloat, kDouble}) {
      INFO(c.equation << ", " << t);
      std::vector<Tensor> cpu, gpu;
      for (const auto& shape : c.shapes) {
        const Tensor base = random_nonzero(shape, t);
        cpu.push_back(cpu_leaf(base));
        gpu.push_back(gpu_leaf(base));
      }
      const Tensor yc = einsum(c.equation, cpu), yg = einsum(c.equation, gpu);
      check_same(yg, yc, tolerance(t, 1e-5));
      const Tensor w = random_nonzero(yc.sizes(), t);
      (yc * w).sum().backward();
      (yg * w.to(kGpu)).sum().backward();
      for (size_t i = 0; i < cpu.size(); ++i) check_same(gpu[i].grad(), cpu[i].grad(), tolerance(t, 1e-5));
    }
  }
}

TEST_CASE("cuda diagonal is a view of the device tensor; writes through it land", "[cuda][cuda_linalg]") {
  manual_seed(32);
  const Tensor base = random_nonzero({3, 4, 5}, kDouble);
  const Tensor g = base.to(kGpu);
  const Tensor d = g.diagonal(1, 0, 2);
  REQUIRE(d.is_alias_of(g));
  check_same(d, base.diagonal(1, 0, 2));
  d.fill_(2.0);
  Tensor want = base.clone();
  want.diagonal(1, 0, 2).fill_(2.0);
  check_same(g, want);
  const ViewedInput in{"transposed", [](ScalarType t) { return random_nonzero({4, 6}, t); },
                       [](const Tensor& b) { return b.t(); }};
  compare_input_grad(in, kFloat, [](const Tensor& x) { return x.diagonal(-1) * 3.0; }, 1e-6);
  compare_input_grad(in, kDouble, [](const Tensor& x) { return diag_embed(x, 1); }, 1e-12);
  compare_input_grad(in, kDouble, [](const Tensor& x) { return trace(x).reshape({1}); }, 1e-12);
}

TEST_CASE("cuda tensordot, cross, kron and the add* family match the CPU", "[cuda][cuda_linalg]") {
  manual_seed(33);
  const Tensor a = random_nonzero({3, 4, 5}, kDouble), b = random_nonzero({5, 4, 2}, kDouble);
  check_same(tensordot(a.to(kGpu), b.to(kGpu), {1, 2}, {1, 0}), tensordot(a, b, {1, 2}, {1, 0}), 1e-12);
  const Tensor u = random_nonzero({4, 3}, kDouble), v = random_nonzero({1, 3}, kDouble);
  check_same(linalg_cross(u.to(kGpu), v.to(kGpu)), linalg_cross(u, v), 1e-12);
  check_same(kron(u.to(kGpu), v.to(kGpu)), kron(u, v), 1e-12);
  const Tensor s = random_nonzero({4, 2}, kDouble), b1 = random_nonzero({3, 4, 5}, kDouble),
               b2 = random_nonzero({3, 5, 2}, kDouble);
  check_same(baddbmm(s.to(kGpu), b1.to(kGpu), b2.to(kGpu), 0.5, 2.0), baddbmm(s, b1, b2, 0.5, 2.0), 1e-12);
  check_same(addbmm(s.to(kGpu), b1.to(kGpu), b2.to(kGpu), 0.5, 2.0), addbmm(s, b1, b2, 0.5, 2.0), 1e-12);
  const Tensor m = random_nonzero({4, 5}, kDouble), x = random_nonzero({5}, kDouble),
               y = random_nonzero({4}, kDouble);
  check_same(addmv(y.to(kGpu), m.to(kGpu), x.to(kGpu)), addmv(y, m, x), 1e-12);
  check_same(addr(m.to(kGpu), y.to(kGpu), x.to(kGpu)), addr(m, y, x), 1e-12);
  check_same(logspace(0, 2, 5, 10.0, TensorOptions(kDouble).device(kGpu)), logspace(0, 2, 5, 10.0, kDouble), 1e-12);
  check_same(tril_indices(3, 4, 1, TensorOptions(kLong).device(kGpu)), tril_indices(3, 4, 1));
}
