// The 1-d ops on CUDA tensors against the CPU: they run the 2-d kernels (and
// cuDNN's conv) on a (N, C, 1, L) view, so this checks that view's path
// through each, forward and backward. conv1d in float64 (no TF32), within
// 1e-10; pooling within 1e-5 (float32) and 1e-12 (float64), as the 2-d tests.
#include "nn_compare.h"

using namespace ember;
using namespace nn_compare;

TEST_CASE("cuda 1-d ops: conv1d, conv_transpose1d and the 1-d poolings match the CPU",
          "[cuda_nn]") {
  manual_seed(51);
  const std::vector<Layout> layouts{dense({2, 4, 37}), dense({4, 37}),
                                    {"transposed", {2, 37, 4},
                                     [](const Tensor& t) { return t.transpose(1, 2); }}};
  const Tensor w = random_nonzero({6, 2, 3}, kDouble).to(kGpu), b = random_nonzero({6}, kDouble);
  for (const Layout& l : layouts) {
    const auto conv = [&](const Tensor& x) {
      return tensor_list{conv1d(x, w.to(x.device()), b.to(x.device()), 2, 1, 2, 2)};
    };
    compare_with_cpu(conv, l, kDouble, 1e-10, 1e-10);
    const Tensor wt = random_nonzero({4, 3, 3}, kDouble);  // (C, K / groups, S), groups 2
    const auto transposed = [&](const Tensor& x) {
      return tensor_list{conv_transpose1d(x, wt.to(x.device()), {}, 2, 1, 1, 2, 2)};
    };
    compare_with_cpu(transposed, l, kDouble, 1e-10, 1e-10);
    for (ScalarType t : {kFloat, kDouble}) {
      const double tol = t == kFloat ? 1e-5 : 1e-12;
      compare_with_cpu([](const Tensor& x) { return tensor_list{max_pool1d(x, 3, 2, 1)}; }, l, t,
                       0, tol);
      compare_with_cpu([](const Tensor& x) { return tensor_list{avg_pool1d(x, 4, 3, 2)}; }, l, t,
                       tol, tol);
      compare_with_cpu([](const Tensor& x) { return tensor_list{adaptive_avg_pool1d(x, 5)}; }, l,
                       t, tol, tol);
    }
  }
}
