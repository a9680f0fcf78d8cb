// A 2-layer LSTM on the CPU (batch 32, seq 50, input 64, hidden 128, float32):
// median time of forward + backward (grads of the input and every parameter
// from output.sum()), of the forward alone, and of an eval forward under
// NoGradGuard. benchmarks/lstm_reference.py times the same in PyTorch.
//
//   build-*/benchmarks/lstm_step [--reps N] [--threads N]
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <ember/ember.h>
#include <ember/nn/nn.h>

#include "bench_timing.h"

using namespace ember;
using bench_timing::median_seconds;

int main(int argc, char** argv) {
  int reps = 20, threads = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--reps") == 0) reps = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--threads") == 0) threads = std::atoi(argv[i + 1]);
  }
  set_num_threads(threads);
  const int64_t batch = 32, steps = 50, input_size = 64, hidden = 128;
  manual_seed(0);
  nn::LSTM lstm(nn::LSTMOptions(input_size, hidden).num_layers(2));
  Tensor x = randn({steps, batch, input_size}).requires_grad_();

  auto train_step = [&] {
    lstm->zero_grad();
    x.set_grad(Tensor());
    auto [output, state] = lstm(x);
    output.sum().backward();
  };
  auto forward = [&] { (void)lstm(x); };
  auto eval_forward = [&] {
    NoGradGuard no_grad;
    (void)lstm(x);
  };
  train_step();  // warm-up: allocations, thread pool
  const double train_s = median_seconds(reps, train_step);
  const double forward_s = median_seconds(reps, forward);
  const double eval_s = median_seconds(reps, eval_forward);
  std::printf("ember lstm_step: LSTM(%lld, %lld, num_layers=2), input (%lld, %lld, %lld), "
              "%d threads, median of %d runs\n",
              (long long)input_size, (long long)hidden, (long long)steps, (long long)batch,
              (long long)input_size, get_num_threads(), reps);
  std::printf("  forward + backward  %8.2f ms\n", train_s * 1e3);
  std::printf("  forward (grad mode) %8.2f ms\n", forward_s * 1e3);
  std::printf("  forward (no grad)   %8.2f ms\n", eval_s * 1e3);
  return 0;
}
