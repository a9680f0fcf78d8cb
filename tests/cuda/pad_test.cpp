// The CUDA padding kernels (kernels/cuda/pad_kernels.cu) against the same op on
// the CPU, every mode, forward and backward, on random non-zero data: 1-, 2-
// and 3-d pads, negative pads, a zero-size batch, transposed and broadcast
// views, and one output over 65535 * 256 elements (the grid-stride loops);
// the modes' values by hand; gradients of gradients. The forward is a copy
// (exact); the backward sums the same values in the same order as the CPU's
// gather: within 1e-6 (float32) and 1e-12 (float64).
#include <vector>

#include "nn_compare.h"

using namespace ember;
using namespace nn_compare;

namespace {

struct PadCase {
  Layout layout;
  std::vector<int64_t> pad;
};

std::vector<PadCase> cases() {
  return {
      {dense({2, 3, 9}), {3, 2}},
      {dense({2, 3, 7, 31}), {2, 5, 4, 1}},
      {dense({3, 5, 6}), {-2, 3, 0, 2}},
      {dense({1, 2, 3, 4, 5}), {1, 4, 2, 0, 2, 3}},
      {dense({0, 3, 7, 7}), {1, 1, 1, 1}},
      {{"transposed", {2, 3, 31, 7}, [](const Tensor& t) { return t.transpose(2, 3); }},
       {3, 3, 1, 2}},
      {broadcast({2, 3, 1, 7}, 2, 5), {2, 2, 2, 2}},
  };
}

double tol(ScalarType t) { return t == kFloat ? 1e-6 : 1e-12; }

}  // namespace

TEST_CASE("cuda pad: every mode and its gradient match the CPU", "[cuda_nn]") {
  manual_seed(41);
  for (PadMode mode : {kConstant, kReflect, kReplicate, kCircular})
    for (const PadCase& c : cases()) {
      INFO(mode << " pad " << IntArrayRef(c.pad));
      std::vector<int64_t> p = c.pad;
      const std::vector<int64_t> sizes = c.layout.view(zeros(c.layout.base_shape)).sizes().vec();
      // kReflect takes pads below the size, kCircular at most it: clip those cases' pads.
      for (size_t k = 0; k < p.size(); ++k) {
        const int64_t size = sizes[sizes.size() - 1 - k / 2];
        if (mode == kReflect) p[k] = std::min(p[k], size - 1);
        if (mode == kCircular) p[k] = std::min(p[k], size);
      }
      const double value = mode == kConstant ? -0.5 : 0.0;
      const auto op = [&](const Tensor& x) { return tensor_list{pad(x, p, mode, value)}; };
      for (ScalarType t : {kFloat, kDouble}) compare_with_cpu(op, c.layout, t, 0, tol(t));
    }
}

TEST_CASE("cuda pad: outputs over 65535 * 256 elements match the CPU", "[cuda_nn]") {
  manual_seed(42);
  compare_with_cpu([](const Tensor& x) { return tensor_list{pad(x, {2, 2, 2, 2}, kReflect)}; },
                   dense({1, 1, 4100, 4100}), kFloat, 0, 1e-6);
}

TEST_CASE("cuda pad: each mode's values on a row, by hand", "[cuda_nn]") {
  for (ScalarType t : {kFloat, kDouble}) {
    INFO("dtype " << t);
    const Tensor row = arange(3, TensorOptions().dtype(t).device(kGpu)).view({1, 1, 3});
    check_values(pad(row, {2, 2}, kConstant, 9), {9, 9, 0, 1, 2, 9, 9}, 0, "constant");
    check_values(pad(row, {2, 2}, kReflect), {2, 1, 0, 1, 2, 1, 0}, 0, "reflect");
    check_values(pad(row, {2, 2}, kReplicate), {0, 0, 0, 1, 2, 2, 2}, 0, "replicate");
    check_values(pad(row, {2, 2}, kCircular), {1, 2, 0, 1, 2, 0, 1}, 0, "circular");
    // The gradient of the sum: how many outputs copy each input.
    const Tensor a = zeros({1, 1, 3}, TensorOptions().dtype(t).device(kGpu)).requires_grad_();
    pad(a, {2, 2}, kReplicate).sum().backward();
    check_values(a.grad(), {3, 1, 3}, 0, "replicate gradient of the sum");
  }
}

TEST_CASE("cuda pad: gradients of gradients (create_graph) match the CPU", "[cuda_nn]") {
  manual_seed(43);
  for (PadMode mode : {kConstant, kReflect, kReplicate, kCircular}) {
    INFO(mode);
    compare_gradients_of_gradients([mode](const Tensor& x) { return pad(x, {2, 1, 3, 2}, mode); },
                                   random_nonzero({2, 3, 5, 7}, kDouble));
  }
}
