// Times the sample trainer's model (design.md §8) on random data: a training
// step (forward, backward, Adam) and an eval forward under NoGradGuard, with
// conv benchmark mode off, on, and on with a cache loaded from a file. Prints
// the first step's cost, the median step, and the cache's finds and hits; on
// the CPU, then on CUDA when a device is present (there each timed step ends
// with the loss's item(), one synchronization, so the time is the device's).
// With --amp bf16 (or fp16, CUDA only) the forward and the loss of every step,
// and the eval forward, run under autocast (no GradScaler: the timing is the
// same, and a random batch does not underflow).
// With --compare (and --amp bf16) it times the float32 and the autocast step alternating in
// one process instead (compare_amp).
//   train_step [--batch 64] [--channels 3] [--size 32] [--steps 60] [--threads N]
//              [--amp off|bf16|fp16] [--compare]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
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

// The conv benchmark switches and statistics of the device's backend.
struct Backend {
  void (*set_benchmark)(bool);
  ember::backends::BenchmarkStats (*stats)();
  void (*save)(const std::string&);
  bool (*load)(const std::string&);
  void (*clear)();
};

Backend backend_of(ember::Device device) {
  namespace b = ember::backends;
  if (device.is_cuda())
    return {b::cudnn::set_benchmark, b::cudnn::benchmark_stats, b::cudnn::save_benchmark_cache,
            b::cudnn::load_benchmark_cache, b::cudnn::clear_benchmark_cache};
  return {b::cpu::set_benchmark, b::cpu::benchmark_stats, b::cpu::save_benchmark_cache,
          b::cpu::load_benchmark_cache, b::cpu::clear_benchmark_cache};
}

// The dtype of --amp (kFloat: off).
ember::ScalarType amp_dtype = ember::kFloat;

// Autocast to `dtype` on `device` for one scope (none for kFloat).
struct AmpScope {
  std::optional<ember::autocast::AutocastGuard> guard;
  AmpScope(ember::Device device, ember::ScalarType dtype) {
    if (dtype != ember::kFloat) guard.emplace(device.type(), dtype);
  }
  explicit AmpScope(ember::Device device) : AmpScope(device, amp_dtype) {}
};

// The model, its optimizer and one random batch.
struct Trainer {
  ember::Device device;
  train::Net model;
  ember::optim::Adam adam;
  ember::Tensor x, y;

  Trainer(ember::Device d, int64_t batch, int64_t channels, int64_t size)
      : device(d), model([&] {
          ember::manual_seed(1);
          train::Net m(channels);
          m->to(d);
          return m;
        }()),
        adam(model->parameters(), ember::optim::AdamOptions(1e-3)),
        x(ember::randn({batch, channels, size, size}).to(d)),
        y(ember::randint(0, 10, {batch}).to(d)) {}

  // One training step with the forward and the loss under autocast to `dtype`.
  float step(bool with_adam, ember::ScalarType dtype) {
    const ember::Tensor loss = [&] {
      const AmpScope amp(device, dtype);
      return ember::nn::functional::cross_entropy(model(x), y);
    }();
    adam.zero_grad();
    loss.backward();
    if (with_adam) adam.step();
    return loss.item<float>();
  }
};

Figures measure(ember::Device device, int64_t batch, int64_t channels, int64_t size, int steps) {
  Trainer trainer(device, batch, channels, size);
  train::Net& model = trainer.model;
  const ember::Tensor& x = trainer.x;
  Figures f;
  auto train_step = [&](bool with_adam) { return trainer.step(with_adam, amp_dtype); };
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
    const AmpScope amp(device);
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
  f.stats = backend_of(device).stats();
  return f;
}

void print(const char* mode, const Figures& f, int64_t batch) {
  std::printf("%-22s first step %8.1f ms | step %7.2f ms (%6.0f img/s) | fwd+bwd %7.2f ms | "
              "eval fwd %6.2f ms | finds %3lld, hits %5lld, %.2f s searching\n",
              mode, f.first_step_ms, f.step_ms, double(batch) / f.step_ms * 1e3, f.fwd_bwd_ms,
              f.eval_ms, (long long)f.stats.finds, (long long)f.stats.hits, f.stats.find_seconds);
}

// Benchmark mode off, on, and on with the cache saved to a file and loaded back.
void run_modes(ember::Device device, int64_t batch, int64_t channels, int64_t size, int steps) {
  std::printf("sample model, batch %lld, input %lldx%lldx%lld, %s, %s, median of %d\n",
              (long long)batch, (long long)channels, (long long)size, (long long)size,
              device.is_cpu() ? (std::to_string(ember::get_num_threads()) + " threads, CPU").c_str()
                              : "CUDA",
              amp_dtype == ember::kFloat ? "float32"
                                         : (std::string("autocast ") + ember::dtype_name(amp_dtype)).c_str(),
              steps);
  const Backend b = backend_of(device);
  b.clear();
  b.set_benchmark(false);
  print("benchmark off", measure(device, batch, channels, size, steps), batch);
  b.clear();
  b.set_benchmark(true);
  print("benchmark on", measure(device, batch, channels, size, steps), batch);
  const std::string path =
      (std::filesystem::temp_directory_path() / "ember_train_step_cache.txt").string();
  b.save(path);
  b.clear();
  b.load(path);
  print("on, cache from file", measure(device, batch, channels, size, steps), batch);
  std::filesystem::remove(path);
}

// --compare: the float32 and the autocast (amp_dtype) training steps of two copies of the
// model in one process, alternating in blocks of 5 steps (the first of each block untimed),
// benchmark mode on: a host whose speed drifts slows both alike, so the ratio of their
// medians holds still where separate runs' ratios scatter.
void compare_amp(int64_t batch, int64_t channels, int64_t size, int steps) {
  const ember::Device cpu(ember::kCPU);
  ember::backends::cpu::set_benchmark(true);
  Trainer plain(cpu, batch, channels, size), amp(cpu, batch, channels, size);
  std::vector<double> plain_ms, amp_ms;
  const auto block = [&](Trainer& trainer, ember::ScalarType dtype, std::vector<double>& ms) {
    trainer.step(true, dtype);
    for (int i = 0; i < 4; ++i) {
      const double t = now();
      trainer.step(true, dtype);
      ms.push_back((now() - t) * 1e3);
    }
  };
  for (int i = 0; i < 4; ++i) block(plain, ember::kFloat, plain_ms), block(amp, amp_dtype, amp_ms);
  plain_ms.clear(), amp_ms.clear();
  for (int i = 0; i < (steps + 3) / 4; ++i) {
    block(plain, ember::kFloat, plain_ms);
    block(amp, amp_dtype, amp_ms);
  }
  const double p = median(plain_ms), a = median(amp_ms);
  std::printf("sample model, batch %lld, input %lldx%lldx%lld, %d threads, CPU, benchmark on, "
              "median of %zu steps each\nfloat32 step %7.2f ms | autocast %s step %7.2f ms | "
              "ratio %.3f\n",
              (long long)batch, (long long)channels, (long long)size, (long long)size,
              ember::get_num_threads(), plain_ms.size(), p, ember::dtype_name(amp_dtype), a,
              a / p);
}

}  // namespace

int main(int argc, char** argv) {
  int64_t batch = 64, channels = 3, size = 32;
  int steps = 60;
  bool compare = false;
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--compare") {
      compare = true;
      --i;
      continue;
    }
    if (i + 1 == argc) {
      std::fprintf(stderr, "flag %s needs a value\n", flag.c_str());
      return 2;
    }
    const std::string value = argv[i + 1];
    const long long v = std::atoll(argv[i + 1]);
    if (flag == "--amp" && (value == "off" || value == "bf16" || value == "fp16"))
      amp_dtype = value == "bf16" ? ember::kBFloat16 : value == "fp16" ? ember::kHalf : ember::kFloat;
    else if (flag == "--batch") batch = v;
    else if (flag == "--channels") channels = v;
    else if (flag == "--size") size = v;
    else if (flag == "--steps") steps = int(v);
    else if (flag == "--threads") ember::set_num_threads(int(v));
    else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  if (compare) {
    if (amp_dtype != ember::kBFloat16) {
      std::fprintf(stderr, "--compare needs --amp bf16 (CPU autocast)\n");
      return 2;
    }
    compare_amp(batch, channels, size, steps);
    return 0;
  }
  if (amp_dtype != ember::kHalf) run_modes(ember::Device(ember::kCPU), batch, channels, size, steps);
  if (ember::cuda::is_available())
    run_modes(ember::Device(ember::kCUDA), batch, channels, size, steps);
  else
    std::printf("no CUDA device: %s\n", ember::cuda::build_info().c_str());
  return 0;
}
