// The CUDA softmax, log_softmax and logsumexp (kernels/cuda/softmax.cu)
// against the CPU: rows of 0, 1, 31, 1025 and 5000 elements (a warp per row
// and a block per row), the softmax dim innermost or not (transposed there),
// non-contiguous and broadcast inputs, float32 and float64, forward and
// backward, rows holding -inf and NaN. Tolerance, relative to
// max(1, |cpu value|): float32 1e-5 (exp in float32 on both devices, whose
// libm and CUDA's expf may differ by an ulp; sums in double), float64 1e-12.
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "cuda_test_helpers.h"

using namespace ember;
using namespace cuda_test;

namespace {

// The inputs the softmax family runs on.
std::vector<ViewedInput> inputs() {
  std::vector<ViewedInput> out;
  for (int64_t n : {0, 1, 31, 1025, 5000})
    out.push_back({"rows of " + std::to_string(n), [n](ScalarType t) {
                     return random_nonzero({3, n}, t) * 4;
                   }});
  out.push_back({"0-d", [](ScalarType t) { return random_nonzero({}, t); }});
  // dim 1: 16 x 1024 lines along a wide inner dim (the column kernel), sliced
  out.push_back({"wide columns", [](ScalarType t) { return random_nonzero({16, 9, 2048}, t); },
                 [](const Tensor& b) { return b.slice(2, 0, 2048, 2); }});
  out.push_back({"3-d", [](ScalarType t) { return random_nonzero({4, 31, 6}, t) * 4; }});
  out.push_back({"transposed", [](ScalarType t) { return random_nonzero({33, 31}, t); },
                 [](const Tensor& b) { return b.t(); }});
  out.push_back({"sliced", [](ScalarType t) { return random_nonzero({31, 66}, t); },
                 [](const Tensor& b) { return b.slice(1, 1, 66, 2); }});
  out.push_back({"expanded", [](ScalarType t) { return random_nonzero({1, 33}, t); },
                 [](const Tensor& b) { return b.expand({31, 33}); }});
  return out;
}

double tol(ScalarType t) { return t == kFloat ? 1e-5 : 1e-12; }

}  // namespace

TEST_CASE("cuda softmax and log_softmax match the CPU along every dim", "[cuda_reduce]") {
  for (ScalarType t : {kFloat, kDouble})
    for (const ViewedInput& in : inputs()) {
      Tensor g;
      const Tensor x = in.cpu(t, &g);
      for (int64_t d = -1; d < std::max<int64_t>(x.dim(), 1); ++d) {
        INFO(in.name << ", " << t << ", dim " << d);
        check_same(softmax(g, d), softmax(x, d), tol(t));
        check_same(log_softmax(g, d), log_softmax(x, d), tol(t));
      }
    }
  const Tensor l = random_nonzero({5, 7}, kLong);  // an integer input with a dtype
  check_same(softmax(l.to(kGpu), 1, kFloat), softmax(l, 1, kFloat), 1e-5);
}

TEST_CASE("cuda logsumexp matches the CPU over every dim list", "[cuda_reduce]") {
  for (ScalarType t : {kFloat, kDouble})
    for (const ViewedInput& in : inputs()) {
      Tensor g;
      const Tensor x = in.cpu(t, &g);
      std::vector<DimVector> dim_lists = {DimVector{0}};
      if (x.dim() >= 2) dim_lists = {DimVector{0}, DimVector{1}, DimVector{0, 1}, DimVector{-1}};
      for (const DimVector& dims : dim_lists)
        for (bool keepdim : {false, true}) {
          INFO(in.name << ", " << t << ", dims " << dims.ref() << ", keepdim " << keepdim);
          check_same(logsumexp(g, dims, keepdim), logsumexp(x, dims, keepdim), tol(t));
        }
    }
}

TEST_CASE("cuda softmax handles -inf, +inf and NaN entries as the CPU", "[cuda_reduce]") {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (ScalarType t : {kFloat, kDouble}) {
    Tensor x = random_nonzero({5, 40}, kDouble);
    double* p = x.data_ptr<double>();
    for (int k = 0; k < 40; k += 2) p[k] = -inf;  // row 0: half masked
    for (int k = 40; k < 80; ++k) p[k] = -inf;    // row 1: all masked (NaN)
    p[80 + 3] = inf;                              // row 2: one +inf
    p[120 + 7] = nan;                             // row 3: NaN
    x = x.to(t);
    const Tensor g = x.to(kGpu);
    check_same(softmax(g, 1), softmax(x, 1), tol(t));
    check_same(log_softmax(g, 1), log_softmax(x, 1), tol(t));
    check_same(logsumexp(g, {1}), logsumexp(x, {1}), tol(t));
  }
}

TEST_CASE("cuda softmax, log_softmax and logsumexp gradients match the CPU", "[cuda_reduce]") {
  using Op = std::function<Tensor(const Tensor&)>;
  const std::vector<std::pair<std::string, Op>> ops = {
      {"softmax last", [](const Tensor& x) { return softmax(x, -1); }},
      {"softmax first", [](const Tensor& x) { return softmax(x, 0); }},
      {"log_softmax last", [](const Tensor& x) { return log_softmax(x, -1); }},
      {"log_softmax first", [](const Tensor& x) { return log_softmax(x, 0); }},
      {"logsumexp", [](const Tensor& x) { return logsumexp(x, {-1}, false); }},
  };
  for (const auto& [name, op] : ops)
    for (ScalarType t : {kFloat, kDouble})
      for (const ViewedInput& in : inputs()) {
        INFO(name << " backward on " << in.name << ", " << t);
        compare_input_grad(in, t, op, tol(t));
      }
}
