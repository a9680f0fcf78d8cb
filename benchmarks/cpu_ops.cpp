// CPU figures to set against libtorch's (docs/benchmarks.md): the fixed cost
// of one op, the bandwidth of a large elementwise op next to std::memcpy on
// the same machine in the same run, and GEMM throughput (float32 with 2
// threads; bfloat16 against float32 on one thread), and the sample model's
// classifier, whose products have 10 columns. Each figure is the median of
// repeated runs, with 2 threads unless it says otherwise.
//
//   build-*/benchmarks/cpu_ops [--reps N]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <ember/ember.h>

#include "bench_timing.h"

using namespace ember;
using bench_timing::median_seconds;

namespace {

void report(const char* what, double value, const char* unit, const char* target) {
  std::printf("%-50s %9.3f %-9s %s\n", what, value, unit, target);
}

// Microseconds per `a + b` of one element, timed over a loop of many ops.
double add_overhead_us(const Tensor& a, const Tensor& b, int reps) {
  constexpr int kOps = 200000;
  const double s = median_seconds(reps, [&] {
    for (int i = 0; i < kOps; ++i) {
      const Tensor c = a + b;
    }
  });
  return s / kOps * 1e6;
}

// GB/s of c = a + b over n floats, counting a, b and c once each.
double add_bandwidth(const Tensor& a, const Tensor& b, int reps) {
  { const Tensor warm = a + b; }  // the first output block comes from the system
  const double s = median_seconds(reps, [&] { const Tensor c = a + b; });
  return 3.0 * static_cast<double>(a.nbytes()) / s / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 15;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--reps" && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
  }
  set_num_threads(2);
  std::printf("ember cpu_ops: %d threads, median of %d runs\n\n", get_num_threads(), reps);

  // (a) per-op overhead
  {
    const Tensor a = ones({1}), b = ones({1});
    const Tensor a_grad = ones({1}).requires_grad_();
    {
      NoGradGuard no_grad;
      add_overhead_us(a, b, 2);  // warm-up
      report("1-element add, grad mode off", add_overhead_us(a, b, reps), "us/op", "(target <= 0.30)");
    }
    add_overhead_us(a_grad, b, 2);
    report("1-element add, input requires grad", add_overhead_us(a_grad, b, reps), "us/op",
           "(target <= 0.57)");
  }

  // (b) 16M-float add that allocates its output, next to memcpy of the same bytes
  {
    NoGradGuard no_grad;
    constexpr int64_t kN = int64_t(1) << 24;  // 64 MiB of float32
    const Tensor a = rand({kN}), b = rand({kN});
    report("16M float add (3 x 64 MiB moved)", add_bandwidth(a, b, reps), "GB/s",
           "(target >= libtorch, 40-68)");
    const size_t bytes = static_cast<size_t>(kN) * sizeof(float);
    std::vector<char> src(bytes, 1), dst(bytes, 0);
    const double copy_s = median_seconds(reps, [&] { std::memcpy(dst.data(), src.data(), bytes); });
    report("  std::memcpy of 64 MiB (2 x 64 MiB moved)", 2.0 * bytes / copy_s / 1e9, "GB/s",
           "(one thread)");
    const double copy2_s = median_seconds(reps, [&] {  // each thread copies one half
      parallel_for(0, 2, 1, [&](int64_t begin, int64_t end) {
        for (int64_t h = begin; h < end; ++h)
          std::memcpy(dst.data() + h * bytes / 2, src.data() + h * bytes / 2, bytes / 2);
      });
    });
    report("  std::memcpy of 64 MiB, two threads", 2.0 * bytes / copy2_s / 1e9, "GB/s", "");
    cpu::set_caching_enabled(false);
    cpu::empty_cache();
    report("  same add, caching allocator off", add_bandwidth(a, b, reps), "GB/s",
           "(fresh pages each call)");
    cpu::set_caching_enabled(true);
  }

  // (c) GEMM
  {
    NoGradGuard no_grad;
    constexpr int64_t kSize = 1024;
    const Tensor a = randn({kSize, kSize}), b = randn({kSize, kSize});
    for (int i = 0; i < 2; ++i) mm(a, b);  // warm-up
    const double s = median_seconds(std::max(3, reps / 2), [&] { mm(a, b); });
    report("1024^3 float32 matmul", 2.0 * kSize * kSize * kSize / s / 1e9, "GFLOP/s",
           "(target >= 200)");
  }

  // (d) bfloat16 GEMM next to ember's own float32 GEMM, one thread, alternating
  // float32 and bfloat16 runs so that both see the same phases of a noisy host.
  {
    NoGradGuard no_grad;
    set_num_threads(1);
    std::printf("\n  one thread, float32 and bfloat16 alternating (median of %d pairs):\n", reps);
    for (int64_t n : {512, 1024, 2048}) {
      const Tensor a = randn({n, n}), b = randn({n, n});
      const Tensor a16 = a.to(kBFloat16), b16 = b.to(kBFloat16);
      mm(a, b), mm(a16, b16);  // warm-up
      std::vector<double> f32, bf16, ratio;
      for (int r = 0; r < reps; ++r) {
        f32.push_back(median_seconds(1, [&] { mm(a, b); }));
        bf16.push_back(median_seconds(1, [&] { mm(a16, b16); }));
        ratio.push_back(f32.back() / bf16.back());
      }
      auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
      };
      const double flop = 2.0 * double(n) * double(n) * double(n);
      const std::string size = std::to_string(n) + "^3";
      report((size + " float32 matmul, 1 thread").c_str(), flop / median(f32) / 1e9, "GFLOP/s", "");
      report((size + " bfloat16 matmul, 1 thread").c_str(), flop / median(bf16) / 1e9, "GFLOP/s", "");
      report((size + " bfloat16 speed-up over float32").c_str(), median(ratio), "x", "(target >= 1.8)");
    }
    set_num_threads(2);
  }

  // (e) the sample model's classifier, Linear(2048, 10) on a batch of 64, with its
  // cross-entropy loss: forward and backward (x's gradient and the layer's), float32 and
  // under autocast bfloat16 (x already bfloat16, as a bfloat16 batch norm hands it on).
  {
    std::printf("\n  the sample model's classifier, forward + backward with the loss:\n");
    nn::Linear classifier(2048, 10);
    const Tensor target = randint(0, 10, {64});
    for (const bool autocast_bf16 : {false, true}) {
      Tensor x = randn({64, 2048}).to(autocast_bf16 ? kBFloat16 : kFloat).requires_grad_();
      const auto step = [&] {
        Tensor loss;
        {
          std::optional<autocast::AutocastGuard> guard;
          if (autocast_bf16) guard.emplace(kCPU, kBFloat16);
          loss = nn::functional::cross_entropy(classifier(x), target);
        }
        loss.backward();
        x.mutable_grad() = Tensor();
        classifier->zero_grad();
      };
      for (const int threads : {1, 2}) {
        set_num_threads(threads);
        for (int i = 0; i < 20; ++i) step();  // warm-up
        constexpr int kSteps = 200;
        const double s = median_seconds(reps, [&] {
          for (int i = 0; i < kSteps; ++i) step();
        });
        const std::string what = std::string(autocast_bf16 ? "autocast bfloat16" : "float32") +
                                 ", " + std::to_string(threads) + " thread" +
                                 (threads > 1 ? "s" : "");
        report(("  " + what).c_str(), s / kSteps * 1e6, "us", "");
      }
    }
    set_num_threads(2);
  }
  return 0;
}
