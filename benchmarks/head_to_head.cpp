// One source, two libraries: compiled against ember by the build (program
// head_to_head) and against libtorch by scripts/head-to-head.sh (program
// head_to_head_libtorch, with HEAD_TO_HEAD_LIBTORCH defined), so both run the
// very same loops. Figures, one per line as "name value unit":
//   add_1           µs per `a + b` of one element under NoGradGuard
//   add_16m         GB/s of `c = a + b` over 2^24 floats, c allocated each time
//   memcpy_16m      GB/s of std::memcpy of the same 64 MiB on the same threads
//   matmul_1024     GFLOP/s of a 1024^3 float32 mm
//   train_step      ms of the sample model's step (forward, cross-entropy,
//                   backward, Adam), batch 64, 3x32x32
//   eval_forward    ms of its forward under NoGradGuard in eval mode
// Each is the median of `reps` runs (steps for the model's two).
//
//   head_to_head [--threads N] [--reps R] [--steps S] [--only ops|model]
//   head_to_head --serve [--threads N]
// With --serve it reads lines "FIGURE REPS" on stdin and answers each with
// the figure's line, so that a driver (scripts/head-to-head.sh) can alternate
// the two libraries every fraction of a second: on a shared host the
// machine's speed drifts between minutes, and only measurements taken side by
// side compare.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
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

// Every figure's operands, made once.
class Bench {
 public:
  explicit Bench(int threads) : threads_(threads) {
    lib::manual_seed(1);
    model_ = sample_model(3);
    adam_ = std::make_unique<lib::optim::Adam>(model_->parameters(),
                                               lib::optim::AdamOptions(1e-3));
  }

  // The figure's value, or a negative one for an unknown name.
  double measure(const std::string& figure, int reps) {
    lib::NoGradGuard no_grad_for_ops;
    if (figure == "add_1") {
      constexpr int kOps = 20000;
      return median_seconds(reps, [&] {
               for (int i = 0; i < kOps; ++i) {
                 const lib::Tensor c = one_a_ + one_b_;
               }
             }) /
             kOps * 1e6;
    }
    if (figure == "add_16m")  // a and b read, c written
      return 3.0 * double(big_a_.numel()) * sizeof(float) /
             median_seconds(reps, [&] { const lib::Tensor c = big_a_ + big_b_; }) / 1e9;
    if (figure == "memcpy_16m") return memcpy_bandwidth(reps);
    if (figure == "matmul_1024")
      return 2.0 * 1024 * 1024 * 1024 / median_seconds(reps, [&] { lib::mm(mat_a_, mat_b_); }) /
             1e9;
    if (figure == "train_step") {
      lib::AutoGradMode grad_on(true);
      model_->train();
      return median_seconds(reps, [&] {
               const lib::Tensor loss =
                   lib::nn::functional::cross_entropy(model_->forward(x_), y_);
               adam_->zero_grad();
               loss.backward();
               adam_->step();
               (void)loss.item<float>();
             }) *
             1e3;
    }
    if (figure == "eval_forward") {
      model_->eval();
      const double ms =
          median_seconds(reps, [&] { (void)model_->forward(x_).sum().item<float>(); }) * 1e3;
      model_->train();
      return ms;
    }
    return -1;
  }

  static const char* unit(const std::string& figure) {
    if (figure == "add_1") return "us";
    if (figure == "matmul_1024") return "GFLOP/s";
    if (figure == "add_16m" || figure == "memcpy_16m") return "GB/s";
    return "ms";
  }

 private:
  // memcpy of the 64 MiB split over the threads, counting source and
  // destination: the machine's copy bandwidth in the same run.
  double memcpy_bandwidth(int reps) {
    const size_t bytes = src_.size(), slice = bytes / size_t(threads_);
    auto copy = [&] {
      std::vector<std::thread> pool;
      for (int t = 1; t < threads_; ++t)
        pool.emplace_back([&, t] { std::memcpy(&dst_[t * slice], &src_[t * slice], slice); });
      std::memcpy(dst_.data(), src_.data(), slice);
      for (auto& th : pool) th.join();
    };
    return 2.0 * double(bytes) / median_seconds(reps, copy) / 1e9;
  }

  int threads_;
  lib::Tensor one_a_ = lib::ones({1}), one_b_ = lib::ones({1});
  lib::Tensor big_a_ = lib::rand({int64_t(1) << 24}), big_b_ = lib::rand({int64_t(1) << 24});
  std::vector<char> src_ = std::vector<char>(size_t(4) << 24, 1),
                    dst_ = std::vector<char>(size_t(4) << 24, 0);
  lib::Tensor mat_a_ = lib::randn({1024, 1024}), mat_b_ = lib::randn({1024, 1024});
  lib::nn::Sequential model_{nullptr};
  std::unique_ptr<lib::optim::Adam> adam_;
  lib::Tensor x_ = lib::randn({64, 3, 32, 32}), y_ = lib::randint(0, 10, {64});
};

void report(const std::string& figure, double value) {
  std::printf("%-14s %10.3f %s\n", figure.c_str(), value, Bench::unit(figure));
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 2, reps = 15, steps = 60;
  std::string only = "all";
  bool serve = false;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--serve") {
      serve = true;
      continue;
    }
    if (i + 1 == argc) {
      std::fprintf(stderr, "%s needs a value\n", flag.c_str());
      return 2;
    }
    const std::string value = argv[++i];
    if (flag == "--only") only = value;
    else if (flag == "--threads") threads = std::max(1, std::atoi(value.c_str()));
    else if (flag == "--reps") reps = std::max(1, std::atoi(value.c_str()));
    else if (flag == "--steps") steps = std::max(1, std::atoi(value.c_str()));
    else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  lib::set_num_threads(threads);
#ifndef HEAD_TO_HEAD_LIBTORCH
  ember::backends::cpu::set_benchmark(true);  // as the sample trainer runs
#endif
  Bench bench(threads);
  std::printf("head_to_head: %s, %d threads\n", kLibrary, threads);
  std::fflush(stdout);
  if (serve) {
    std::string line;
    while (std::getline(std::cin, line)) {
      std::istringstream in(line);
      std::string figure;
      int n = 0;
      if (!(in >> figure >> n) || n < 1) {
        std::printf("error: expected FIGURE REPS, got \"%s\"\n", line.c_str());
        std::fflush(stdout);
        continue;
      }
      const double value = bench.measure(figure, n);
      if (value < 0) std::printf("error: unknown figure %s\n", figure.c_str());
      else report(figure, value);
      std::fflush(stdout);
    }
    return 0;
  }
  const std::vector<std::string> ops{"add_1", "add_16m", "memcpy_16m", "matmul_1024"};
  if (only != "model")
    for (const std::string& figure : ops) {
      bench.measure(figure, 2);  // warm-up: first blocks from the system, first calls
      report(figure, bench.measure(figure, reps));
    }
  if (only != "ops")
    for (const std::string figure : {"train_step", "eval_forward"}) {
      bench.measure(figure, 5);
      report(figure, bench.measure(figure, steps));
    }
  return 0;
}
