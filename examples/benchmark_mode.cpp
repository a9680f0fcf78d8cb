// benchmark_mode: what cudnn.benchmark-style algorithm search does, on the
// CPU conv algorithms, then on cuDNN's when a CUDA device is present (both
// caches work the same way; docs/benchmark-mode.md).
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
#include <string>
#include <vector>

#include <ember/ember.h>

#include "model.h"

namespace backends = ember::backends;
namespace F = ember::nn::functional;

namespace {

double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

// The benchmark switches, cache and counters of the conv backend of a device.
struct ConvBackend {
  void (*set_benchmark)(bool);
  backends::BenchmarkStats (*stats)();
  std::vector<backends::BenchmarkEntry> (*entries)();
  void (*save)(const std::string&);
  bool (*load)(const std::string&);
  void (*clear)();
};

ConvBackend conv_backend(ember::Device device) {
  if (device.is_cuda())
    return {backends::cudnn::set_benchmark, backends::cudnn::benchmark_stats,
            backends::cudnn::benchmark_entries, backends::cudnn::save_benchmark_cache,
            backends::cudnn::load_benchmark_cache, backends::cudnn::clear_benchmark_cache};
  return {backends::cpu::set_benchmark, backends::cpu::benchmark_stats,
          backends::cpu::benchmark_entries, backends::cpu::save_benchmark_cache,
          backends::cpu::load_benchmark_cache, backends::cpu::clear_benchmark_cache};
}

// Trains the sample model on `device` for `steps` steps on one random batch;
// prints the first step's time, the median of the others, and the cache's
// counters. Each step ends with item(), so on CUDA the times are the device's.
void run(ember::Device device, const char* title, int steps) {
  ember::manual_seed(1);
  train::Net model(3);
  model->to(device);
  ember::optim::Adam adam(model->parameters(), ember::optim::AdamOptions(1e-3));
  const ember::Tensor x = ember::randn({64, 3, 32, 32}).to(device);
  const ember::Tensor y = ember::randint(0, 10, {64}).to(device);
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
  const backends::BenchmarkStats s = conv_backend(device).stats();
  std::printf("%-34s first step %7.1f ms, later steps %6.1f ms (median) | finds %2lld, hits %3lld, "
              "%.3f s searching\n",
              title, first, rest[rest.size() / 2], (long long)s.finds, (long long)s.hits,
              s.find_seconds);
}

// Benchmark off, on with an empty cache, and on with the cache saved to a
// file and loaded back, as a second run of the program would with
// EMBER_CPU_CONV_CACHE / EMBER_CUDNN_CACHE set.
void compare_modes(ember::Device device, int steps) {
  const ConvBackend b = conv_backend(device);
  b.set_benchmark(false);
  run(device, "benchmark off (heuristic choice)", steps);

  b.set_benchmark(true);
  b.clear();
  run(device, "benchmark on, empty cache", steps);
  std::printf("\nchosen algorithms:\n");
  for (const backends::BenchmarkEntry& e : b.entries())
    std::printf("  %-16s %-12s %s\n", e.pass.c_str(), e.algo.c_str(), e.key.c_str());

  const auto path = std::filesystem::temp_directory_path() / "ember_benchmark_mode_cache.txt";
  b.save(path.string());
  b.clear();  // as if the program started again...
  b.load(path.string());  // ...with the cache file named in the environment
  std::printf("\n");
  run(device, "benchmark on, cache loaded from file", steps);
  std::filesystem::remove(path);
}

}  // namespace

int main() {
  const int steps = 8;
  std::printf("sample model, batch 64, 3x32x32, %d training steps each, CPU, %d threads\n\n", steps,
              ember::get_num_threads());
  compare_modes(ember::Device(ember::kCPU), steps);
  if (ember::cuda::is_available()) {
    std::printf("\nthe same on CUDA, with cuDNN's algorithms\n\n");
    compare_modes(ember::Device(ember::kCUDA), steps);
  } else {
    std::printf("\nno CUDA device: on one, the same comparison runs with cuDNN's algorithms\n");
  }
  return 0;
}
