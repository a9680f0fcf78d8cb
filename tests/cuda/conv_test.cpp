// conv2d and conv_transpose2d on cuDNN (kernels/cuda/cudnn_conv.*) against
// the same ops on the CPU in float64: forward and backward (input, weight and
// bias gradients) on odd shapes, by cuDNN's heuristic and in benchmark mode,
// every algorithm a benchmark search ranked, deterministic mode, no workspace
// allowed, non-contiguous GPU views, several threads on one new key; the
// benchmark cache's statistics and a save/load round trip; a gradient penalty
// (double backward); memory back to its level once the gradients are dropped.
//
// Error bound: each element's error is compared with its magnitude, the same
// op run on |x|, |w|, |b| (and |gy| for the gradients), which bounds every
// rounding error of a sum of products: 1e-4 of it for float32 with TF32 off
// (FFT and Winograd algorithms included), 5e-3 with TF32 (10-bit mantissa
// products), 1e-12 for float64. A wrong index or algorithm errs by about the
// magnitude itself.
#include <ember/core/backends.h>
#include <ember/core/ops/nn_ops/conv.h>
#include <ember/ember.h>
#include <ember/kernels/common/benchmark_cache.h>
#include <ember/kernels/common/cuda_plans/cudnn_conv_plan.h>
#include <ember/core/cuda/memory.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <unistd.h>
#include <utility>
#include <vector>

#include "cuda_test_helpers.h"

using namespace ember;
using namespace cuda_test;
namespace cudnn = ember::backends::cudnn;

namespace {

double conv_tolerance(ScalarType t) {
  if (t == kDouble) return 1e-12;
  return cudnn::allow_tf32() ? 5e-3 : 1e-4;
}

// With TF32, cuDNN may run Winograd or FFT algorithms on tensor cores: their
// transforms combine inputs before the TF32 rounding and so enlarge it; the
// bound for a product-sum (conv_tolerance) is widened for those runs.
constexpr double kTransformTf32Factor = 10;

// got (from CUDA, of dtype `dtype`) against want (float64, CPU): each element
// within tol of its magnitude `scale` (floored at 1% of the largest, for
// elements that no product reaches).
void check_close(const Tensor& got, ScalarType dtype, const Tensor& want, const Tensor& scale,
                 double tol) {
  REQUIRE(got.defined());
  REQUIRE(got.is_cuda());
  REQUIRE(got.scalar_type() == dtype);
  REQUIRE(got.sizes() == want.sizes());
  const Tensor g = got.cpu().to(kDouble).contiguous(), w = want.to(kDouble).contiguous(),
               s = scale.to(kDouble).contiguous();
  const double *pg = g.data_ptr<double>(), *pw = w.data_ptr<double>(), *ps = s.data_ptr<double>();
  double max_scale = 0;
  for (int64_t i = 0; i < s.numel(); ++i) max_scale = std::max(max_scale, ps[i]);
  int64_t worst = -1;
  double worst_ratio = 0;
  for (int64_t i = 0; i < g.numel(); ++i) {
    const double bound = tol * std::max(ps[i], 1e-2 * max_scale);
    const double err = std::abs(pg[i] - pw[i]);
    double ratio = bound > 0 ? err / bound : (err == 0 ? 0 : INFINITY);
    if (std::isnan(ratio)) ratio = INFINITY;
    if (ratio > worst_ratio) {
      worst_ratio = ratio;
      worst = i;
    }
  }
  if (worst >= 0) {
    INFO(std::setprecision(17) << "worst element " << worst << " of " << g.numel() << ": cuda "
                               << pg[worst] << ", cpu " << pw[worst] << ", magnitude "
                               << ps[worst] << ", tol " << tol);
    CHECK(worst_ratio <= 1.0);
  }
}

// Restores the cuDNN switches and empties the cache at the end of a test;
// starts with TF32 off, so that float32 results compare at 1e-4.
class CudnnSwitches {
 public:
  CudnnSwitches()
      : benchmark_(cudnn::benchmark()),
        deterministic_(cudnn::deterministic()),
        tf32_(cudnn::allow_tf32()),
        limit_(cudnn::workspace_limit()) {
    cudnn::set_allow_tf32(false);
    cudnn::clear_benchmark_cache();
  }
  ~CudnnSwitches() {
    cudnn::set_benchmark(benchmark_);
    cudnn::set_deterministic(deterministic_);
    cudnn::set_allow_tf32(tf32_);
    cudnn::set_workspace_limit(limit_);
    cudnn::clear_benchmark_cache();
  }

 private:
  bool benchmark_, deterministic_, tf32_;
  size_t limit_;
};

struct Problem {
  std::string name;
  std::vector<int64_t> x, w;  // input and weight shapes
  std::vector<int64_t> stride, padding, dilation;
  int64_t groups = 1;
  std::vector<int64_t> output_padding{0};  // conv_transpose2d only
  bool bias = true;
};

// conv2d problems: weight (K, C/groups, R, S).
std::vector<Problem> conv_problems() {
  return {
      {"3x3, stride 2, padding 1", {2, 3, 9, 10}, {4, 3, 3, 3}, {2}, {1}, {1}},
      {"asymmetric stride, padding, dilation", {2, 4, 11, 8}, {6, 4, 3, 2}, {1, 2}, {2, 0}, {2, 1}},
      {"groups 2, no bias", {3, 4, 7, 7}, {6, 2, 3, 3}, {1}, {1}, {1}, 2, {0}, false},
      {"depthwise", {2, 5, 8, 8}, {5, 1, 3, 3}, {1}, {1}, {1}, 5},
      {"1x1, no bias", {4, 8, 5, 6}, {3, 8, 1, 1}, {1}, {0}, {1}, 1, {0}, false},
      {"batch 1, 5x5 kernel", {1, 3, 16, 16}, {8, 3, 5, 5}, {2}, {2}, {1}},
      {"31 channels, 33x35", {2, 31, 33, 35}, {17, 31, 3, 3}, {1}, {1}, {1}},
      {"width 1025", {1, 2, 3, 1025}, {3, 2, 3, 3}, {1}, {1}, {1}},
      {"one output pixel", {2, 3, 3, 3}, {4, 3, 3, 3}, {1}, {0}, {1}},
      {"batch 0", {0, 3, 6, 6}, {4, 3, 3, 3}, {1}, {1}, {1}},
  };
}

// conv_transpose2d problems: weight (C_in, C_out/groups, R, S).
std::vector<Problem> transpose_problems() {
  return {
      {"stride 2, padding 1, output_padding 1", {2, 3, 5, 6}, {3, 4, 3, 3}, {2}, {1}, {1}, 1, {1}},
      {"dilation 2, groups 2", {2, 4, 6, 5}, {4, 3, 3, 2}, {1}, {0}, {2}, 2},
      {"1x1, batch 1, no bias", {1, 6, 4, 4}, {6, 2, 1, 1}, {1}, {0}, {1}, 1, {0}, false},
      {"31 channels, stride 2", {2, 31, 9, 9}, {31, 5, 3, 3}, {2}, {1}, {1}, 1, {1}},
      {"batch 0", {0, 3, 4, 4}, {3, 2, 3, 3}, {2}, {1}, {1}},
  };
}

Tensor random(IntArrayRef shape, ScalarType dtype) { return randn(shape, kDouble).to(dtype); }

Tensor run_op(bool transpose, const Problem& pb, const Tensor& x, const Tensor& w,
              const Tensor& b) {
  if (transpose)
    return conv_transpose2d(x, w, b, pb.stride, pb.padding, pb.output_padding, pb.groups,
                            pb.dilation);
  return conv2d(x, w, b, pb.stride, pb.padding, pb.dilation, pb.groups);
}

// The output and the gradients of x, w and the bias (undefined without one).
struct Outputs {
  Tensor y, gx, gw, gb;
};

// Forward and backward of one problem on x's device, in x's dtype.
Outputs run_with_grads(bool transpose, const Problem& pb, const Tensor& x0, const Tensor& w0,
                       const Tensor& b0, const Tensor& gy) {
  const Tensor x = x0.detach().requires_grad_(), w = w0.detach().requires_grad_();
  const Tensor b = b0.defined() ? b0.detach().requires_grad_() : Tensor();
  const Tensor y = run_op(transpose, pb, x, w, b);
  tensor_list inputs{x, w};
  if (b.defined()) inputs.push_back(b);
  const tensor_list g = autograd::grad({y}, inputs, {gy});
  return {y.detach(), g[0], g[1], b.defined() ? g[2] : Tensor()};
}

// A problem's data (CPU, in its dtype), the float64 CPU results and their magnitudes.
struct Case {
  bool transpose;
  Problem pb;
  ScalarType dtype;
  Tensor x, w, b, gy;
  Outputs want, scale;
};

Case make_case(bool transpose, const Problem& pb, ScalarType dtype) {
  Case c{transpose, pb, dtype, random(pb.x, dtype), random(pb.w, dtype), {}, {}, {}, {}};
  const int64_t out_channels = transpose ? pb.w[1] * pb.groups : pb.w[0];
  if (pb.bias) c.b = random({out_channels}, dtype);
  auto d = [](const Tensor& t) { return t.defined() ? t.to(kDouble) : t; };
  Tensor y;
  {
    NoGradGuard no_grad;
    y = run_op(transpose, pb, d(c.x), d(c.w), d(c.b));
  }
  c.gy = random(y.sizes(), dtype);
  c.want = run_with_grads(transpose, pb, d(c.x), d(c.w), d(c.b), d(c.gy));
  auto a = [](const Tensor& t) { return t.defined() ? t.to(kDouble).abs() : t; };
  c.scale = run_with_grads(transpose, pb, a(c.x), a(c.w), a(c.b), a(c.gy));
  return c;
}

Outputs run_on_gpu(const Case& c) {
  return run_with_grads(c.transpose, c.pb, c.x.to(kGpu), c.w.to(kGpu),
                        c.b.defined() ? c.b.to(kGpu) : Tensor(), c.gy.to(kGpu));
}

// tol_factor: a multiple of conv_tolerance, for TF32 runs that may use
// Winograd or FFT algorithms (kTransformTf32Factor).
void check_outputs(const Case& c, const Outputs& got, double tol_factor = 1) {
  INFO((c.transpose ? "conv_transpose2d " : "conv2d ")
       << c.pb.name << ", " << dtype_name(c.dtype) << ", benchmark " << cudnn::benchmark()
       << ", deterministic " << cudnn::deterministic() << ", tf32 " << cudnn::allow_tf32());
  const double tol = tol_factor * conv_tolerance(c.dtype);
  {
    INFO("output");
    check_close(got.y, c.dtype, c.want.y, c.scale.y, tol);
  }
  {
    INFO("gradient of the input");
    check_close(got.gx, c.dtype, c.want.gx, c.scale.gx, tol);
  }
  {
    INFO("gradient of the weight");
    check_close(got.gw, c.dtype, c.want.gw, c.scale.gw, tol);
  }
  if (c.pb.bias) {
    INFO("gradient of the bias");
    check_close(got.gb, c.dtype, c.want.gb, c.scale.gb, tol);
  } else {
    CHECK(!got.gb.defined());
  }
}

void check_problem(bool transpose, const Problem& pb, ScalarType dtype, double tol_factor = 1) {
  const Case c = make_case(transpose, pb, dtype);
  check_outputs(c, run_on_gpu(c), tol_factor);
}

void check_all_problems() {
  for (ScalarType dtype : {kFloat, kDouble}) {
    for (const Problem& pb : conv_problems()) check_problem(false, pb, dtype);
    for (const Problem& pb : transpose_problems()) check_problem(true, pb, dtype);
  }
}

// One forward and backward of a fixed float32 problem; the gradients of x and w.
struct Step {
  Tensor y, gx, gw;
};
Step conv_step(const Tensor& x, const Tensor& w, const Tensor& gy) {
  const Tensor xl = x.detach().requires_grad_(), wl = w.detach().requires_grad_();
  const Tensor y = conv2d(xl, wl, {}, 2, 1);
  const tensor_list g = autograd::grad({y}, {xl, wl}, {gy});
  return {y.detach(), g[0], g[1]};
}

bool bitwise_equal(const Tensor& a, const Tensor& b) {
  return (a.cpu() == b.cpu()).all().item<bool>();
}

}  // namespace

TEST_CASE("cudnn conv: forward and gradients match the CPU with cuDNN's heuristic", "[cudnn]") {
  manual_seed(1);
  CudnnSwitches switches;
  cudnn::set_benchmark(false);
  check_all_problems();
  // The heuristic touches no benchmark cache.
  CHECK(cudnn::benchmark_stats().finds == 0);
  CHECK(cudnn::benchmark_stats().entries == 0);
}

TEST_CASE("cudnn conv: forward and gradients match the CPU in benchmark mode", "[cudnn]") {
  manual_seed(2);
  CudnnSwitches switches;
  cudnn::set_benchmark(true);
  check_all_problems();
  CHECK(cudnn::benchmark_stats().finds > 0);
}

TEST_CASE("cudnn conv: with TF32 allowed (the default) stays within TF32 precision", "[cudnn]") {
  manual_seed(5);
  CudnnSwitches switches;
  cudnn::set_allow_tf32(true);
  for (bool benchmark : {false, true}) {
    cudnn::set_benchmark(benchmark);
    for (const Problem& pb : conv_problems())
      check_problem(false, pb, kFloat, kTransformTf32Factor);
    for (const Problem& pb : transpose_problems())
      check_problem(true, pb, kFloat, kTransformTf32Factor);
  }
  // The keys ask for default math (which admits TF32).
  for (const backends::BenchmarkEntry& e : cudnn::benchmark_entries())
    CHECK(e.key.find("math=default,") != std::string::npos);
}

// Runs every result a search ranked, one after the other: next_after_failure
// marks the current choice failed, so the next call runs the next result.
TEST_CASE("cudnn conv: every algorithm in the benchmark cache matches the CPU, in each pass",
          "[cudnn]") {
  manual_seed(11);
  CudnnSwitches switches;
  cudnn::set_benchmark(true);
  const std::vector<std::pair<bool, Problem>> problems{
      {false, conv_problems()[1]},  // asymmetric stride, padding, dilation
      {false, conv_problems()[2]},  // groups 2
      {false, conv_problems()[6]},  // 31 channels: FFT and Winograd apply
      {true, transpose_problems()[3]},
  };
  for (bool tf32 : {false, true}) {
    cudnn::set_allow_tf32(tf32);
    for (ScalarType dtype : {kFloat, kDouble}) {
      if (tf32 && dtype == kDouble) continue;
      for (const auto& [transpose, pb] : problems) {
        const Case c = make_case(transpose, pb, dtype);
        for (size_t pass = 0; pass < 3; ++pass) {
          INFO("pass " << pass << " (forward, backward_data, backward_weight)");
          cudnn::clear_benchmark_cache();
          bench::BenchmarkCache& cache = bench::cudnn_conv_caches().cache(pass);
          std::set<std::pair<int, int>> ran, ranked;  // (algo, math type)
          for (;;) {
            const Outputs got = run_on_gpu(c);
            const auto snap = cache.snapshot();
            REQUIRE(snap.size() == 1);
            const bench::AlgoResult choice = snap[0].entry->choice();  // the one that ran
            INFO("algorithm " << choice.algo << ", math type " << choice.math_type);
            check_outputs(c, got, tf32 ? kTransformTf32Factor : 1);
            for (const bench::AlgoResult& r : snap[0].entry->ranked)
              ranked.insert({r.algo, r.math_type});
            CHECK(ran.insert({choice.algo, choice.math_type}).second);
            if (!cache.next_after_failure(snap[0].key, choice)) break;
          }
          CHECK(ran == ranked);
          CHECK(cudnn::benchmark_stats().finds == 3);  // never searched again
        }
      }
    }
  }
}

TEST_CASE("cudnn conv: deterministic mode repeats bit for bit and matches the CPU", "[cudnn]") {
  manual_seed(3);
  CudnnSwitches switches;
  cudnn::set_deterministic(true);
  for (bool benchmark : {false, true}) {
    cudnn::set_benchmark(benchmark);
    INFO("benchmark " << benchmark);
    check_all_problems();
    // Backward-weight sums over the batch: the pass atomics would make nondeterministic.
    for (ScalarType dtype : {kFloat, kDouble}) {
      const Tensor x = random({8, 16, 20, 20}, dtype).to(kGpu);
      const Tensor w = random({16, 16, 3, 3}, dtype).to(kGpu);
      const Tensor gy = random({8, 16, 10, 10}, dtype).to(kGpu);
      const Step a = conv_step(x, w, gy), b = conv_step(x, w, gy);
      CHECK(bitwise_equal(a.y, b.y));
      CHECK(bitwise_equal(a.gx, b.gx));
      CHECK(bitwise_equal(a.gw, b.gw));
    }
  }
  for (const backends::BenchmarkEntry& e : cudnn::benchmark_entries())
    CHECK(e.key.find("det1") != std::string::npos);
}

TEST_CASE("cudnn conv: a zero workspace limit chooses algorithms without workspace", "[cudnn]") {
  manual_seed(4);
  CudnnSwitches switches;
  cudnn::set_workspace_limit(0);
  for (bool benchmark : {false, true}) {
    cudnn::set_benchmark(benchmark);
    check_problem(false, conv_problems()[0], kFloat);
    check_problem(true, transpose_problems()[0], kFloat);
  }
  const std::vector<backends::BenchmarkEntry> entries = cudnn::benchmark_entries();
  CHECK(entries.size() == 6);  // 2 problems x 3 passes
  for (const backends::BenchmarkEntry& e : entries) CHECK(e.workspace_bytes == 0);
}

TEST_CASE("cudnn conv: non-contiguous GPU views and unbatched inputs match the CPU", "[cudnn]") {
  manual_seed(6);
  CudnnSwitches switches;
  for (bool benchmark : {false, true}) {
    cudnn::set_benchmark(benchmark);
    INFO("benchmark " << benchmark);
    // The views are taken on the GPU: a view copied to the GPU arrives contiguous.
    const Tensor xl = random({2, 3, 10, 9}, kDouble).to(kGpu).requires_grad_();
    const Tensor wl = random({4, 6, 3, 3}, kDouble).to(kGpu).requires_grad_();
    const Tensor bl = random({8}, kDouble).to(kGpu).requires_grad_();
    auto views = [](const Tensor& x, const Tensor& w, const Tensor& b) {
      return std::tuple{x.transpose(2, 3), w.slice(1, 0, 6, 2), b.slice(0, 0, 8, 2)};
    };
    const auto [x, w, b] = views(xl, wl, bl);  // (2, 3, 9, 10), (4, 3, 3, 3), (4)
    REQUIRE_FALSE(x.is_contiguous());
    REQUIRE_FALSE(w.is_contiguous());
    REQUIRE_FALSE(b.is_contiguous());
    const Tensor gy = random({2, 4, 5, 10}, kDouble).to(kGpu).slice(3, 0, 10, 2);  // (2, 4, 5, 5)
    REQUIRE_FALSE(gy.is_contiguous());
    const Tensor y = conv2d(x, w, b, 2, 1);
    const tensor_list g = autograd::grad({y}, {xl, wl, bl}, {gy});

    const Tensor xc = xl.detach().cpu().requires_grad_(), wc = wl.detach().cpu().requires_grad_(),
                 bc = bl.detach().cpu().requires_grad_();
    const auto [xv, wv, bv] = views(xc, wc, bc);
    const Tensor yc = conv2d(xv, wv, bv, 2, 1);
    const tensor_list gc = autograd::grad({yc}, {xc, wc, bc}, {gy.cpu()});
    check_same(y, yc, 1e-10);
    for (size_t i = 0; i < 3; ++i) check_same(g[i], gc[i], 1e-10);

    // conv_transpose2d of a permuted input and a transposed weight.
    const Tensor tl = random({2, 6, 5, 4}, kDouble).to(kGpu).requires_grad_();
    const Tensor ul = random({4, 3, 3, 3}, kDouble).to(kGpu).requires_grad_();
    const Tensor t = tl.permute({0, 3, 2, 1}), u = ul.transpose(2, 3);  // (2, 4, 5, 6), (4, 3, 3, 3)
    REQUIRE_FALSE(t.is_contiguous());
    const Tensor z = conv_transpose2d(t, u, {}, 2, 1);
    const tensor_list gz = autograd::grad({z.sum()}, {tl, ul});
    const Tensor tc = tl.detach().cpu().requires_grad_(), uc = ul.detach().cpu().requires_grad_();
    const Tensor zc = conv_transpose2d(tc.permute({0, 3, 2, 1}), uc.transpose(2, 3), {}, 2, 1);
    const tensor_list gzc = autograd::grad({zc.sum()}, {tc, uc});
    check_same(z, zc, 1e-10);
    for (size_t i = 0; i < 2; ++i) check_same(gz[i], gzc[i], 1e-10);
  }
  const Tensor xu = random({3, 7, 7}, kDouble), w = random({4, 3, 3, 3}, kDouble),
               wt = random({3, 2, 3, 3}, kDouble);
  check_same(conv2d(xu.to(kGpu), w.to(kGpu), {}, 1, 1), conv2d(xu, w, {}, 1, 1), 1e-10);
  check_same(conv_transpose2d(xu.to(kGpu), wt.to(kGpu), {}, 2, 1),
                  conv_transpose2d(xu, wt, {}, 2, 1), 1e-10);
}

TEST_CASE("cudnn conv: conv2d_relu, Sequential's eval fusion and batch_norm_relu match the CPU",
          "[cudnn]") {
  manual_seed(7);
  CudnnSwitches switches;
  const Tensor x = random({3, 4, 9, 8}, kDouble), w = random({6, 4, 3, 3}, kDouble),
               b = random({6}, kDouble);
  {
    NoGradGuard no_grad;  // ConvParams::relu: ReLU after the cuDNN forward
    check_same(conv2d_relu(x.to(kGpu), w.to(kGpu), b.to(kGpu), 2, 1),
               conv2d_relu(x, w, b, 2, 1), 1e-10);
  }
  // Recorded: conv2d then relu, and their gradients.
  const Tensor xg = x.to(kGpu).requires_grad_(), xc = x.clone().requires_grad_();
  const Tensor gy = random({3, 6, 5, 4}, kDouble);
  const tensor_list g = autograd::grad({conv2d_relu(xg, w.to(kGpu), b.to(kGpu), 2, 1)}, {xg},
                                       {gy.to(kGpu)});
  const tensor_list gc = autograd::grad({conv2d_relu(xc, w, b, 2, 1)}, {xc}, {gy});
  check_same(g[0], gc[0], 1e-10);

  // The eval fusion folds on the GPU as on the CPU.
  nn::Sequential seq(nn::Conv2d(nn::Conv2dOptions(4, 6, 3).stride(2).padding(1)),
                     nn::BatchNorm2d(6), nn::ReLU());
  seq->to(kDouble);
  seq->train();
  for (int step = 0; step < 2; ++step) seq->forward(x);  // running statistics move
  seq->eval();
  NoGradGuard no_grad;
  const Tensor on_cpu = seq->forward(x);
  seq->to(kGpu);
  check_same(seq->forward(x.to(kGpu)), on_cpu, 1e-10);

  // batch_norm_relu in training: composed on CUDA, fused kernels on the CPU.
  const Tensor bw = random({4}, kDouble), bb = random({4}, kDouble);
  check_same(batch_norm_relu(x.to(kGpu), bw.to(kGpu), bb.to(kGpu), {}, {}, true, 0.1, 1e-5),
             batch_norm_relu(x, bw, bb, {}, {}, true, 0.1, 1e-5), 1e-10);
}

TEST_CASE("cudnn conv: tensors on different devices raise an error naming both", "[cudnn]") {
  const Tensor x = ones({1, 1, 4, 4}).to(kGpu), w = ones({1, 1, 3, 3});
  REQUIRE_THROWS_WITH(conv2d(x, w),
                      Catch::Contains("conv2d") && Catch::Contains("same device") &&
                          Catch::Contains("cuda") && Catch::Contains("cpu"));
  REQUIRE_THROWS_WITH(conv_transpose2d(x, w.to(kGpu), ones({1})),
                      Catch::Contains("conv_transpose2d") && Catch::Contains("same device"));
}

TEST_CASE("cudnn conv: benchmark mode finds once per key and pass, then hits", "[cudnn]") {
  manual_seed(7);
  CudnnSwitches switches;
  cudnn::set_benchmark(true);
  const Tensor x = random({4, 8, 14, 14}, kFloat).to(kGpu);
  const Tensor w = random({16, 8, 3, 3}, kFloat).to(kGpu);
  const Tensor gy = random({4, 16, 7, 7}, kFloat).to(kGpu);

  conv2d(x, w, {}, 2, 1);
  backends::BenchmarkStats s = cudnn::benchmark_stats();
  CHECK(s.finds == 1);
  CHECK(s.misses == 1);
  CHECK(s.hits == 0);
  CHECK(s.find_seconds > 0);
  conv2d(x, w, {}, 2, 1);
  s = cudnn::benchmark_stats();
  CHECK(s.finds == 1);
  CHECK(s.hits == 1);
  // The first backward finds backward-data and backward-weight.
  conv_step(x, w, gy);
  s = cudnn::benchmark_stats();
  CHECK(s.finds == 3);
  CHECK(s.hits == 2);  // its forward hit
  conv_step(x, w, gy);
  s = cudnn::benchmark_stats();
  CHECK(s.finds == 3);
  CHECK(s.hits == 5);
  CHECK(s.entries == 3);
  CHECK(s.fallbacks == 0);
  // Another geometry is another key.
  conv2d(x, w, {}, 1, 1);
  CHECK(cudnn::benchmark_stats().finds == 4);
  // Each entry names its pass and a key holding the device and the settings.
  for (const backends::BenchmarkEntry& e : cudnn::benchmark_entries()) {
    INFO(e.pass << " " << e.key);
    CHECK((e.pass == "forward" || e.pass == "backward_data" || e.pass == "backward_weight"));
    CHECK(e.key.find("math=fma") != std::string::npos);
    CHECK(e.key.find("|sm") != std::string::npos);
    CHECK(e.workspace_bytes <= cudnn::workspace_limit());
  }
  CHECK(bench::cudnn_conv_caches().machine_tag().rfind("sm", 0) == 0);
}

TEST_CASE("cudnn conv: threads running one new key search once per pass and match the CPU",
          "[cudnn]") {
  manual_seed(12);
  CudnnSwitches switches;
  cudnn::set_benchmark(true);
  const Case c = make_case(false, {"threads", {4, 16, 20, 20}, {16, 16, 3, 3}, {1}, {1}, {1}},
                           kFloat);
  constexpr int kThreads = 6;
  std::vector<Outputs> got(kThreads);
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      try {
        got[i] = run_on_gpu(c);
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    });
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < kThreads; ++i) {
    INFO("thread " << i);
    REQUIRE(errors[i].empty());
    check_outputs(c, got[i]);
  }
  const backends::BenchmarkStats s = cudnn::benchmark_stats();
  CHECK(s.finds == 3);
  CHECK(s.hits + s.misses == 3 * kThreads);
  CHECK(s.entries == 3);
}

TEST_CASE("cudnn conv: a saved cache loaded back makes no search", "[cudnn]") {
  manual_seed(8);
  CudnnSwitches switches;
  cudnn::set_benchmark(true);
  const Tensor x = random({2, 6, 12, 12}, kFloat).to(kGpu);
  const Tensor w = random({8, 6, 3, 3}, kFloat).to(kGpu);
  const Tensor gy = random({2, 8, 12, 12}, kFloat).to(kGpu);
  const Tensor xl = x.detach().requires_grad_(), wl = w.detach().requires_grad_();
  auto step = [&] {
    const Tensor y = conv2d(xl, wl, {}, 1, 1);
    return autograd::grad({y}, {xl, wl}, {gy});
  };
  const tensor_list before = step();  // finds
  REQUIRE(cudnn::benchmark_stats().finds == 3);
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("ember_cudnn_cache_" + std::to_string(::getpid()) + ".txt"))
                               .string();
  cudnn::save_benchmark_cache(path);
  cudnn::clear_benchmark_cache();
  REQUIRE(cudnn::benchmark_stats().entries == 0);
  REQUIRE(cudnn::load_benchmark_cache(path));
  std::filesystem::remove(path);
  CHECK(cudnn::benchmark_stats().entries == 3);
  const tensor_list after = step();
  const backends::BenchmarkStats s = cudnn::benchmark_stats();
  CHECK(s.finds == 0);
  CHECK(s.hits == 3);
  check_same(after[0], before[0].cpu(), 1e-4);
  check_same(after[1], before[1].cpu(), 1e-4);
}

TEST_CASE("cudnn conv: a gradient penalty (double backward) matches the CPU", "[cudnn]") {
  manual_seed(9);
  CudnnSwitches switches;
  for (bool benchmark : {false, true}) {
    cudnn::set_benchmark(benchmark);
    INFO("benchmark " << benchmark);
    const Tensor x = random({2, 3, 8, 8}, kDouble), v = random({2, 4, 4, 4}, kDouble);
    const Tensor w0 = random({4, 3, 3, 3}, kDouble), b0 = random({4}, kDouble);
    // penalty(w) = || d <conv(x, w) + b, v> / dx ||^2, differentiated by w and b.
    auto grads = [](const Tensor& x0, const Tensor& w, const Tensor& b, const Tensor& v0) {
      const Tensor xl = x0.detach().requires_grad_();
      const Tensor y = conv2d(xl, w, b, 2, 1);
      const Tensor gx = autograd::grad({y}, {xl}, {v0}, true, true)[0];
      return autograd::grad({(gx * gx).sum()}, {w, b}, {}, std::nullopt, false, true);
    };
    const Tensor wc = w0.detach().requires_grad_(), bc = b0.detach().requires_grad_();
    const Tensor wg = w0.to(kGpu).detach().requires_grad_();
    const Tensor bg = b0.to(kGpu).detach().requires_grad_();
    const tensor_list want = grads(x, wc, bc, v);
    const tensor_list got = grads(x.to(kGpu), wg, bg, v.to(kGpu));
    check_same(got[0], want[0], 1e-10);
    // The penalty does not depend on the bias.
    CHECK(!got[1].defined());
    CHECK(!want[1].defined());
  }
}

TEST_CASE("cudnn conv: memory returns to its level once the gradients are dropped", "[cudnn]") {
  manual_seed(10);
  CudnnSwitches switches;
  for (bool benchmark : {false, true}) {
    cudnn::set_benchmark(benchmark);
    INFO("benchmark " << benchmark);
    const Tensor x = random({4, 8, 16, 16}, kFloat).to(kGpu).requires_grad_();
    const Tensor w = random({16, 8, 3, 3}, kFloat).to(kGpu).requires_grad_();
    const Tensor b = random({16}, kFloat).to(kGpu).requires_grad_();
    const Tensor gy = random({4, 16, 8, 8}, kFloat).to(kGpu);
    const size_t before = cuda::memory_stats().allocated_bytes;
    {
      const Tensor y = conv2d(x, w, b, 2, 1);
      const tensor_list g = autograd::grad({y}, {x, w, b}, {gy});
      CHECK(cuda::memory_stats().allocated_bytes > before);
    }
    CHECK(cuda::memory_stats().allocated_bytes == before);
  }
}

// Note [Aligned cuDNN operands] (kernels/common/cuda_plans/cudnn_conv_plan.h): contiguous
// views at odd element offsets, which cuDNN would refuse, are copied first.
TEST_CASE("cudnn conv: operands at misaligned offsets (an odd batch's second chunk, slices of "
          "flat buffers) match the CPU, forward and backward",
          "[cudnn]") {
  manual_seed(13);
  CudnnSwitches switches;
  for (bool benchmark : {false, true}) {
    cudnn::set_benchmark(benchmark);
    for (ScalarType t : {kFloat, kDouble}) {
      INFO("benchmark " << benchmark << ", " << t);
      // 5 images: chunk(2, 0)[1] starts 3 * 3 * 7 * 7 = 441 elements in (odd).
      const Tensor xs = random({5, 3, 7, 7}, t), ws = random({1 + 4 * 3 * 3 * 3}, t),
                   bs = random({5}, t), gys = random({1 + 2 * 4 * 7 * 7}, t);
      // The views, taken on each device (a copy to the GPU is a fresh aligned buffer).
      const auto run = [](const Tensor& xb, const Tensor& wb, const Tensor& bb, const Tensor& gyb,
                          bool check_misaligned) {
        const Tensor x = xb.chunk(2, 0)[1];
        const Tensor w = wb.slice(0, 1, wb.numel()).view({4, 3, 3, 3});
        const Tensor b = bb.slice(0, 1, 5);
        const Tensor gy = gyb.slice(0, 1, gyb.numel()).view({2, 4, 7, 7});
        if (check_misaligned)
          for (const Tensor& v : {x, w, b, gy}) {
            REQUIRE(v.is_contiguous());
            REQUIRE(cuda::cudnn_needs_aligned_copy(v.data_ptr()));
          }
        const Tensor y = conv2d(x, w, b, 1, 1);
        tensor_list g = autograd::grad({y}, {xb, wb, bb}, {gy});
        g.insert(g.begin(), y.detach());
        return g;
      };
      const auto leaf = [](const Tensor& v) { return v.detach().requires_grad_(); };
      const tensor_list got = run(leaf(xs.to(kGpu)), leaf(ws.to(kGpu)), leaf(bs.to(kGpu)),
                                  gys.to(kGpu), true);
      const tensor_list want = run(leaf(xs), leaf(ws), leaf(bs), gys, false);
      const char* names[] = {"output", "gradient of x", "gradient of the flat weight",
                             "gradient of the flat bias"};
      for (size_t i = 0; i < want.size(); ++i) {
        INFO(names[i]);
        check_same(got[i], want[i], tolerance(t, 1e-4));
      }
    }
  }
}

namespace {

// Caps the caching allocator of the current device for a scope, after
// returning its cached blocks (or a retry after releasing them would fit).
class MemoryCap {
 public:
  explicit MemoryCap(size_t headroom) {
    cuda::empty_cache();
    cuda::set_memory_limit(cuda::memory_stats().reserved_bytes + headroom);
  }
  ~MemoryCap() { cuda::set_memory_limit(SIZE_MAX); }
  MemoryCap(const MemoryCap&) = delete;
  MemoryCap& operator=(const MemoryCap&) = delete;
};

constexpr size_t kMiB = size_t{1} << 20;

// The largest workspace among the ranked results of every cached key.
size_t largest_ranked_workspace() {
  size_t largest = 0;
  for (size_t pass = 0; pass < 3; ++pass)
    for (const auto& snap : bench::cudnn_conv_caches().cache(pass).snapshot())
      for (const bench::AlgoResult& r : snap.entry->ranked)
        largest = std::max(largest, r.workspace_bytes);
  return largest;
}

}  // namespace

TEST_CASE("cudnn conv: a cached choice whose workspace cannot be allocated steps down to one "
          "that fits, matches the CPU and counts the fallback",
          "[cudnn]") {
  manual_seed(14);
  CudnnSwitches switches;
  cudnn::set_benchmark(true);
  const Problem pb = conv_problems()[0];
  const Case c = make_case(false, pb, kFloat);
  const Tensor x = c.x.to(kGpu), w = c.w.to(kGpu), b = c.b.to(kGpu);
  conv2d(x, w, b, pb.stride, pb.padding, pb.dilation);  // learns the forward key
  const std::vector<backends::BenchmarkEntry> entries = cudnn::benchmark_entries();
  REQUIRE(entries.size() == 1);
  const std::string key = entries[0].key;
  cudnn::clear_benchmark_cache();
  // A ranking whose fastest asks for 1 GiB of workspace; then implicit GEMM (algo 0, none).
  bench::BenchmarkCache& forward = bench::cudnn_conv_caches().cache(0);
  REQUIRE(forward.insert(key, {{1, 0, size_t{1} << 30, 1.0}, {0, 0, 0, 2.0}}));
  REQUIRE(forward.lookup(key)->choice().algo == 1);
  Tensor y;
  {
    MemoryCap cap(64 * kMiB);
    y = conv2d(x, w, b, pb.stride, pb.padding, pb.dilation);
  }
  check_close(y, kFloat, c.want.y, c.scale.y, conv_tolerance(kFloat));
  const backends::BenchmarkStats s = cudnn::benchmark_stats();
  CHECK(s.fallbacks == 1);
  CHECK(s.finds == 0);  // the inserted entry answered; nothing was searched
  const auto entry = forward.lookup(key);
  REQUIRE(entry);
  CHECK(entry->choice().algo == 0);
  CHECK(entry->failed[0]);
}

TEST_CASE("cudnn conv: Find under an allocator limit searches with a smaller workspace and "
          "caches only algorithms that fit, matching the CPU",
          "[cudnn]") {
  manual_seed(15);
  CudnnSwitches switches;
  cudnn::set_benchmark(true);
  // 5x5 filters over 96 channels: the GEMM algorithm's im2col buffer alone is
  // 8 * 96 * 25 * 48 * 48 floats (177 MB), FFT's transforms are as large.
  const Problem pb{"large workspaces", {8, 96, 48, 48}, {96, 96, 5, 5}, {1}, {2}, {1}};
  const Case c = make_case(false, pb, kFloat);
  check_outputs(c, run_on_gpu(c));
  const size_t headroom = 48 * kMiB;
  // The precondition of the test: some algorithm wants more than the headroom.
  REQUIRE(largest_ranked_workspace() > headroom);
  cudnn::clear_benchmark_cache();
  // The operands go up before the cap; the outputs (about 10 MB) and the
  // workspaces come from the headroom.
  const Tensor x = c.x.to(kGpu), w = c.w.to(kGpu), b = c.b.to(kGpu), gy = c.gy.to(kGpu);
  Outputs got;
  {
    MemoryCap cap(headroom);
    got = run_with_grads(false, pb, x, w, b, gy);
  }
  check_outputs(c, got);
  const backends::BenchmarkStats s = cudnn::benchmark_stats();
  CHECK(s.finds == 3);
  CHECK(largest_ranked_workspace() <= headroom);
  for (const backends::BenchmarkEntry& e : cudnn::benchmark_entries()) {
    INFO(e.pass << " " << e.algo);
    CHECK(e.workspace_bytes <= headroom);
  }
}
