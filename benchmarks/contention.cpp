// The sample trainer's training step on a busy machine: quiet, then with one
// and with two competing busy processes, each started in a session of its own
// (setsid), as a compiler or a second training run started from another
// terminal would be. Linux's autogroup scheduling shares the CPU between
// sessions, which is when threads that wait at a barrier for a descheduled
// partner collapse (docs/threads.md). Each competitor spins for at most
// --seconds and is killed when its phase ends.
//   contention [--batch 64] [--steps 30] [--seconds 60] [--threads N]
//              [--reference "COMMAND"]
// --reference runs COMMAND (e.g. benchmarks/pytorch_reference.py step ...) in
// each phase too and prints its output, for a reference under the same load.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <ember/ember.h>

#include "bench_timing.h"
#include "model.h"

namespace {

// A busy process in its own session, spinning for at most `seconds`.
pid_t start_competitor(int seconds) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setsid();
    ::alarm(static_cast<unsigned>(seconds));  // bounded even if the parent dies
    volatile unsigned long spin = 0;
    for (;;) spin = spin + 1;
  }
  return pid;
}

void stop(std::vector<pid_t>& pids) {
  for (pid_t p : pids) ::kill(p, SIGKILL);
  for (pid_t p : pids) ::waitpid(p, nullptr, 0);
  pids.clear();
}

// Median milliseconds of `steps` training steps (forward, backward, Adam, the
// loss's item()), after three warm-up steps.
double median_step_ms(int64_t batch, int steps) {
  namespace F = ember::nn::functional;
  ember::manual_seed(1);
  train::Net model(3);
  ember::optim::Adam adam(model->parameters(), ember::optim::AdamOptions(1e-3));
  const ember::Tensor x = ember::randn({batch, 3, 32, 32});
  const ember::Tensor y = ember::randint(0, 10, {batch});
  auto step = [&] {
    const ember::Tensor loss = F::cross_entropy(model(x), y);
    adam.zero_grad();
    loss.backward();
    adam.step();
    (void)loss.item<float>();
  };
  for (int i = 0; i < 3; ++i) step();
  return bench_timing::median_seconds(steps, step) * 1e3;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t batch = 64;
  int steps = 30, seconds = 60;
  std::string reference;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--batch") batch = std::atoll(argv[i + 1]);
    else if (flag == "--steps") steps = std::atoi(argv[i + 1]);
    else if (flag == "--seconds") seconds = std::atoi(argv[i + 1]);
    else if (flag == "--threads") ember::set_num_threads(std::atoi(argv[i + 1]));
    else if (flag == "--reference") reference = argv[i + 1];
    else {
      std::fprintf(stderr, "contention: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  std::printf("sample model training step, batch %lld, 3x32x32, %d threads, median of %d; "
              "spin bound %d us\n",
              (long long)batch, ember::get_num_threads(), steps, ember::detail::spin_micros());
  ember::backends::cpu::set_benchmark(true);
  (void)median_step_ms(batch, 2);  // the benchmark-mode searches happen here, quiet
  double quiet = 0;
  const struct {
    int competitors;
    const char* goal;
  } phases[] = {{0, ""}, {1, "(goal <= 2.5x quiet)"}, {2, "(goal <= 4x quiet)"}};
  for (const auto& phase : phases) {
    std::vector<pid_t> pids;
    for (int c = 0; c < phase.competitors; ++c) pids.push_back(start_competitor(seconds));
    const double ms = median_step_ms(batch, steps);
    if (phase.competitors == 0) quiet = ms;
    std::printf("%d competing busy process%s: %8.2f ms  %5.2fx quiet %s\n", phase.competitors,
                phase.competitors == 1 ? "  " : "es", ms, ms / quiet, phase.goal);
    std::fflush(stdout);
    if (!reference.empty()) {
      std::printf("  reference, same load: %s\n", reference.c_str());
      std::fflush(stdout);
      if (std::system(reference.c_str()) != 0) std::printf("  (the reference failed)\n");
    }
    stop(pids);
  }
}
