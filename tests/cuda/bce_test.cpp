// The binary cross-entropies on CUDA (kernels/cuda/elementwise_loss.cu, the
// CPU's functors) against the CPU: probabilities / logits of sizes 0, 1, 31
// and 1025, a non-contiguous input (a transposed view taken on the device),
// weight and pos_weight broadcast along the last dim, every reduction, forward
// and backward for input, target and pos_weight. Tolerance relative to
// max(1, |cpu value|): float32 1e-5 (log/exp in float32 on both devices, the
// reductions in a different order), float64 1e-12.
#include <ember/ember.h>
#include <ember/nn/functional/loss.h>

#include <catch2/catch.hpp>

#include "cuda_test_helpers.h"

using namespace ember;
using namespace cuda_test;
namespace F = ember::nn::functional;

namespace {

double tol(ScalarType t) { return t == kFloat ? 1e-5 : 1e-12; }

// A CUDA leaf holding x's transpose, contiguous: its .t() is a
// non-contiguous view with x's values.
Tensor transposed_gpu_leaf(const Tensor& x) {
  return x.t().contiguous().to(kGpu).detach().requires_grad_(true);
}

}  // namespace

TEST_CASE("cuda binary_cross_entropy matches the CPU", "[cuda_loss]") {
  for (int64_t cols : {0, 1, 31, 1025})
    for (ScalarType t : {kFloat, kDouble})
      for (bool transposed : {false, true})
        for (auto reduction : {kNone, kSum, kMean}) {
          INFO("cols " << cols << ", " << t << ", transposed " << transposed);
          const DimVector shape{3, cols};
          // Probabilities in [0.05, 0.95] and soft targets in [0, 1].
          const Tensor p = (rand(shape, t) * 0.9 + 0.05), y = rand(shape, t);
          const Tensor w = rand({cols}, t) + 0.5;
          const Tensor pc = cpu_leaf(p), yc = cpu_leaf(y);
          const Tensor pg_leaf = transposed ? transposed_gpu_leaf(p) : gpu_leaf(p);
          const Tensor yg = gpu_leaf(y);
          const Tensor pg = transposed ? pg_leaf.t() : pg_leaf;
          if (transposed) REQUIRE_FALSE(pg.is_contiguous());
          auto oc = F::BinaryCrossEntropyFuncOptions().reduction(reduction).weight(w);
          auto og = F::BinaryCrossEntropyFuncOptions().reduction(reduction).weight(w.to(kGpu));
          const Tensor lc = F::binary_cross_entropy(pc, yc, oc);
          const Tensor lg = F::binary_cross_entropy(pg, yg, og);
          check_same(lg, lc, tol(t));
          const Tensor g = random_nonzero(lc.sizes(), t);
          lc.backward(g);
          lg.backward(g.to(kGpu));
          if (p.numel() == 0) continue;
          const Tensor pg_grad = transposed ? pg_leaf.grad().t() : pg_leaf.grad();
          check_same(pg_grad.contiguous(), pc.grad(), tol(t));
          check_same(yg.grad(), yc.grad(), tol(t));
        }
}

TEST_CASE("cuda binary_cross_entropy_with_logits matches the CPU", "[cuda_loss]") {
  for (int64_t cols : {0, 1, 31, 1025})
    for (ScalarType t : {kFloat, kDouble})
      for (bool pos_weighted : {false, true})
        for (auto reduction : {kNone, kSum, kMean}) {
          INFO("cols " << cols << ", " << t << ", pos_weight " << pos_weighted);
          const DimVector shape{4, cols};
          const Tensor x = random_nonzero(shape, t) * 4, y = rand(shape, t);
          const Tensor pw = rand({cols}, t) * 2 + 0.25;
          const Tensor xc = cpu_leaf(x), yc = cpu_leaf(y), pwc = cpu_leaf(pw);
          const Tensor xg = gpu_leaf(x), yg = gpu_leaf(y), pwg = gpu_leaf(pw);
          auto oc = F::BinaryCrossEntropyWithLogitsFuncOptions().reduction(reduction);
          auto og = F::BinaryCrossEntropyWithLogitsFuncOptions().reduction(reduction);
          if (pos_weighted) {
            oc.pos_weight(pwc);
            og.pos_weight(pwg);
          }
          const Tensor lc = F::binary_cross_entropy_with_logits(xc, yc, oc);
          const Tensor lg = F::binary_cross_entropy_with_logits(xg, yg, og);
          check_same(lg, lc, tol(t));
          const Tensor g = random_nonzero(lc.sizes(), t);
          lc.backward(g);
          lg.backward(g.to(kGpu));
          if (x.numel() == 0) continue;
          check_same(xg.grad(), xc.grad(), tol(t));
          check_same(yg.grad(), yc.grad(), tol(t));
          if (pos_weighted) check_same(pwg.grad(), pwc.grad(), tol(t));
        }
}

TEST_CASE("cuda binary_cross_entropy rejects values outside [0, 1]", "[cuda_loss]") {
  const Tensor p = tensor({0.5, 1.5}).to(kGpu), y = tensor({0.0, 1.0}).to(kGpu);
  REQUIRE_THROWS_WITH(F::binary_cross_entropy(p, y),
                      Catch::Contains("binary_cross_entropy") && Catch::Contains("[0, 1]"));
}
