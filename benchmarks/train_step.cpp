// Times the sample trainer's model (design.md §8) on random data: a training
// step (forward, backward, Adam) and an eval forward under NoGradGuard, with
// conv benchmark mode off, on, and on with a cache loaded from a file. Prints
// the first step's cost, the median step, and the cache's finds and hits.
//   train_step [--batch 64] [--channels 3] [--size 32] [--steps 60] [--threads N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <ember/ember.h>

#include "model.h"

namespace {

double now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

struct Figures {
  double first_step_ms = 0, step_ms = 0, fwd_bwd_ms = 0, eval_ms = 0;
  ember::backends::BenchmarkStats stats;
};

Figures measure(int64_t batch, int64_t channels, int64_t size, int steps) {
  namespace F = ember::nn::functional;
  ember::manual_seed(1);
  train::Net model(channels);
  ember::optim::Adam adam(model->parameters(), ember::optim::AdamOptions(1e-3));
  const ember::Tensor x = ember::randn({batch, channels, size, size});
  const ember::Tensor y = ember::randint(0, 10, {batch});
  Figures f;
  auto train_step = [&](bool with_adam) {
    const ember::Tensor loss = F::cross_entropy(model(x), y);
    adam.zero_grad();
    loss.backward();
    if (with_adam) adam.step();
    return loss.item<float>();
  };
  double t = now();
  train_step(true);
  f.first_step_ms = (now() - t) * 1e3;
  for (int i = 0; i < 3; ++i) train_step(true);
  std::vector<double> full, fb, ev;
  for (int i = 0; i < steps; ++i) {
    t = now();
    train_step(true);
    full.push_back((now() - t) * 1e3);
    t = now();
    train_step(false);
    fb.push_back((now() - t) * 1e3);
  }
  {
    ember::NoGradGuard no_grad;
    model->eval();
    for (int i = 0; i < steps; ++i) {
      t = now();
      const ember::Tensor out = model(x);
      (void)out.sum().item<float>();
      ev.push_back((now() - t) * 1e3);
    }
  }
  f.step_ms = median(full);
  f.fwd_bwd_ms = median(fb);
  f.eval_ms = median(ev);
  f.stats = ember::backends::cpu::benchmark_stats();
  return f;
}

void print(const char* mode, const Figures& f, int64_t batch) {
  std::printf("%-22s first step %8.1f ms | step %7.2f ms (%6.0f img/s) | fwd+bwd %7.2f ms | "
              "eval fwd %6.2f ms | finds %3lld, hits %5lld, %.2f s searching\n",
              mode, f.first_step_ms, f.step_ms, double(batch) / f.step_ms * 1e3, f.fwd_bwd_ms,
              f.eval_ms, (long long)f.stats.finds, (long long)f.stats.hits, f.stats.find_seconds);
}

}  // namespace

int main(int argc, char** argv) {
  int64_t batch = 64, channels = 3, size = 32;
  int steps = 60;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const long long v = std::atoll(argv[i + 1]);
    if (flag == "--batch") batch = v;
    else if (flag == "--channels") channels = v;
    else if (flag == "--size") size = v;
    else if (flag == "--steps") steps = int(v);
    else if (flag == "--threads") ember::set_num_threads(int(v));
    else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  std::printf("sample model, batch %lld, input %lldx%lldx%lld, %d threads, CPU, median of %d\n",
              (long long)batch, (long long)channels, (long long)size, (long long)size,
              ember::get_num_threads(), steps);
  namespace cpu = ember::backends::cpu;
  cpu::clear_benchmark_cache();
  cpu::set_benchmark(false);
  print("benchmark off", measure(batch, channels, size, steps), batch);

  cpu::clear_benchmark_cache();
  cpu::set_benchmark(true);
  print("benchmark on", measure(batch, channels, size, steps), batch);

  const std::string path =
      (std::filesystem::temp_directory_path() / "ember_train_step_cache.txt").string();
  cpu::save_benchmark_cache(path);
  cpu::clear_benchmark_cache();
  cpu::load_benchmark_cache(path);
  print("on, cache from file", measure(batch, channels, size, steps), batch);
  std::filesystem::remove(path);
  if (ember::cuda::is_available())
    std::printf("CUDA: the CUDA backend's tensor ops are not built yet (issue #4)\n");
  return 0;
}
