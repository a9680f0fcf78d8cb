// The CUDA pooling kernels (kernels/cuda/pooling_kernels.cu) against the same
// ops on the CPU, forward and backward (the fused gather kernels), on random
// non-zero data: planes of 1, 7 and 31, a zero-size batch, a 3-d input,
// transposed and sliced views, and one input over 65535 * 256 elements (the
// grid-stride loops). Tolerance, relative to max(1, |cpu value|): max pooling
// is exact (values and indices: it only picks elements; its gradient adds at
// most kernel-area values, 1e-6 for float32); average poolings sum at most
// 3x5 values per output or gradient in another order than the CPU: 1e-5 for
// float32, 1e-12 for float64.
#include <algorithm>
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
      for (ScalarType t : kDtypes) compare_with_cpu(c.op, l, t, 0, t == kFloat ? 1e-6 : 1e-12);
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
