// The sanitizer subset ("[memcheck]"): every CUDA kernel family at least once
// on small odd float32 shapes (vector paths with ragged tails, strided and
// broadcast operands), forward and, where differentiable, backward, against
// the CPU. Small enough that compute-sanitizer's memcheck, which runs kernels
// many times slower, gets through the whole subset in well under a minute
// (scripts/gpu-check.sh). Elsewhere in the subset: the float64 optimizer
// steps (optim_test.cpp) and the recurrent layers (rnn_test.cpp). cuDNN is left
// out: its kernels are not ours, and its searches would take the time.
// Tolerance: 1e-4 of max(1, |cpu value|), as float32 sums in another order.
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cuda_test_helpers.h"

using namespace ember;
using namespace cuda_test;
namespace F = ember::nn::functional;

namespace {

constexpr double kTol = 1e-4;

// One op of one family on x (random non-zero float32 of `shape`).
struct OpCase {
  std::string name;
  std::vector<int64_t> shape;
  std::function<Tensor(const Tensor&)> op;
  bool positive = false;  // x > 0 (logs, powers)
};

// The op on both devices; then, when it has a gradient, sum(op(x) * w)'s.
void compare(const OpCase& c) {
  INFO(c.name);
  const Tensor x = random_nonzero(c.shape, kFloat, c.positive);
  const Tensor xc = cpu_leaf(x), xg = gpu_leaf(x);
  const Tensor yc = c.op(xc), yg = c.op(xg);
  check_same(yg, yc, kTol);
  if (!yc.requires_grad()) return;
  const Tensor w = random_nonzero(yc.sizes(), kFloat);
  (yc * w).sum().backward();
  (yg * w.to(kGpu)).sum().backward();
  check_same(xg.grad(), xc.grad(), kTol);
}

void compare_all(const std::vector<OpCase>& cases) {
  for (const OpCase& c : cases) compare(c);
}

// A constant on x's device.
Tensor on(const Tensor& x, const Tensor& cpu_value) { return cpu_value.to(x.device()); }

const std::vector<int64_t> kCube{3, 5, 7}, kImages{2, 3, 9, 11};

}  // namespace

TEST_CASE("cuda memcheck: elementwise, compare and copy kernels", "[cuda][memcheck]") {
  manual_seed(201);
  compare_all({
      {"broadcast multiply-add", {37}, [](const Tensor& x) { return x * 1.5 + 0.25; }},
      {"broadcast binary", kCube, [](const Tensor& x) { return x * x.select(2, 0).unsqueeze(2); }},
      {"unary on a transposed view", kCube, [](const Tensor& x) { return x.transpose(0, 2).exp(); }},
      {"activations", kCube, [](const Tensor& x) { return x.sigmoid() * x.tanh() + relu(x); }},
      {"pow", {1031}, [](const Tensor& x) { return pow(x, 1.7); }, true},
      {"where on a comparison", kCube,
       [](const Tensor& x) { return where(x > 0.5, x, x * -2.0); }},
      {"comparison to float", {1031}, [](const Tensor& x) { return (x > 0.2).to(kFloat); }},
      {"contiguous of a permutation", kImages,
       [](const Tensor& x) { return x.permute({3, 1, 0, 2}).contiguous(); }},
      {"cast to float64", kCube, [](const Tensor& x) { return x.to(kDouble); }},
      {"cat of a slice", kCube, [](const Tensor& x) { return cat({x, x.narrow(1, 1, 3)}, 1); }},
  });
}

TEST_CASE("cuda memcheck: reductions, softmax and losses", "[cuda][memcheck]") {
  manual_seed(202);
  const Tensor target = tensor({0, 6, 3, 2, 5, 1, 4, 6, 0, 2, 3, 5, 1, 1, 4}, kLong);
  compare_all({
      {"sum over a dim", kCube, [](const Tensor& x) { return x.sum({1}); }},
      {"sum of all", {1031}, [](const Tensor& x) { return x.sum(); }},
      {"mean over two dims", kImages, [](const Tensor& x) { return x.mean({0, 2}); }},
      {"amax", kCube, [](const Tensor& x) { return x.amax({0, 2}); }},
      {"argmax along a dim", kCube, [](const Tensor& x) { return x.argmax(1); }},
      {"logsumexp", kCube, [](const Tensor& x) { return logsumexp(x, {1}); }},
      {"softmax", kCube, [](const Tensor& x) { return softmax(x, 1); }},
      {"log_softmax of a transposed view", kCube,
       [](const Tensor& x) { return log_softmax(x.transpose(1, 2), 2); }},
      {"cross_entropy", {15, 7},
       [&](const Tensor& x) { return F::cross_entropy(x, on(x, target)); }},
      {"nll_loss", {15, 7},
       [&](const Tensor& x) { return F::nll_loss(log_softmax(x, 1), on(x, target)); }},
  });
}

TEST_CASE("cuda memcheck: gather, scatter and index kernels", "[cuda][memcheck]") {
  manual_seed(203);
  const Tensor idx = randint(0, 5, {3, 4, 7}).to(kLong), rows = tensor({4, 0, 2, 2}, kLong);
  const Tensor mask = rand({5, 7}) < 0.3, ids = tensor({{1, 0}, {2, 1}}, kLong);
  compare_all({
      {"gather", kCube, [&](const Tensor& x) { return x.gather(1, on(x, idx)); }},
      {"index_select", kCube, [&](const Tensor& x) { return index_select(x, 1, on(x, rows)); }},
      {"scatter_add", {3, 4, 7},
       [&](const Tensor& x) { return scatter_add(zeros(kCube, x.options()), 1, on(x, idx), x); }},
      {"masked_fill", kCube, [&](const Tensor& x) { return masked_fill(x, on(x, mask), 0.5); }},
      {"embedding", {3, 5}, [&](const Tensor& x) { return embedding(x, on(x, ids)); }},
  });
}

TEST_CASE("cuda memcheck: normalization, pooling, upsampling and pad kernels",
          "[cuda][memcheck]") {
  manual_seed(204);
  compare_all({
      {"batch_norm training", kImages,
       [](const Tensor& x) { return batch_norm(x, {}, {}, {}, {}, true, 0.1, 1e-5); }},
      {"layer_norm", kCube, [](const Tensor& x) { return layer_norm(x, {7}); }},
      {"group_norm", {2, 6, 5, 3}, [](const Tensor& x) { return group_norm(x, 3); }},
      {"max_pool2d", kImages, [](const Tensor& x) { return max_pool2d(x, {3, 3}, {2, 2}, {1, 1}); }},
      {"avg_pool2d", kImages,
       [](const Tensor& x) { return avg_pool2d(x, {3, 2}, {2, 1}, {1, 1}, true, false); }},
      {"adaptive_avg_pool2d", kImages, [](const Tensor& x) { return adaptive_avg_pool2d(x, {4, 3}); }},
      {"upsample_nearest2d", kImages, [](const Tensor& x) { return upsample_nearest2d(x, {13, 5}); }},
      {"upsample_bilinear2d", kImages,
       [](const Tensor& x) { return upsample_bilinear2d(x, {13, 5}, false); }},
      {"reflect pad", kImages, [](const Tensor& x) { return pad(x, {2, 1, 1, 3}, kReflect); }},
      {"constant pad", kImages, [](const Tensor& x) { return pad(x, {1, 0, 2, 2}, kConstant, 0.5); }},
  });
}

TEST_CASE("cuda memcheck: sort, scan, bucketing, matmul and linalg kernels", "[cuda][memcheck]") {
  manual_seed(205);
  const Tensor boundaries = tensor({-1.0f, -0.2f, 0.3f, 1.1f}), wt = randn({7, 9});
  compare_all({
      {"sort", kCube, [](const Tensor& x) { return std::get<0>(sort(x, 1)); }},
      {"topk", kCube, [](const Tensor& x) { return std::get<0>(topk(x, 3, 2)); }},
      {"cumsum", kCube, [](const Tensor& x) { return cumsum(x, 1); }},
      {"cumprod", kCube, [](const Tensor& x) { return cumprod(x * 0.5, 2); }},
      {"bucketize", {37}, [&](const Tensor& x) { return bucketize(x, on(x, boundaries)); }},
      {"histc", {1031}, [](const Tensor& x) { return histc(x, 13, -2, 2); }},
      {"matmul", {15, 7}, [&](const Tensor& x) { return matmul(x, on(x, wt)); }},
      {"bmm of a transposed batch", kCube,
       [](const Tensor& x) { return bmm(x, x.transpose(1, 2)); }},
      {"linalg_solve", {2, 5, 5},
       [](const Tensor& x) { return linalg_solve(x + 5 * eye(5, x.options()), x.narrow(2, 0, 2)); }},
      {"cholesky", {2, 5, 5},
       [](const Tensor& x) {
         return linalg_cholesky(matmul(x, x.transpose(1, 2)) + 5 * eye(5, x.options()));
       }},
  });
}

TEST_CASE("cuda memcheck: random draws and dropout equal the CPU's for one seed",
          "[cuda][memcheck]") {
  const auto draw = [](Device d) {
    manual_seed(206);
    const TensorOptions o = TensorOptions().device(d);
    return std::vector<Tensor>{rand({37}, o), randn({5, 7}, o), randint(0, 9, {31}, o),
                               dropout(ones({3, 37}, o), 0.3, true)};
  };
  const std::vector<Tensor> want = draw(kCPU), got = draw(kGpu);
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("draw " << i);
    check_same(got[i], want[i], i == 1 ? 1e-6 : 0.0);  // normal draws: each device's log, cos
  }
}
