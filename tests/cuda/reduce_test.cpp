// The CUDA reductions (kernels/cuda/reduce*.cu) against the same ops on the
// CPU: every reduction of core/ops/reduction/reduce.cpp, forward and backward, on random
// non-zero data of sizes 0, 1, 31 and 1025, a 2^24 + 3 element sum (the
// two-pass path), transposed, sliced, permuted 3-d and expanded (broadcast)
// inputs, inputs whose dims do not merge into the kernel's 8 of a kind, each
// dtype the op accepts; argmax ties and NaN. Tolerances, relative to
// max(1, |cpu value|): integer and bool results and indices exact; float32 sums,
// means, var, std and norms 1e-5 (both devices accumulate in double; the
// order of the additions differs); float32 max/min exact; float64 1e-12.
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

using Reduction = std::function<Tensor(const Tensor&)>;

// The inputs each reduction runs on: 1-d of several sizes, and 2-d dense,
// transposed, sliced and expanded (each a ViewedInput).
std::vector<ViewedInput> inputs() {
  std::vector<ViewedInput> out;
  for (int64_t n : {0, 1, 31, 1025})
    out.push_back({"dense " + std::to_string(n), [n](ScalarType t) {
                     return random_nonzero({n}, t);
                   }});
  out.push_back({"2-d", [](ScalarType t) { return random_nonzero({31, 33}, t); }});
  out.push_back({"transposed", [](ScalarType t) { return random_nonzero({33, 31}, t); },
                 [](const Tensor& b) { return b.t(); }});
  out.push_back({"sliced", [](ScalarType t) { return random_nonzero({31, 2 * 33}, t); },
                 [](const Tensor& b) { return b.slice(1, 1, 2 * 33, 2); }});
  out.push_back({"expanded", [](ScalarType t) { return random_nonzero({31, 1}, t); },
                 [](const Tensor& b) { return b.expand({31, 33}); }});
  out.push_back({"3-d permuted", [](ScalarType t) { return random_nonzero({5, 7, 9}, t); },
                 [](const Tensor& b) { return b.permute({2, 0, 1}); }});
  out.push_back({"long rows", [](ScalarType t) { return random_nonzero({3, 5000}, t); }});
  out.push_back({"long columns", [](ScalarType t) { return random_nonzero({5000, 3}, t); }});
  return out;
}

// op on every input (1-d inputs: all dims, 2-d: each dim list) against the CPU.
void compare_forward(const std::string& name, ScalarType t, double f32_tol,
                     const std::function<Tensor(const Tensor&, IntArrayRef, bool)>& op) {
  for (const ViewedInput& in : inputs()) {
    Tensor g;
    const Tensor x = in.cpu(t, &g);
    std::vector<DimVector> dim_lists = {DimVector{}};
    if (x.dim() == 2) dim_lists = {DimVector{}, DimVector{0}, DimVector{1}, DimVector{-1, 0}};
    if (x.dim() == 3)  // inner, outer and middle dims, and kept dims on both sides
      dim_lists = {DimVector{}, DimVector{0}, DimVector{1}, DimVector{2}, DimVector{2, 0},
                   DimVector{0, 1}};
    for (const DimVector& dims : dim_lists)
      for (bool keepdim : {false, true}) {
        INFO(name << " on " << in.name << ", " << t << ", dims " << dims.ref() << ", keepdim "
                  << keepdim);
        const Tensor want = op(x, dims, keepdim);
        check_same(op(g, dims, keepdim), want, tolerance(want.scalar_type(), f32_tol));
      }
  }
}

// The gradient of sum(op(view(base)) * w) (w random) on CUDA against the CPU's.
void compare_backward(const std::string& name, double f32_tol, const Reduction& op) {
  for (const ViewedInput& in : inputs()) {
    for (ScalarType t : {kFloat, kDouble}) {
      INFO(name << " backward on " << in.name << ", " << t);
      compare_input_grad(in, t, op, tolerance(t, f32_tol));
    }
  }
}

}  // namespace

TEST_CASE("cuda sum matches the CPU for every dtype, layout and dim list", "[cuda_reduce]") {
  for (ScalarType t : {kFloat, kDouble, kLong, kBool})
    compare_forward("sum", t, 1e-5, [](const Tensor& x, IntArrayRef d, bool k) {
      return sum(x, d, k);
    });
  compare_forward("sum as float64", kFloat, 1e-12, [](const Tensor& x, IntArrayRef d, bool k) {
    return sum(x, d, k, kDouble);
  });
}

TEST_CASE("cuda sum of 2^24 + 3 elements runs in two passes and matches the CPU",
          "[cuda_reduce]") {
  const Tensor x = random_nonzero({(int64_t(1) << 24) + 3}, kFloat);
  check_same(x.to(kGpu).sum(), x.sum(), 1e-5);
  const Tensor ones_gpu = ones({(int64_t(1) << 24) + 3}, TensorOptions().device(kGpu));
  // Exact: the float32 ones summed in double (the float32 result would round).
  REQUIRE(ones_gpu.sum(kDouble).item<double>() == double((int64_t(1) << 24) + 3));
  const Tensor l = random_nonzero({(int64_t(1) << 24) + 3}, kLong);
  check_same(l.to(kGpu).sum(), l.sum(), 0);
  const Tensor cols = random_nonzero({(int64_t(1) << 20) + 3, 4}, kDouble);
  // ~2^20 float64 terms of size ~1 in another order: absolute error ~1e-11
  // while a column's sum may be near 0, so the tolerance is not 1e-12.
  check_same(cols.to(kGpu).sum({0}), cols.sum({0}), 1e-9);
}

TEST_CASE("cuda mean, var, std, norm, amax and amin match the CPU", "[cuda_reduce]") {
  for (ScalarType t : {kFloat, kDouble}) {
    compare_forward("mean", t, 1e-5, [](const Tensor& x, IntArrayRef d, bool k) {
      return mean(x, d, k);
    });
    for (bool unbiased : {true, false}) {
      compare_forward("var", t, 1e-5, [unbiased](const Tensor& x, IntArrayRef d, bool k) {
        return var(x, d, unbiased, k);
      });
      compare_forward("std", t, 1e-5, [unbiased](const Tensor& x, IntArrayRef d, bool k) {
        return ember::std(x, d, unbiased, k);
      });
    }
    for (double p : {1.0, 2.0, 3.0, 0.5})
      compare_forward("norm", t, 1e-5, [p](const Tensor& x, IntArrayRef d, bool k) {
        return norm(x, p, d, k);
      });
  }
  for (ScalarType t : {kFloat, kDouble})
    for (double p : {double(INFINITY), -double(INFINITY), 0.0})
      compare_forward("norm", t, 0, [p](const Tensor& x, IntArrayRef d, bool k) {
        return x.numel() == 0 ? sum(x, d, k) : norm(x, p, d, k);  // (no inf-norm of nothing)
      });
  for (ScalarType t : {kFloat, kDouble, kLong, kBool}) {
    // (an empty input has no amax: its sum stands in)
    compare_forward("amax", t, 0, [](const Tensor& x, IntArrayRef d, bool k) {
      return x.numel() == 0 ? sum(x, d, k) : amax(x, d, k);
    });
    compare_forward("amin", t, 0, [](const Tensor& x, IntArrayRef d, bool k) {
      return x.numel() == 0 ? sum(x, d, k) : amin(x, d, k);
    });
  }
  compare_forward("mean of int64 as float", kLong, 1e-5,
                  [](const Tensor& x, IntArrayRef d, bool k) { return mean(x, d, k, kFloat); });
}

TEST_CASE("cuda max, min, all and any over all elements match the CPU", "[cuda_reduce]") {
  for (ScalarType t : {kFloat, kDouble, kLong, kBool})
    for (const ViewedInput& in : inputs()) {
      Tensor g;
      const Tensor x = in.cpu(t, &g);
      INFO(in.name << ", " << t);
      check_same(all(g), all(x), 0);
      check_same(any(g), any(x), 0);
      if (x.numel() == 0) {
        REQUIRE_THROWS_WITH(max(g), Catch::Contains("max: cannot reduce an empty tensor"));
        continue;
      }
      check_same(max(g), max(x), 0);
      check_same(min(g), min(x), 0);
      if (t == kBool) {  // as PyTorch
        REQUIRE_THROWS_WITH(argmax(g), Catch::Contains("argmax: not implemented for bool"));
        continue;
      }
      check_same(argmax(g), argmax(x), 0);
      check_same(argmin(g), argmin(x), 0);
    }
}

TEST_CASE("cuda max, min, argmax and argmin along a dim match the CPU", "[cuda_reduce]") {
  for (ScalarType t : {kFloat, kDouble, kLong, kBool})
    for (const ViewedInput& in : inputs())
      for (int64_t d = 0; d < in.view(in.base(t)).dim(); ++d)
        for (bool keepdim : {false, true}) {
          Tensor g;
          const Tensor x = in.cpu(t, &g);
          INFO(in.name << ", " << t << ", dim " << d << ", keepdim " << keepdim);
          if (x.size(d) == 0) continue;
          auto [cv, ci] = max(x, d, keepdim);
          auto [gv, gi] = max(g, d, keepdim);
          check_same(gv, cv, 0);
          check_same(gi, ci, 0);
          auto [cmv, cmi] = min(x, d, keepdim);
          auto [gmv, gmi] = min(g, d, keepdim);
          check_same(gmv, cmv, 0);
          check_same(gmi, cmi, 0);
          if (t == kBool) continue;  // (argmax refuses bool, as PyTorch)
          check_same(argmax(g, d, keepdim), argmax(x, d, keepdim), 0);
          check_same(argmin(g, d, keepdim), argmin(x, d, keepdim), 0);
        }
}

TEST_CASE("cuda argmax keeps the first of equal values, over lanes and splits",
          "[cuda_reduce]") {
  // Equal maxima at 7, 3000 and 90000 of a 100000-long row (lanes and two
  // passes); bool rows are all ties.
  Tensor x = zeros({2, 100000}, kFloat);
  float* p = x.data_ptr<float>();
  p[7] = p[3000] = p[90000] = 5;
  p[100000 + 99999] = p[100000 + 50] = -1;
  const Tensor g = x.to(kGpu);
  const Tensor best = argmax(g, 1).cpu(), worst = argmin(g, 1).cpu();
  REQUIRE(best.data_ptr<int64_t>()[0] == 7);
  REQUIRE(best.data_ptr<int64_t>()[1] == 0);
  REQUIRE(worst.data_ptr<int64_t>()[0] == 0);
  REQUIRE(worst.data_ptr<int64_t>()[1] == 50);
  REQUIRE(argmax(g).item<int64_t>() == 7);
  const Tensor b = ones({5000}, kBool).to(kGpu);
  REQUIRE(std::get<1>(max(b, 0)).item<int64_t>() == 0);
  REQUIRE(std::get<1>(min(b, 0)).item<int64_t>() == 0);
  const Tensor cols = zeros({6000, 3}, kDouble).to(kGpu);  // ties down columns: row 0
  REQUIRE(argmax(cols, 0).cpu().sum().item<int64_t>() == 0);
}

TEST_CASE("cuda max and argmax propagate NaN as the CPU", "[cuda_reduce]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (ScalarType t : {kFloat, kDouble}) {
    Tensor x = random_nonzero({4, 3000}, t).to(kDouble);
    double* p = x.data_ptr<double>();
    p[2000] = nan;        // row 0
    p[3000 + 5] = nan;    // row 1: two NaNs, the first wins
    p[3000 + 2999] = nan;
    x = x.to(t);
    const Tensor g = x.to(kGpu);
    check_same(max(g), max(x), 0);
    check_same(min(g), min(x), 0);
    check_same(argmax(g), argmax(x), 0);
    check_same(std::get<0>(max(g, 1)), std::get<0>(max(x, 1)), 0);
    check_same(std::get<1>(max(g, 1)), std::get<1>(max(x, 1)), 0);
    check_same(std::get<1>(min(g, 0)), std::get<1>(min(x, 0)), 0);
    check_same(sum(g, {1}), sum(x, {1}), tolerance(t, 1e-5));
    check_same(any(g), any(x), 0);
  }
}

TEST_CASE("cuda reductions of empty tensors give the identity or raise as the CPU",
          "[cuda_reduce]") {
  const Tensor x = zeros({0, 4}, TensorOptions().device(kGpu));
  check_same(sum(x, {0}), sum(x.cpu(), {0}), 0);
  check_same(mean(x, {0}), mean(x.cpu(), {0}), 0);  // NaN
  check_same(all(x), all(x.cpu()), 0);
  check_same(any(x), any(x.cpu()), 0);
  REQUIRE(sum(zeros({4, 0}, TensorOptions().device(kGpu)), {0}).numel() == 0);
  REQUIRE_THROWS_WITH(max(x, 0), Catch::Contains("max: cannot reduce over dimension 0 of size 0"));
}

TEST_CASE("cuda reduction gradients match the CPU", "[cuda_reduce]") {
  compare_backward("sum", 1e-6, [](const Tensor& x) { return x.sum({-1}); });
  compare_backward("sum all", 1e-6, [](const Tensor& x) { return x.sum(); });
  compare_backward("mean", 1e-6, [](const Tensor& x) { return x.mean({0}, true); });
  compare_backward("var", 1e-5, [](const Tensor& x) { return var(x, {-1}, true, false); });
  compare_backward("std", 1e-5, [](const Tensor& x) { return x.std(); });
  compare_backward("norm 2", 1e-5, [](const Tensor& x) { return x.norm(2); });
  compare_backward("norm 3", 1e-5,
                   [](const Tensor& x) { return norm(x, 3.0, {-1}, false); });
  compare_backward("norm 1", 1e-6, [](const Tensor& x) { return norm(x, 1.0, {0}, true); });
  // (an empty input has no max along a dim: its sum stands in)
  compare_backward("max along a dim", 0, [](const Tensor& x) {
    return x.numel() == 0 ? x.sum() : std::get<0>(max(x, -1, false));
  });
  compare_backward("min along a dim", 0, [](const Tensor& x) {
    return x.numel() == 0 ? x.sum() : std::get<0>(min(x, 0, true));
  });
  compare_backward("max", 1e-6, [](const Tensor& x) {
    return x.numel() == 0 ? x.sum() : max(x);
  });
  compare_backward("amax over dims", 1e-6, [](const Tensor& x) {
    return x.numel() == 0 ? x.sum() : amax(x, {0}, true);
  });
  compare_backward("inf norm", 1e-6, [](const Tensor& x) {
    return x.numel() == 0 ? x.sum() : norm(x, INFINITY, {-1}, false);
  });
  compare_backward("sum_to", 1e-6, [](const Tensor& x) {
    return x.dim() == 2 ? sum_to(x, {1, x.size(1)}) : sum_to(x, {});
  });
}

TEST_CASE("cuda reductions over dims that do not merge into 8 of a kind match the CPU",
          "[cuda_reduce]") {
  // 18 dims of 2, every other one reduced: 9 kept and 9 reduced dims that no
  // merging joins, so the kernel reads a copy with the reduced dims last.
  const Tensor x = random_nonzero(DimVector(18, 2), kFloat);
  DimVector every_other;
  for (int64_t d = 0; d < 18; d += 2) every_other.push_back(d);
  const Tensor g = x.to(kGpu);
  for (bool keepdim : {false, true}) {
    INFO("keepdim " << keepdim);
    check_same(sum(g, every_other, keepdim), sum(x, every_other, keepdim), 1e-5);
    check_same(norm(g, 3.0, every_other, keepdim), norm(x, 3.0, every_other, keepdim), 1e-5);
  }
  // A 10-d tensor with its dims reversed: neighbours in memory are not
  // neighbours in the output, so 9 kept dims stay apart; max along one dim.
  DimVector reversed;
  for (int64_t d = 9; d >= 0; --d) reversed.push_back(d);
  const Tensor y = random_nonzero(DimVector(10, 3), kDouble);
  const Tensor yc = y.permute(reversed), yg = y.to(kGpu).permute(reversed);
  for (int64_t d : {0, 4, 9}) {
    INFO("dim " << d);
    auto [cv, ci] = max(yc, d, false);
    auto [gv, gi] = max(yg, d, false);
    check_same(gv, cv, 0);
    check_same(gi, ci, 0);
    check_same(sum(yg, {d}, true), sum(yc, {d}, true), 1e-12);
  }
}
