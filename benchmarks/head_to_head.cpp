// One source, two libraries: compiled against ember by the build (program
// head_to_head) and against libtorch by scripts/head-to-head.sh (program
// head_to_head_libtorch, with HEAD_TO_HEAD_LIBTORCH defined), so both run the
// very same loops. It prints one figure per line, "name value unit", for the
// script to set side by side (docs/benchmarks.md):
//   add_1           µs per `a + b` of one element under NoGradGuard
//   add_16m         GB/s of `c = a + b` over 2^24 floats, c allocated each time
//   memcpy_16m      GB/s of std::memcpy of the same 64 MiB on the same threads
//   matmul_1024     GFLOP/s of a 1024^3 float32 mm
//   train_step      ms of the sample model's step (forward, cross-entropy,
//                   backward, Adam), batch 64, 3x32x32
//   eval_forward    ms of its forward under NoGradGuard in eval mode
//
//   head_to_head [--threads N] [--reps R] [--steps S] [--only ops|model]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#ifdef HEAD_TO_HEAD_LIBTORCH
#include <torch/torch.h>
namespace lib = torch;
constexpr const char* kLibrary = "libtorch";
#else
#include <ember/ember.h>
namespace lib = ember;
constexpr const char* kLibrary = "ember";
#endif

namespace {

double median_seconds(int reps, const auto& f) {
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    f();
    times.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

void report(const char* name, double value, const char* unit) {
  std::printf("%-14s %10.3f %s\n", name, value, unit);
}

double add_overhead_us(int reps) {
  lib::NoGradGuard no_grad;
  const lib::Tensor a = lib::ones({1}), b = lib::ones({1});
  constexpr int kOps = 100000;
  auto loop = [&] {
    for (int i = 0; i < kOps; ++i) {
      const lib::Tensor c = a + b;
    }
  };
  loop();
  return median_seconds(reps, loop) / kOps * 1e6;
}

// GB/s counting a and b read and c written once each.
double add_bandwidth(const lib::Tensor& a, const lib::Tensor& b, int reps) {
  lib::NoGradGuard no_grad;
  { const lib::Tensor warm = a + b; }
  const double s = median_seconds(reps, [&] { const lib::Tensor c = a + b; });
  return 3.0 * double(a.numel()) * sizeof(float) / s / 1e9;
}

// GB/s of memcpy of `bytes`, split over `threads` threads, counting source
// and destination once each: the machine's copy bandwidth in the same run.
double memcpy_bandwidth(size_t bytes, int threads, int reps) {
  std::vector<char> src(bytes, 1), dst(bytes, 0);
  const size_t slice = bytes / size_t(threads);
  auto copy = [&] {
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t)
      pool.emplace_back([&, t] { std::memcpy(&dst[t * slice], &src[t * slice], slice); });
    std::memcpy(dst.data(), src.data(), slice);
    for (auto& th : pool) th.join();
  };
  copy();
  return 2.0 * double(bytes) / median_seconds(reps, copy) / 1e9;
}

double matmul_gflops(int reps) {
  lib::NoGradGuard no_grad;
  constexpr int64_t n = 1024;
  const lib::Tensor a = lib::randn({n, n}), b = lib::randn({n, n});
  for (int i = 0; i < 2; ++i) lib::mm(a, b);
  return 2.0 * n * n * n / median_seconds(reps, [&] { lib::mm(a, b); }) / 1e9;
}

// The sample trainer's model (examples/train/model.h, design.md §8).
lib::nn::Sequential sample_model(int64_t in_channels) {
  lib::nn::Sequential seq;
  int64_t in = in_channels;
  for (int64_t out : {32, 64, 128}) {
    seq->push_back(
        lib::nn::Conv2d(lib::nn::Conv2dOptions(in, out, 3).stride(2).padding(1).bias(false)));
    seq->push_back(lib::nn::BatchNorm2d(out));
    seq->push_back(lib::nn::ReLU());
    in = out;
  }
  seq->push_back(lib::nn::Flatten());
  seq->push_back(lib::nn::Linear(128 * 4 * 4, 10));
  return seq;
}

void model_figures(int steps) {
  lib::manual_seed(1);
  lib::nn::Sequential model = sample_model(3);
  lib::optim::Adam adam(model->parameters(), lib::optim::AdamOptions(1e-3));
  const lib::Tensor x = lib::randn({64, 3, 32, 32});
  const lib::Tensor y = lib::randint(0, 10, {64});
  auto step = [&] {
    const lib::Tensor loss = lib::nn::functional::cross_entropy(model->forward(x), y);
    adam.zero_grad();
    loss.backward();
    adam.step();
    (void)loss.item<float>();
  };
  for (int i = 0; i < 5; ++i) step();
  report("train_step", median_seconds(steps, step) * 1e3, "ms");
  lib::NoGradGuard no_grad;
  model->eval();
  auto eval = [&] { (void)model->forward(x).sum().item<float>(); };
  for (int i = 0; i < 5; ++i) eval();
  report("eval_forward", median_seconds(steps, eval) * 1e3, "ms");
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 2, reps = 15, steps = 60;
  std::string only = "all";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const int v = std::max(1, std::atoi(argv[i + 1]));
    if (flag == "--only") only = argv[i + 1];
    else if (flag == "--threads") threads = v;
    else if (flag == "--reps") reps = v;
    else if (flag == "--steps") steps = v;
    else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  lib::set_num_threads(threads);
#ifndef HEAD_TO_HEAD_LIBTORCH
  ember::backends::cpu::set_benchmark(true);  // as the sample trainer runs
#endif
  std::printf("head_to_head: %s, %d threads\n", kLibrary, threads);
  if (only != "model") {
    report("add_1", add_overhead_us(reps), "us");
    {
      const lib::Tensor a = lib::rand({int64_t(1) << 24}), b = lib::rand({int64_t(1) << 24});
      report("add_16m", add_bandwidth(a, b, reps), "GB/s");
    }
    report("memcpy_16m", memcpy_bandwidth(size_t(4) << 24, threads, reps), "GB/s");
    report("matmul_1024", matmul_gflops(reps), "GFLOP/s");
  }
  if (only != "ops") model_figures(steps);
  return 0;
}
