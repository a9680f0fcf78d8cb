// The CUDA upsampling kernels (kernels/cuda/upsample_kernels.cu) against the
// same ops on the CPU, forward and backward, on random non-zero data: planes
// of 1, 7 and 31, a zero-size batch, transposed and sliced views, growing,
// shrinking and equal sizes, and one output over 65535 * 256 elements (the
// grid-stride loops). Tolerance, relative to max(1, |cpu value|): nearest
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
      for (const Layout& l : layouts())
        for (ScalarType t : {kFloat, kDouble}) compare_with_cpu(op, l, t, tol(t), tol(t));
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
