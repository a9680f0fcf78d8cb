// The CUDA upsampling kernels (kernels/cuda/upsample_kernels.cu) against the
// same ops on the CPU, forward and backward, on random non-zero data: planes
// of 1, 7, 31 and 3x1025, a zero-size batch, transposed, sliced and broadcast
// views, growing, shrinking and equal sizes, and one output over 65535 * 256
// elements (the grid-stride loops); PyTorch's values derived by hand for the
// source-index and align_corners rules; gradients of gradients. Tolerance, relative to max(1, |cpu value|): nearest
// forward exact (a copy); its gradient and bilinear's sum a few values in
// another order (bilinear's with atomicAdd, and nvcc may fuse its multiply-
// adds): 1e-5 for float32, 1e-12 for float64.
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
  out.push_back({"transposed", {2, 3, 31, 7}, [](const Tensor& t) { return t.transpose(2, 3); }});
  out.push_back({"sliced", {2, 6, 31, 14},
                 [](const Tensor& t) { return t.slice(1, 0, 6, 2).slice(3, 0, 14, 2); }});
  out.push_back(dense({1, 2, 3, 1025}));
  out.push_back(broadcast({2, 3, 1, 7}, 2, 5));
  return out;
}

const std::vector<std::vector<int64_t>> kOutputSizes{{1, 1}, {3, 5}, {14, 62}, {31, 31}, {62, 9}};

double tol(ScalarType t) { return t == kFloat ? 1e-5 : 1e-12; }

}  // namespace

TEST_CASE("cuda upsample: upsample_nearest2d and its gradient match the CPU", "[cuda_nn]") {
  manual_seed(31);
  for (const auto& size : kOutputSizes) {
    INFO("output " << size[0] << "x" << size[1]);
    const auto op = [&](const Tensor& x) { return tensor_list{upsample_nearest2d(x, size)}; };
    for (const Layout& l : layouts())
      for (ScalarType t : {kFloat, kDouble}) compare_with_cpu(op, l, t, 0, tol(t));
  }
}

TEST_CASE("cuda upsample: upsample_bilinear2d and its gradient match the CPU with and without "
          "align_corners",
          "[cuda_nn]") {
  manual_seed(32);
  for (bool align_corners : {false, true})
    for (const auto& size : kOutputSizes) {
      INFO("output " << size[0] << "x" << size[1] << ", align_corners " << align_corners);
      const auto op = [&](const Tensor& x) {
        return tensor_list{upsample_bilinear2d(x, size, align_corners)};
      };
      // The CUDA backward adds with atomics in no fixed order: a 1x1 plane
      // takes ~1000 float32 terms, which can differ from the CPU's ordered
      // sum by ~7e-5 (a simulation of that sum's rounding).
      for (const Layout& l : layouts())
        for (ScalarType t : {kFloat, kDouble})
          compare_with_cpu(op, l, t, tol(t), t == kFloat ? 3e-4 : 1e-10);
    }
}

TEST_CASE("cuda upsample: outputs over 65535 * 256 elements match the CPU", "[cuda_nn]") {
  manual_seed(33);
  const Layout big = dense({1, 1, 2050, 2050});  // output 4100 x 4100
  compare_with_cpu([](const Tensor& x) { return tensor_list{upsample_nearest2d(x, {4100, 4100})}; },
                   big, kFloat, 0, 1e-5);
  compare_with_cpu(
      [](const Tensor& x) { return tensor_list{upsample_bilinear2d(x, {4100, 4100}, false)}; },
      big, kFloat, 1e-5, 1e-5);
}

TEST_CASE("cuda upsample: source indices and weights are PyTorch's (nearest, bilinear with and "
          "without align_corners)",
          "[cuda_nn]") {
  for (ScalarType t : {kFloat, kDouble}) {
    INFO("dtype " << t);
    const TensorOptions on_gpu = TensorOptions().dtype(t).device(kGpu);
    const Tensor row = arange(4, on_gpu).view({1, 1, 1, 4});  // [0, 1, 2, 3]
    // nearest: floor(d * in / out), clamped.
    check_values(upsample_nearest2d(row, {1, 6}), {0, 0, 1, 2, 2, 3}, 0, "nearest 4 -> 6");
    check_values(upsample_nearest2d(row, {1, 3}), {0, 1, 2}, 0, "nearest 4 -> 3");
    check_values(upsample_nearest2d(row, {1, 8}), {0, 0, 1, 1, 2, 2, 3, 3}, 0, "nearest 4 -> 8");
    // bilinear, half-pixel centres: source (d + 0.5) * in / out - 0.5, clamped at 0.
    check_values(upsample_bilinear2d(row, {1, 8}, false),
                 {0, 0.25, 0.75, 1.25, 1.75, 2.25, 2.75, 3}, 1e-6, "bilinear 4 -> 8");
    check_values(upsample_bilinear2d(row, {1, 1}, false), {1.5}, 1e-6, "bilinear 4 -> 1");
    // align_corners: source d * (in - 1) / (out - 1); one output reads input 0.
    check_values(upsample_bilinear2d(row, {1, 7}, true), {0, 0.5, 1, 1.5, 2, 2.5, 3}, 1e-6,
                 "bilinear align_corners 4 -> 7");
    check_values(upsample_bilinear2d(row, {1, 1}, true), {0}, 1e-6,
                 "bilinear align_corners 4 -> 1");
    // 2x2 [[0, 1], [2, 3]] to 4x4: out[i][j] = 2 * r[i] + r[j], r = [0, .25, .75, 1].
    const Tensor square = arange(4, on_gpu).view({1, 1, 2, 2});
    const double r[4] = {0, 0.25, 0.75, 1};
    std::vector<double> want;
    for (double ri : r)
      for (double rj : r) want.push_back(2 * ri + rj);
    check_values(upsample_bilinear2d(square, {4, 4}, false), want, 1e-6, "bilinear 2x2 -> 4x4");
    // Gradients of the sum: how often (nearest) or how much (bilinear) each input is read.
    const Tensor a = zeros({1, 1, 1, 4}, on_gpu).requires_grad_();
    upsample_nearest2d(a, {1, 6}).sum().backward();
    check_values(a.grad(), {2, 1, 2, 1}, 0, "nearest 4 -> 6 gradient of the sum");
    const Tensor b = zeros({1, 1, 1, 4}, on_gpu).requires_grad_();
    upsample_bilinear2d(b, {1, 8}, false).sum().backward();
    check_values(b.grad(), {2, 2, 2, 2}, 1e-6, "bilinear 4 -> 8 gradient of the sum");
  }
}

TEST_CASE("cuda upsample: gradients of gradients (create_graph) match the CPU", "[cuda_nn]") {
  manual_seed(34);
  for (bool bilinear : {false, true}) {
    INFO((bilinear ? "bilinear" : "nearest"));
    const auto op = [bilinear](const Tensor& x) {
      return bilinear ? upsample_bilinear2d(x, {11, 4}, true) : upsample_nearest2d(x, {11, 4});
    };
    compare_gradients_of_gradients(op, random_nonzero({2, 3, 5, 7}, kDouble));
  }
}
