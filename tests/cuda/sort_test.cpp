// sort, argsort, topk, kthvalue and median (kernels/cuda/sort_kernels.cu) on
// CUDA against the CPU: random data with ties and NaN, every dtype and dim,
// short rows (bitonic sort in shared memory) and long rows (cub's segmented
// radix sort), and the values' gradients. Both backends give stable results,
// so indices must match exactly.
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <functional>
#include <limits>
#include <vector>

#include "cuda_test_helpers.h"

using namespace ember;
using namespace cuda_test;

namespace {

// Integers in [0, 4) (many ties); floating dtypes get a NaN at about one
// element in eight, a -0.0 where 0 falls on odd draws, and +-inf.
Tensor tied(IntArrayRef shape, ScalarType t) {
  if (t == kBool) return randint(0, 2, shape) > 0;
  Tensor x = randint(0, 4, shape).to(t == kLong ? kLong : kDouble);
  if (t == kLong) return x;
  x = where(rand(shape, kDouble) < 0.5, x, -x);  // -0.0 among the zeros
  x = masked_fill(x, rand(shape, kDouble) < 0.05, std::numeric_limits<double>::infinity());
  x = masked_fill(x, rand(shape, kDouble) < 0.125, std::numeric_limits<double>::quiet_NaN());
  return x.to(t);
}

}  // namespace

TEST_CASE("cuda sort and argsort match the CPU: dtypes, dims, short and long rows",
          "[cuda][cuda_sort]") {
  manual_seed(71);
  // Row lengths around the bitonic limit (2048) and far past it (cub's path).
  const std::vector<std::vector<int64_t>> shapes = {
      {3, 5, 7}, {2, 0, 3}, {1, 1, 1}, {2, 2049, 3}, {4, 2048, 1}, {1, 1, 40000}, {3, 2, 5000}};
  for (ScalarType t : {kBool, kLong, kFloat, kDouble})
    for (const std::vector<int64_t>& shape : shapes)
      for (int64_t d : {0, 1, 2})
        for (bool descending : {false, true}) {
          INFO(t << ", shape " << IntArrayRef(shape) << ", dim " << d << ", descending " << descending);
          const Tensor x = tied(shape, t);
          auto [v, i] = sort(x, d, descending);
          auto [gv, gi] = sort(x.to(kGpu), d, descending);
          check_same(gi, i);
          check_same(gv, v);
          check_same(argsort(x.to(kGpu).transpose(0, 2), d, descending), argsort(x.transpose(0, 2), d, descending));
        }
}

TEST_CASE("cuda topk, kthvalue and median match the CPU on tied data with NaN",
          "[cuda][cuda_sort]") {
  manual_seed(72);
  const std::vector<std::vector<int64_t>> shapes = {{5, 9, 4}, {2, 3000, 2}, {1, 7, 6001}};
  for (ScalarType t : {kLong, kFloat, kDouble})
    for (const std::vector<int64_t>& shape : shapes)
      for (int64_t d : {0, 1, 2}) {
        INFO(t << ", shape " << IntArrayRef(shape) << ", dim " << d);
        const Tensor x = tied(shape, t), g = x.to(kGpu);
        const int64_t n = shape[d];
        for (int64_t k : {int64_t(1), (n + 1) / 2, n}) {
          for (bool largest : {true, false}) {
            auto [v, i] = topk(x, k, d, largest);
            auto [gv, gi] = topk(g, k, d, largest);
            check_same(gi, i);
            check_same(gv, v);
          }
          auto [v, i] = kthvalue(x, k, d, k == 1);
          auto [gv, gi] = kthvalue(g, k, d, k == 1);
          check_same(gi, i);
          check_same(gv, v);
        }
        auto [v, i] = median(x, d);
        auto [gv, gi] = median(g, d);
        check_same(gi, i);
        check_same(gv, v);
        check_same(median(g), median(x));
      }
}

TEST_CASE("cuda sort, topk, kthvalue and median gradients match the CPU", "[cuda][cuda_sort]") {
  manual_seed(73);
  const std::vector<std::function<Tensor(const Tensor&)>> ops = {
      [](const Tensor& x) { return std::get<0>(sort(x, 1, true)); },
      [](const Tensor& x) { return std::get<0>(topk(x, 3, 0)); },
      [](const Tensor& x) { return std::get<0>(kthvalue(x, 2, 1, true)); },
      [](const Tensor& x) { return std::get<0>(median(x, 1)); },
      [](const Tensor& x) { return median(x).reshape({1}); },
  };
  for (int64_t cols : {6, 3000}) {
    const Tensor base = randn({5, cols}, kDouble);
    for (size_t k = 0; k < ops.size(); ++k) {
      INFO("op " << k << ", cols " << cols);
      const Tensor xc = cpu_leaf(base), xg = gpu_leaf(base);
      const Tensor yc = ops[k](xc), yg = ops[k](xg);
      check_same(yg, yc);
      const Tensor w = random_nonzero(yc.sizes(), kDouble);
      (yc * w).sum().backward();
      (yg * w.to(kGpu)).sum().backward();
      check_same(xg.grad(), xc.grad(), 1e-12);
    }
  }
}
