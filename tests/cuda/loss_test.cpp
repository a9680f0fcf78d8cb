// The fused CUDA cross-entropy (kernels/cuda/cross_entropy.cu) against the
// CPU's: (N, C) and (N, C, d) scores (class dim innermost or transposed
// there), 1 to 1025 classes (a warp and a block per row), class weights,
// ignore_index, label smoothing, every reduction, forward and backward, and
// the composed gradient under create_graph; a bad target reported
// asynchronously (kernels/cuda/indexing.h) and no host sync. Tolerance,
// relative to max(1, |cpu value|): float32 1e-5 (exp in float32 on both
// devices; sums in double), float64 1e-12.
#include <ember/ember.h>
#include <ember/nn/functional/loss.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "cuda_test_helpers.h"

using namespace ember;
using namespace cuda_test;
namespace F = ember::nn::functional;

namespace {

double tol(ScalarType t) { return t == kFloat ? 1e-5 : 1e-12; }

struct Case {
  std::string name;
  DimVector shape;  // scores; the class dim is 1 (0 for a 1-d input)
};

// Targets in [0, C), every third one ignore_index (-100) when `ignore`.
Tensor random_targets(const DimVector& scores, bool ignore) {
  const int64_t class_dim = scores.size() == 1 ? 0 : 1, classes = scores[class_dim];
  DimVector shape;
  for (size_t d = 0; d < scores.size(); ++d)
    if (static_cast<int64_t>(d) != class_dim) shape.push_back(scores[d]);
  Tensor t = (rand(shape, kDouble) * classes).to(kLong).clamp(0, classes - 1);
  if (ignore && t.numel() > 0) {
    Tensor flat = t.reshape({-1});
    for (int64_t i = 0; i < flat.numel(); i += 3) flat.data_ptr<int64_t>()[i] = -100;
    t = flat.view(shape);
  }
  return t;
}

}  // namespace

TEST_CASE("cuda cross_entropy matches the CPU forward and backward", "[cuda_reduce]") {
  const std::vector<Case> cases = {
      {"1-d", {7}},          {"one class", {5, 1}},       {"31 classes", {8, 31}},
      {"1025 classes", {4, 1025}}, {"spatial", {3, 5, 4, 2}}, {"no lines", {0, 6}},
  };
  for (const Case& c : cases)
    for (ScalarType t : {kFloat, kDouble})
      for (bool weighted : {false, true})
        for (bool ignore : {false, true})
          for (double smoothing : {0.0, 0.2})
            for (auto reduction : {kNone, kSum, kMean}) {
              const int64_t classes = c.shape[c.shape.size() == 1 ? 0 : 1];
              INFO(c.name << ", " << t << ", weighted " << weighted << ", ignore " << ignore
                          << ", smoothing " << smoothing);
              const Tensor x = random_nonzero(c.shape, t) * 3;
              const Tensor target = random_targets(c.shape, ignore && c.shape.size() > 1);
              auto options = F::CrossEntropyFuncOptions().label_smoothing(smoothing).reduction(
                  reduction);
              auto gpu_options = options;
              if (weighted) {
                const Tensor w = rand({classes}, t) + 0.5;
                options.weight(w);
                gpu_options.weight(w.to(kGpu));
              }
              const Tensor xc = cpu_leaf(x), xg = gpu_leaf(x);
              const Tensor lc = F::cross_entropy(xc, target, options);
              const Tensor lg = F::cross_entropy(xg, target.to(kGpu), gpu_options);
              check_same(lg, lc, tol(t));
              const Tensor g = random_nonzero(lc.sizes(), t);
              lc.backward(g);
              lg.backward(g.to(kGpu));
              if (x.numel() > 0) check_same(xg.grad(), xc.grad(), tol(t));
            }
}

TEST_CASE("cuda cross_entropy under create_graph matches the CPU's composed gradient",
          "[cuda_reduce]") {
  const Tensor x = random_nonzero({6, 9}, kDouble);
  const Tensor target = random_targets({6, 9}, false);
  auto options = F::CrossEntropyFuncOptions().label_smoothing(0.1);
  const Tensor xc = cpu_leaf(x), xg = gpu_leaf(x);
  const Tensor gc = autograd::grad({F::cross_entropy(xc, target, options)}, {xc}, {}, true,
                                   true)[0];
  const Tensor gg = autograd::grad({F::cross_entropy(xg, target.to(kGpu), options)}, {xg}, {},
                                   true, true)[0];
  check_same(gg, gc, 1e-12);
  (gc * gc).sum().backward();
  (gg * gg).sum().backward();
  check_same(xg.grad(), xc.grad(), 1e-12);
}

TEST_CASE("cuda cross_entropy reports an out-of-range target asynchronously: at the next "
          "cross-entropy or indexing call or check_index_errors, once, with the CPU's words",
          "[cuda_reduce]") {
  cuda::check_index_errors();  // nothing pending from earlier tests
  const TensorOptions longs = TensorOptions(kLong).device(kGpu);
  const Tensor x = random_nonzero({2, 3}, kFloat).to(kGpu);
  const Tensor good = tensor({2, 0}, TensorOptions(kLong)).to(kGpu);
  const Tensor bad = tensor({0, 3}, TensorOptions(kLong)).to(kGpu);
  const auto none = F::CrossEntropyFuncOptions().reduction(kNone);
  cuda::synchronize();
  const uint64_t before = cuda::sync_count();
  const Tensor loss = F::cross_entropy(x, bad, none);  // launches; no wait
  CHECK(cuda::sync_count() == before);
  REQUIRE_THROWS_WITH(cuda::check_index_errors(),
                      Catch::Contains("cross_entropy: target 3 is out of bounds for 3 classes "
                                      "(valid range [0, 2], or ignore_index -100)") &&
                          Catch::Contains("reported asynchronously"));
  REQUIRE_NOTHROW(cuda::check_index_errors());  // once
  // The bad line's loss is NaN (nothing read outside the row); the good one's as the CPU.
  const Tensor lc = loss.cpu();
  CHECK(std::isnan(lc.data_ptr<float>()[1]));
  CHECK(lc.data_ptr<float>()[0] ==
        Approx(F::cross_entropy(x.cpu().narrow(0, 0, 1), tensor({0}, TensorOptions(kLong)))
                   .item<float>())
            .epsilon(1e-5));

  // The next cross-entropy call raises it before it launches; then the report is clear.
  (void)F::cross_entropy(x, tensor({-1, 0}, TensorOptions(kLong)).to(kGpu));
  cuda::synchronize();
  REQUIRE_THROWS_WITH(F::cross_entropy(x, good),
                      Catch::Contains("cross_entropy: target -1 is out of bounds for 3 classes"));
  REQUIRE_NOTHROW(F::cross_entropy(x, good));
  REQUIRE_NOTHROW(cuda::check_index_errors());

  // So does the next indexing call, and a cross-entropy call an indexing kernel's report.
  (void)F::cross_entropy(x, bad);
  cuda::synchronize();
  REQUIRE_THROWS_WITH(x.index_select(0, zeros({1}, longs)),
                      Catch::Contains("cross_entropy: target 3 is out of bounds"));
  (void)x.gather(1, full({2, 1}, 5, longs));
  cuda::synchronize();
  REQUIRE_THROWS_WITH(F::cross_entropy(x, good),
                      Catch::Contains("gather: index 5 is out of bounds for dimension 1"));
  REQUIRE_NOTHROW(cuda::check_index_errors());

  // A custom ignore_index is not a bad target; the default -100 then is.
  const Tensor seven = tensor({7, 1}, TensorOptions(kLong)).to(kGpu);
  (void)F::cross_entropy(x, seven, F::CrossEntropyFuncOptions().ignore_index(7));
  REQUIRE_NOTHROW(cuda::check_index_errors());
  (void)F::cross_entropy(x, tensor({-100, 1}, TensorOptions(kLong)).to(kGpu),
                         F::CrossEntropyFuncOptions().ignore_index(7));
  REQUIRE_THROWS_WITH(cuda::check_index_errors(),
                      Catch::Contains("cross_entropy: target -100 is out of bounds for 3 classes "
                                      "(valid range [0, 2], or ignore_index 7)"));

  // Many bad lines in one launch, short and long rows: still one report, with their value.
  for (int64_t classes : {5, 1025}) {
    INFO("classes " << classes);
    const Tensor xs = random_nonzero({3000, classes}, kFloat).to(kGpu);
    (void)F::cross_entropy(xs, full({3000}, classes, longs));
    const std::string want = "target " + std::to_string(classes) + " is out of bounds for " +
                             std::to_string(classes) + " classes";
    REQUIRE_THROWS_WITH(cuda::check_index_errors(), Catch::Contains(want));
    REQUIRE_NOTHROW(cuda::check_index_errors());
  }
}

TEST_CASE("cuda nll_loss reports an out-of-range target under its own name, once",
          "[cuda_reduce]") {
  cuda::check_index_errors();
  const Tensor x = random_nonzero({2, 3}, kDouble).to(kGpu);
  const Tensor w = tensor({1.0, 2.0, 3.0}, TensorOptions(kDouble)).to(kGpu);
  for (bool weighted : {false, true}) {
    INFO("weighted " << weighted);
    auto options = F::NLLLossFuncOptions();
    if (weighted) options.weight(w);
    // Its gather (and the weight's index_select) read the bad target after the check
    // kernel has claimed the report: they stay quiet. The report is raised once, by
    // nll_loss itself (its gather's entry, when the check kernel has run by then) or
    // by check_index_errors.
    std::vector<std::string> raised;
    auto record = [&](auto&& f) {
      try {
        f();
      } catch (const Error& e) {
        raised.push_back(e.what());
      }
    };
    record([&] { (void)F::nll_loss(x, tensor({5, 0}, TensorOptions(kLong)).to(kGpu), options); });
    record([] { cuda::check_index_errors(); });
    REQUIRE(raised.size() == 1);
    CHECK_THAT(raised[0], Catch::Contains("nll_loss: target 5 is out of bounds for 3 classes "
                                          "(valid range [0, 2], or ignore_index -100)"));
    REQUIRE_NOTHROW(cuda::check_index_errors());
  }
  // ignore_index and in-range targets are fine, and match the CPU.
  const Tensor t = tensor({-100, 2}, TensorOptions(kLong));
  check_same(F::nll_loss(x, t.to(kGpu)), F::nll_loss(x.cpu(), t), 1e-12);
  REQUIRE_NOTHROW(cuda::check_index_errors());
}

TEST_CASE("cuda cross_entropy and nll_loss forward and backward make no host synchronization",
          "[cuda_reduce]") {
  const Tensor x = gpu_leaf(random_nonzero({16, 10, 3}, kFloat));
  const Tensor target = random_targets({16, 10, 3}, true).to(kGpu);
  const Tensor w = (rand({10}) + 0.5).to(kGpu);
  cuda::synchronize();
  const uint64_t before = cuda::sync_count();
  for (auto reduction : {kNone, kSum, kMean}) {
    const auto options = F::CrossEntropyFuncOptions().weight(w).label_smoothing(0.1).reduction(
        reduction);
    Tensor loss = F::cross_entropy(x, target, options);
    if (reduction == kNone) loss = loss.sum();
    loss.backward();
    Tensor nll = F::nll_loss(x, target, F::NLLLossFuncOptions().weight(w).reduction(reduction));
    if (reduction == kNone) nll = nll.sum();
    nll.backward();
  }
  CHECK(cuda::sync_count() == before);
  REQUIRE_NOTHROW(cuda::check_index_errors());
}

TEST_CASE("cuda cross_entropy with mean and class weights divides by the counted weights",
          "[cuda_reduce]") {
  // Hand-computed: lines 0 and 2 count (weights 2 and 0.5), line 1 is ignored.
  const Tensor x = zeros({3, 4}, kDouble).to(kGpu);  // uniform scores: each loss is log 4 * w
  const Tensor target = tensor({1, 0, 3}, TensorOptions(kLong)).to(kGpu);
  Tensor target_ignored = target.clone();
  target_ignored.narrow(0, 1, 1).fill_(-100);
  const Tensor w = tensor({7.0, 2.0, 1.0, 0.5}, TensorOptions(kDouble)).to(kGpu);
  const Tensor loss = F::cross_entropy(x, target_ignored, F::CrossEntropyFuncOptions().weight(w));
  REQUIRE(loss.item<double>() == Approx(std::log(4.0)).epsilon(1e-12));
  const Tensor sum = F::cross_entropy(
      x, target_ignored, F::CrossEntropyFuncOptions().weight(w).reduction(kSum));
  REQUIRE(sum.item<double>() == Approx(2.5 * std::log(4.0)).epsilon(1e-12));
}

TEST_CASE("cuda cross_entropy reads transposed and sliced scores as the CPU", "[cuda_reduce]") {
  for (ScalarType t : {kFloat, kDouble}) {
    const Tensor base = random_nonzero({40, 2 * 33}, t);  // viewed as (33, 40) or (40, 33)
    const Tensor target_t = random_targets({33, 40}, true), target_s = random_targets({40, 33},
                                                                                      true);
    for (bool transposed : {true, false}) {
      INFO(t << (transposed ? ", transposed" : ", sliced"));
      auto view = [transposed](const Tensor& b) {
        return transposed ? b.slice(1, 0, 33).t() : b.slice(1, 1, 2 * 33, 2);
      };
      const Tensor& target = transposed ? target_t : target_s;
      const Tensor bc = cpu_leaf(base), bg = gpu_leaf(base);
      const Tensor lc = F::cross_entropy(view(bc), target);
      const Tensor lg = F::cross_entropy(view(bg), target.to(kGpu));
      check_same(lg, lc, tol(t));
      lc.backward();
      lg.backward();
      check_same(bg.grad(), bc.grad(), tol(t));
    }
  }
}
