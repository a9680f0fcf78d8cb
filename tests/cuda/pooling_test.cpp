// The CUDA pooling kernels (kernels/cuda/pooling_kernels.cu) against the same
// ops on the CPU, forward and backward (the fused gather kernels), on random
// non-zero data: planes of 1, 7, 31 and 9x1025, a zero-size batch, a 3-d
// input, transposed, sliced and broadcast (expanded) views, and one input
// over 65535 * 256 elements (the grid-stride loops); PyTorch's values derived
// by hand for the divisor and NaN rules; gradients of gradients; and a steady
// step that neither waits for the device nor calls cudaMalloc. Tolerance, relative to max(1, |cpu value|): max pooling
// is exact (values and indices: it only picks elements; its gradient adds at
// most kernel-area values, 1e-6 for float32); average poolings sum at most
// 3x5 values per output or gradient in another order than the CPU: 1e-5 for
// float32, 1e-12 for float64.
#include <ember/core/cuda/memory.h>
#include <ember/core/cuda/sync_count.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "nn_compare.h"

using namespace ember;
using namespace nn_compare;

namespace {

std::vector<Layout> layouts() {
  std::vector<Layout> out;
  for (int64_t hw : {1, 7, 31}) out.push_back(dense({2, 3, hw, hw}));
  out.push_back(dense({0, 3, 7, 7}));
  out.push_back({"3-d (C, H, W)", {3, 7, 31}, [](const Tensor& t) { return t; }});
  out.push_back({"odd (H, W) = (7, 31)", {2, 3, 7, 31}, [](const Tensor& t) { return t; }});
  out.push_back({"transposed", {2, 3, 31, 7}, [](const Tensor& t) { return t.transpose(2, 3); }});
  out.push_back({"sliced", {2, 6, 31, 14},
                 [](const Tensor& t) { return t.slice(1, 0, 6, 2).slice(3, 0, 14, 2); }});
  out.push_back(dense({1, 2, 9, 1025}));
  out.push_back(broadcast({2, 1, 7, 31}, 1, 3));
  return out;
}

// The smaller of the op's input's plane sizes (the view's, not the base's).
int64_t min_plane(const Layout& l) {
  const Tensor probe = l.view(empty(l.base_shape));
  return std::min(probe.size(-1), probe.size(-2));
}

const std::vector<ScalarType> kDtypes{kFloat, kDouble};

double avg_tol(ScalarType t) { return t == kFloat ? 1e-5 : 1e-12; }

}  // namespace

TEST_CASE("cuda pooling: max_pool2d values, indices and gradient match the CPU with padding, "
          "stride, dilation and ceil_mode",
          "[cuda_nn]") {
  manual_seed(21);
  struct Config {
    std::string name;
    std::function<tensor_list(const Tensor&)> op;
    int64_t min_size;
  };
  const std::vector<Config> configs{
      {"k3 s2 p1",
       [](const Tensor& x) {
         auto [y, i] = max_pool2d_with_indices(x, {3}, {2}, {1});
         return tensor_list{y, i};
       },
       1},
      {"k2 s2 ceil_mode",
       [](const Tensor& x) {
         auto [y, i] = max_pool2d_with_indices(x, {2}, {2}, {0}, {1}, /*ceil_mode=*/true);
         return tensor_list{y, i};
       },
       1},
      {"k3 s1 p1 dilation 2 (overlapping windows)",
       [](const Tensor& x) {
         auto [y, i] = max_pool2d_with_indices(x, {3}, {1}, {1}, {2});
         return tensor_list{y, i};
       },
       7},
      {"k (2, 3) s (1, 2) p (1, 1) ceil_mode",
       [](const Tensor& x) {
         auto [y, i] = max_pool2d_with_indices(x, {2, 3}, {1, 2}, {1, 1}, {1}, true);
         return tensor_list{y, i};
       },
       1},
  };
  for (const Config& c : configs)
    for (const Layout& l : layouts()) {
      if (min_plane(l) < c.min_size) continue;
      INFO(c.name);
      // The backward adds a window's terms in the CPU's order; the margin
      // over one ulp is for up to 9 overlapping windows should that differ.
      for (ScalarType t : kDtypes) compare_with_cpu(c.op, l, t, 0, t == kFloat ? 4e-6 : 1e-12);
    }
}

TEST_CASE("cuda pooling: max_pool2d over more than 65535 * 256 elements matches the CPU",
          "[cuda_nn]") {
  manual_seed(22);
  compare_with_cpu(
      [](const Tensor& x) {
        auto [y, i] = max_pool2d_with_indices(x, {3}, {2}, {1});
        return tensor_list{y, i};
      },
      dense({1, 1, 4100, 4100}), kFloat, 0, 1e-6);
}

TEST_CASE("cuda pooling: avg_pool2d matches the CPU for count_include_pad and ceil_mode",
          "[cuda_nn]") {
  manual_seed(23);
  for (bool ceil_mode : {false, true})
    for (bool count_include_pad : {true, false}) {
      INFO("ceil_mode " << ceil_mode << ", count_include_pad " << count_include_pad);
      const auto op = [=](const Tensor& x) {
        return tensor_list{avg_pool2d(x, {3, 2}, {2, 1}, {1, 1}, ceil_mode, count_include_pad)};
      };
      for (const Layout& l : layouts())
        for (ScalarType t : kDtypes) compare_with_cpu(op, l, t, avg_tol(t), avg_tol(t));
    }
}

TEST_CASE("cuda pooling: adaptive_max_pool2d values, indices and gradient match the CPU",
          "[cuda_nn]") {
  manual_seed(25);
  for (const std::vector<int64_t>& size :
       {std::vector<int64_t>{1, 1}, std::vector<int64_t>{3, 5}, std::vector<int64_t>{10, 4}}) {
    INFO("output " << size[0] << "x" << size[1]);
    const auto op = [&](const Tensor& x) {
      const auto [out, indices] = adaptive_max_pool2d(x, size);
      return tensor_list{out, indices};
    };
    // A copy of one input value and its position: exact; the gradient sums a
    // few values by atomicAdd (scatter_add): avg_tol.
    for (const Layout& l : layouts())
      for (ScalarType t : kDtypes) compare_with_cpu(op, l, t, 0, avg_tol(t));
  }
}

TEST_CASE("cuda pooling: adaptive_avg_pool2d matches the CPU when shrinking, growing and to 1x1",
          "[cuda_nn]") {
  manual_seed(24);
  for (const std::vector<int64_t>& size :
       {std::vector<int64_t>{1, 1}, std::vector<int64_t>{3, 5}, std::vector<int64_t>{10, 4}}) {
    INFO("output " << size[0] << "x" << size[1]);
    const auto op = [&](const Tensor& x) { return tensor_list{adaptive_avg_pool2d(x, size)}; };
    for (const Layout& l : layouts())
      for (ScalarType t : kDtypes) compare_with_cpu(op, l, t, avg_tol(t), avg_tol(t));
  }
}

TEST_CASE("cuda pooling: avg_pool2d divisors with padding and ceil_mode are PyTorch's",
          "[cuda_nn]") {
  for (ScalarType t : kDtypes) {
    INFO("dtype " << t);
    const TensorOptions on_gpu = TensorOptions().dtype(t).device(kGpu);
    // ones(3, 3), k 2, s 2, p 1: the corner window holds 1 input of 4 places.
    const Tensor ones3 = ones({1, 1, 3, 3}, on_gpu);
    check_values(avg_pool2d(ones3, {2}, {2}, {1}, false, true), {0.25, 0.5, 0.5, 1.0}, 1e-6,
                 "count_include_pad");
    check_values(avg_pool2d(ones3, {2}, {2}, {1}, false, false), {1, 1, 1, 1}, 1e-6,
                 "!count_include_pad");
    // [0..5] in a row, k 3, s 2, p 1, ceil_mode: the extra last window [5, 8)
    // is cut at the end of the padding (divisor 2, not 3).
    const Tensor row = arange(6, on_gpu).view({1, 1, 1, 6});
    check_values(avg_pool2d(row, {1, 3}, {1, 2}, {0, 1}, true, true), {1.0 / 3, 2, 4, 2.5}, 1e-6,
                 "ceil_mode, count_include_pad");
    check_values(avg_pool2d(row, {1, 3}, {1, 2}, {0, 1}, true, false), {0.5, 2, 4, 5}, 1e-6,
                 "ceil_mode, !count_include_pad");
    // [0..4] to 3: windows [0, 2), [1, 4), [3, 5).
    check_values(adaptive_avg_pool2d(arange(5, on_gpu).view({1, 1, 5}), {1, 3}), {0.5, 2, 3.5},
                 1e-6, "adaptive 5 -> 3");
    // The gradient of the sum: each input gets 1/divisor from each window.
    const Tensor leaf = zeros({1, 1, 1, 6}, on_gpu).requires_grad_();
    avg_pool2d(leaf, {1, 3}, {1, 2}, {0, 1}, true, true).sum().backward();
    check_values(leaf.grad(), {1.0 / 3, 2.0 / 3, 1.0 / 3, 2.0 / 3, 1.0 / 3, 1.0 / 3 + 0.5}, 1e-6,
                 "avg_pool2d gradient of the sum");
  }
}

TEST_CASE("cuda pooling: max_pool2d propagates NaN and points an all -inf window at its first "
          "element, as PyTorch",
          "[cuda_nn]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (ScalarType t : kDtypes) {
    INFO("dtype " << t);
    // (1, 1, 2, 6), k 2 s 2: windows {1, NaN, 0, 2}, {-inf x 4}, {3, NaN, NaN, -1}.
    const Tensor x = tensor({1.0, nan, -inf, -inf, 3.0, nan, 0.0, 2.0, -inf, -inf, nan, -1.0},
                            TensorOptions().dtype(t))
                         .view({1, 1, 2, 6});
    const Tensor xg = x.to(kGpu).requires_grad_();
    auto [y, indices] = max_pool2d_with_indices(xg, {2}, {2}, {0});
    check_values(y, {nan, -inf, nan}, 0, "values");
    // The last NaN of a window wins (row-major scan, NaN taken over NaN).
    check_values(indices, {1, 2, 10}, 0, "indices");
    y.backward(ones_like(y));
    check_values(xg.grad(), {0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0}, 0, "gradient");
    // ceil_mode drops a last window that would start in the right padding:
    // [0..5], k 2, s 4, p 1 gives windows [-1, 1) and [3, 5), not [7, 9).
    auto [yc_row, ic_row] = max_pool2d_with_indices(
        arange(6, TensorOptions().dtype(t).device(kGpu)).view({1, 1, 1, 6}), {1, 2}, {1, 4},
        {0, 1}, {1}, /*ceil_mode=*/true);
    check_values(yc_row, {0, 4}, 0, "ceil_mode values");
    check_values(ic_row, {0, 4}, 0, "ceil_mode indices");
    // The CPU agrees, padding included (-inf never wins over an input).
    const Tensor big = random_nonzero({2, 3, 9, 9}, t);
    const Tensor with_nan = where(big.abs() > 1.5, full_like(big, nan), big);
    auto [yc, ic] = max_pool2d_with_indices(with_nan, {3}, {2}, {1});
    auto [yg, ig] = max_pool2d_with_indices(with_nan.to(kGpu), {3}, {2}, {1});
    CHECK(equal(ig.cpu(), ic));
    CHECK(equal(isnan(yg).cpu(), isnan(yc)));
    CHECK(equal(where(isnan(yc), zeros_like(yc), yc), where(isnan(yg), zeros_like(yg), yg).cpu()));
  }
}

TEST_CASE("cuda pooling: gradients of gradients (create_graph) match the CPU", "[cuda_nn]") {
  manual_seed(25);
  const std::vector<std::pair<std::string, std::function<Tensor(const Tensor&)>>> ops{
      {"max_pool2d k3 s1 p1 (scatter_add under create_graph)",
       [](const Tensor& x) { return max_pool2d(x, {3}, {1}, {1}); }},
      {"avg_pool2d k3 s2 p1 ceil_mode",
       [](const Tensor& x) { return avg_pool2d(x, {3}, {2}, {1}, true, false); }},
      {"adaptive_avg_pool2d to 3x5", [](const Tensor& x) { return adaptive_avg_pool2d(x, {3, 5}); }},
  };
  for (const auto& [name, op] : ops) {
    INFO(name);
    // The gradient's own gradient runs the adjoint (or scatter_add's gather) again.
    compare_gradients_of_gradients(op, random_nonzero({2, 3, 7, 9}, kDouble));
  }
}

TEST_CASE("cuda pooling: a steady forward and backward step neither waits for the device nor "
          "calls cudaMalloc",
          "[cuda_nn]") {
  manual_seed(26);
  const Tensor x = random_nonzero({8, 16, 32, 32}, kFloat).to(kGpu).requires_grad_();
  const auto step = [&] {
    const Tensor a = max_pool2d(x, {3}, {2}, {1});
    const Tensor b = avg_pool2d(x, {2}, {2}, {0}, true, false);
    const Tensor c = adaptive_avg_pool2d(x, {5, 5});
    const Tensor d = upsample_nearest2d(a, {32, 32});
    const Tensor e = upsample_bilinear2d(b, {32, 32}, false);
    return autograd::grad({a.sum() + c.sum() + (d * e).sum()}, {x})[0];
  };
  for (int warm = 0; warm < 2; ++warm) step();
  const uint64_t mallocs = cuda::memory_stats().num_system_allocs;
  const uint64_t syncs = cuda::sync_count();
  for (int i = 0; i < 3; ++i) step();
  CHECK(cuda::sync_count() == syncs);
  CHECK(cuda::memory_stats().num_system_allocs == mallocs);
}
