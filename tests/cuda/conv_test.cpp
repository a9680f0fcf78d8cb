// conv2d and conv_transpose2d on cuDNN (kernels/cuda/cudnn_conv.*) against
// the same ops on CPU tensors: forward and backward (input, weight and bias
// gradients) on odd shapes, by cuDNN's heuristic and in benchmark mode, in
// deterministic mode, with no workspace allowed; the benchmark cache's
// statistics and a save/load round trip; a gradient penalty (double
// backward); and memory back to its level once the gradients are dropped.
// Tolerance, relative to max(1, |cpu value|): 1e-4 for float32 with TF32 off
// (both sides round in float32, in different orders, over sums of up to a few
// hundred products), 1e-10 for float64.
#include <ember/core/backends.h>
#include <ember/core/ops/conv.h>
#include <ember/ember.h>
#include <ember/kernels/cuda/memory.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ember;
namespace cudnn = ember::backends::cudnn;

namespace {

const Device kGpu(kCUDA);

double tolerance(ScalarType t) { return t == kFloat ? 1e-4 : 1e-10; }

// got (from CUDA) equals want (from the CPU) in dtype, shape and values.
void check_close(const Tensor& got, const Tensor& want, double tol) {
  REQUIRE(got.defined());
  REQUIRE(got.is_cuda());
  REQUIRE(got.scalar_type() == want.scalar_type());
  REQUIRE(got.sizes() == want.sizes());
  const Tensor g = got.cpu().contiguous().to(kDouble), w = want.contiguous().to(kDouble);
  const double *pg = g.data_ptr<double>(), *pw = w.data_ptr<double>();
  for (int64_t i = 0; i < g.numel(); ++i) {
    INFO("element " << i << ": cuda " << pg[i] << ", cpu " << pw[i]);
    REQUIRE(std::abs(pg[i] - pw[i]) <= tol * std::max(1.0, std::abs(pw[i])));
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
};

// conv2d problems: weight (K, C/groups, R, S).
std::vector<Problem> conv_problems() {
  return {
      {"3x3, stride 2, padding 1", {2, 3, 9, 10}, {4, 3, 3, 3}, {2}, {1}, {1}},
      {"asymmetric stride, padding, dilation", {2, 4, 11, 8}, {6, 4, 3, 2}, {1, 2}, {2, 0}, {2, 1}},
      {"groups 2", {3, 4, 7, 7}, {6, 2, 3, 3}, {1}, {1}, {1}, 2},
      {"depthwise", {2, 5, 8, 8}, {5, 1, 3, 3}, {1}, {1}, {1}, 5},
      {"1x1", {4, 8, 5, 6}, {3, 8, 1, 1}, {1}, {0}, {1}},
      {"batch 1, 5x5 kernel", {1, 3, 16, 16}, {8, 3, 5, 5}, {2}, {2}, {1}},
      {"batch 0", {0, 3, 6, 6}, {4, 3, 3, 3}, {1}, {1}, {1}},
  };
}

// conv_transpose2d problems: weight (C_in, C_out/groups, R, S).
std::vector<Problem> transpose_problems() {
  return {
      {"stride 2, padding 1, output_padding 1", {2, 3, 5, 6}, {3, 4, 3, 3}, {2}, {1}, {1}, 1, {1}},
      {"dilation 2, groups 2", {2, 4, 6, 5}, {4, 3, 3, 2}, {1}, {0}, {2}, 2},
      {"1x1, batch 1", {1, 6, 4, 4}, {6, 2, 1, 1}, {1}, {0}, {1}},
      {"batch 0", {0, 3, 4, 4}, {3, 2, 3, 3}, {2}, {1}, {1}},
  };
}

Tensor random(IntArrayRef shape, ScalarType dtype) { return randn(shape, kDouble).to(dtype); }

// A leaf on the CPU and its copy on the GPU, both requiring grad.
struct LeafPair {
  Tensor cpu, gpu;
};
LeafPair leaf(IntArrayRef shape, ScalarType dtype) {
  const Tensor c = random(shape, dtype);
  return {c.detach().requires_grad_(), c.to(kGpu).detach().requires_grad_()};
}

Tensor run_op(bool transpose, const Problem& pb, const Tensor& x, const Tensor& w,
              const Tensor& b) {
  if (transpose)
    return conv_transpose2d(x, w, b, pb.stride, pb.padding, pb.output_padding, pb.groups,
                            pb.dilation);
  return conv2d(x, w, b, pb.stride, pb.padding, pb.dilation, pb.groups);
}

// Forward and the three gradients of one problem on both devices.
void check_problem(bool transpose, const Problem& pb, ScalarType dtype) {
  INFO((transpose ? "conv_transpose2d " : "conv2d ") << pb.name << ", " << dtype_name(dtype)
                                                      << ", benchmark " << cudnn::benchmark()
                                                      << ", deterministic "
                                                      << cudnn::deterministic());
  const int64_t out_channels = transpose ? pb.w[1] * pb.groups : pb.w[0];
  const LeafPair x = leaf(pb.x, dtype), w = leaf(pb.w, dtype), b = leaf({out_channels}, dtype);
  const Tensor y_cpu = run_op(transpose, pb, x.cpu, w.cpu, b.cpu);
  const Tensor y_gpu = run_op(transpose, pb, x.gpu, w.gpu, b.gpu);
  check_close(y_gpu, y_cpu, tolerance(dtype));
  const Tensor gy = random(y_cpu.sizes(), dtype);
  const tensor_list g_cpu = autograd::grad({y_cpu}, {x.cpu, w.cpu, b.cpu}, {gy});
  const tensor_list g_gpu = autograd::grad({y_gpu}, {x.gpu, w.gpu, b.gpu}, {gy.to(kGpu)});
  for (size_t i = 0; i < 3; ++i) {
    INFO("gradient of input " << i << " (x, w, bias)");
    check_close(g_gpu[i], g_cpu[i], tolerance(dtype));
  }
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

TEST_CASE("cudnn conv: deterministic mode repeats bit for bit and matches the CPU", "[cudnn]") {
  manual_seed(3);
  CudnnSwitches switches;
  cudnn::set_deterministic(true);
  for (bool benchmark : {false, true}) {
    cudnn::set_benchmark(benchmark);
    INFO("benchmark " << benchmark);
    check_all_problems();
    // Backward-weight sums over the batch: the pass atomics would make nondeterministic.
    const Tensor x = random({8, 16, 20, 20}, kFloat).to(kGpu);
    const Tensor w = random({16, 16, 3, 3}, kFloat).to(kGpu);
    const Tensor gy = random({8, 16, 10, 10}, kFloat).to(kGpu);
    const Step a = conv_step(x, w, gy), b = conv_step(x, w, gy);
    CHECK(bitwise_equal(a.y, b.y));
    CHECK(bitwise_equal(a.gx, b.gx));
    CHECK(bitwise_equal(a.gw, b.gw));
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

TEST_CASE("cudnn conv: TF32 allowed stays close to the CPU at TF32 precision", "[cudnn]") {
  manual_seed(5);
  CudnnSwitches switches;
  cudnn::set_allow_tf32(true);
  const Tensor x = random({2, 8, 12, 12}, kFloat), w = random({16, 8, 3, 3}, kFloat);
  const Tensor want = conv2d(x, w, {}, 1, 1);
  // TF32 keeps 10 mantissa bits: a relative error near 1e-3 per product.
  check_close(conv2d(x.to(kGpu), w.to(kGpu), {}, 1, 1), want, 2e-2);
}

TEST_CASE("cudnn conv: non-contiguous and unbatched inputs match the CPU", "[cudnn]") {
  manual_seed(6);
  CudnnSwitches switches;
  const Tensor x = random({2, 3, 10, 9}, kDouble).transpose(2, 3);  // (2, 3, 9, 10)
  const Tensor w = random({4, 6, 3, 3}, kDouble).slice(1, 0, 6, 2);  // (4, 3, 3, 3)
  const Tensor b = random({8}, kDouble).slice(0, 0, 8, 2);           // (4)
  check_close(conv2d(x.to(kGpu), w.to(kGpu), b.to(kGpu), 2, 1), conv2d(x, w, b, 2, 1), 1e-10);
  const Tensor xu = random({3, 7, 7}, kDouble), wt = random({3, 2, 3, 3}, kDouble);
  check_close(conv2d(xu.to(kGpu), w.to(kGpu), {}, 1, 1), conv2d(xu, w, {}, 1, 1), 1e-10);
  check_close(conv_transpose2d(xu.to(kGpu), wt.to(kGpu), {}, 2, 1),
              conv_transpose2d(xu, wt, {}, 2, 1), 1e-10);
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
    autograd::grad({y}, {xl, wl}, {gy});
  };
  step();
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
  step();
  const backends::BenchmarkStats s = cudnn::benchmark_stats();
  CHECK(s.finds == 0);
  CHECK(s.hits == 3);
}

TEST_CASE("cudnn conv: a gradient penalty (double backward) matches the CPU", "[cudnn]") {
  manual_seed(9);
  CudnnSwitches switches;
  for (bool benchmark : {false, true}) {
    cudnn::set_benchmark(benchmark);
    INFO("benchmark " << benchmark);
    const Tensor x = random({2, 3, 8, 8}, kDouble), v = random({2, 4, 4, 4}, kDouble);
    const LeafPair w = leaf({4, 3, 3, 3}, kDouble), b = leaf({4}, kDouble);
    // penalty(w) = || d <conv(x, w) + b, v> / dx ||^2, differentiated by w and b.
    auto grads = [](const Tensor& x0, const Tensor& w0, const Tensor& b0, const Tensor& v0) {
      const Tensor xl = x0.detach().requires_grad_();
      const Tensor y = conv2d(xl, w0, b0, 2, 1);
      const Tensor gx = autograd::grad({y}, {xl}, {v0}, true, true)[0];
      return autograd::grad({(gx * gx).sum()}, {w0, b0}, {}, std::nullopt, false, true);
    };
    const tensor_list want = grads(x, w.cpu, b.cpu, v);
    const tensor_list got = grads(x.to(kGpu), w.gpu, b.gpu, v.to(kGpu));
    check_close(got[0], want[0], 1e-10);
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
