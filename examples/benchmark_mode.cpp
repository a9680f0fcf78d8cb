// benchmark_mode: what cudnn.benchmark-style algorithm search does, on the
// CPU conv algorithms (the cuDNN side works the same way; docs/benchmark-mode.md).
//
// With benchmark mode on, the first time a conv shape is seen every algorithm
// that supports it is timed (a "find") and the winner is cached; later calls
// with that shape are cache "hits". The first step pays for the search, the
// following ones use the fastest algorithm. Saving the cache to a file lets a
// second run skip the search: its first step costs what later steps cost.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <vector>

#include <ember/ember.h>

#include "model.h"

namespace cpu = ember::backends::cpu;
namespace F = ember::nn::functional;

namespace {

double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

// Trains the sample model for `steps` steps on one random batch; prints the
// first step's time, the median of the others, and the cache's counters.
void run(const char* title, int steps) {
  ember::manual_seed(1);
  train::Net model(3);
  ember::optim::Adam adam(model->parameters(), ember::optim::AdamOptions(1e-3));
  const ember::Tensor x = ember::randn({64, 3, 32, 32});
  const ember::Tensor y = ember::randint(0, 10, {64});
  std::vector<double> times;
  for (int i = 0; i < steps; ++i) {
    const double t = now_ms();
    const ember::Tensor loss = F::cross_entropy(model(x), y);
    adam.zero_grad();
    loss.backward();
    adam.step();
    (void)loss.item<float>();
    times.push_back(now_ms() - t);
  }
  const double first = times.front();
  std::vector<double> rest(times.begin() + 1, times.end());
  std::sort(rest.begin(), rest.end());
  const ember::backends::BenchmarkStats s = cpu::benchmark_stats();
  std::printf("%-34s first step %7.1f ms, later steps %6.1f ms (median) | finds %2lld, hits %3lld, "
              "%.3f s searching\n",
              title, first, rest[rest.size() / 2], (long long)s.finds, (long long)s.hits,
              s.find_seconds);
}

}  // namespace

int main() {
  const int steps = 8;
  std::printf("sample model, batch 64, 3x32x32, %d training steps each, CPU, %d threads\n\n", steps,
              ember::get_num_threads());

  cpu::set_benchmark(false);
  run("benchmark off (heuristic choice)", steps);

  cpu::set_benchmark(true);
  cpu::clear_benchmark_cache();
  run("benchmark on, empty cache", steps);
  std::printf("\nchosen algorithms:\n");
  for (const ember::backends::BenchmarkEntry& e : cpu::benchmark_entries())
    std::printf("  %-16s %-12s %s\n", e.pass.c_str(), e.algo.c_str(), e.key.c_str());

  const auto path = std::filesystem::temp_directory_path() / "ember_benchmark_mode_cache.txt";
  cpu::save_benchmark_cache(path.string());
  cpu::clear_benchmark_cache();  // as if the program started again...
  cpu::load_benchmark_cache(path.string());  // ...with EMBER_CPU_CONV_CACHE=<path>
  std::printf("\n");
  run("benchmark on, cache loaded from file", steps);
  std::filesystem::remove(path);
  return 0;
}
