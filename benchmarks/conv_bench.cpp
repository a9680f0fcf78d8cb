// CPU convolution figures: for each conv layer of the sample model (CIFAR-10
// 3x32x32 and Fashion-MNIST 1x28x28 inputs, batch 64, 3x3 stride 2 pad 1,
// 3->32->64->128 channels, or 1->32->...), every algorithm that supports the
// layer, each pass (forward, backward-data, backward-weight): median time and
// GFLOP/s. Then the three layers through the op (the heuristic's choice),
// forward and forward + backward, as the model runs them. float32, 2 threads
// unless --threads says otherwise; --bf16 adds each layer's bfloat16 passes
// (conv_im2col_bf16.cpp, where the CPU has AVX-512 BF16) after its float32 ones.
//
//   build-*/benchmarks/conv_bench [--reps N] [--batch N] [--threads N] [--only LAYER|model]
//                                 [--bf16]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include <ember/ember.h>
#include <ember/core/ops/nn_ops/conv.h>
#include <ember/kernels/cpu/conv.h>
#include <ember/kernels/cpu/conv_algo_select.h>

using namespace ember;
using cpu::ConvAlgo;

namespace {

double cpu_now_ms() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

// Wall time, and CPU time: on a machine shared with other work, the CPU time
// of a 1-thread run shows what the code costs when wall time cannot (the CPU
// time of other threads is only counted at scheduler ticks, so it is printed
// for 1-thread runs only).
// min_ms: the fastest run, what the code does when no other process preempts it.
struct Timing {
  double wall_ms, cpu_ms, min_ms;
};

template <typename F>
Timing median_ms(int reps, const F& f) {
  f();  // warm-up: first touch of the buffers, the allocator's blocks
  std::vector<double> wall, cpu;
  for (int r = 0; r < reps; ++r) {
    const double cpu_start = cpu_now_ms();
    const auto start = std::chrono::steady_clock::now();
    f();
    const auto stop = std::chrono::steady_clock::now();
    wall.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
    cpu.push_back(cpu_now_ms() - cpu_start);
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], cpu[cpu.size() / 2], wall[0]};
}

std::string cpu_column(const Timing& t) {
  if (get_num_threads() != 1) return "";
  char text[32];
  std::snprintf(text, sizeof text, "  cpu %8.3f ms", t.cpu_ms);
  return text;
}

struct Layer {
  const char* name;
  ConvParams p;
};

// 3x3 stride 2 pad 1 as in the sample model, or a 1x1 stride 1 layer.
ConvParams layer(int64_t n, int64_t c, int64_t hw, int64_t k, int64_t kernel = 3) {
  ConvParams p;
  p.n = n, p.c = c, p.h = hw, p.w = hw, p.k = k, p.r = kernel, p.s = kernel;
  if (kernel == 3) p.stride = {2, 2}, p.padding = {1, 1};
  return p;
}

double gflop(const ConvParams& p) {
  return 2.0 * p.n * p.k * p.out_h() * p.out_w() * (p.c / p.groups) * p.r * p.s / 1e9;
}

void run(ConvPass pass, ConvAlgo algo, const ConvParams& p, const Tensor& x, const Tensor& w,
         const Tensor& b, const Tensor& y, const Tensor& gx, const Tensor& gw) {
  switch (pass) {
    case ConvPass::kForward:
      return cpu::conv_forward<float>(algo, p, {x.data_ptr<float>(), w.data_ptr<float>(),
                                                b.data_ptr<float>(), y.data_ptr<float>()});
    case ConvPass::kBackwardData:
      return cpu::conv_backward_data<float>(
          algo, p, {y.data_ptr<float>(), w.data_ptr<float>(), nullptr, gx.data_ptr<float>()});
    case ConvPass::kBackwardWeight:
      return cpu::conv_backward_weight<float>(
          algo, p, {x.data_ptr<float>(), y.data_ptr<float>(), gw.data_ptr<float>()});
  }
}

void bench_layer(const Layer& l, int reps) {
  const ConvParams& p = l.p;
  const Tensor x = randn({p.n, p.c, p.h, p.w}), w = randn({p.k, p.c / p.groups, p.r, p.s});
  const Tensor b = randn({p.k}), y = randn({p.n, p.k, p.out_h(), p.out_w()});
  const Tensor gx = empty_like(x), gw = empty_like(w);
  for (ConvPass pass : {ConvPass::kForward, ConvPass::kBackwardData, ConvPass::kBackwardWeight}) {
    const ConvAlgo chosen = cpu::conv_heuristic_algo(pass, p);
    for (int a = 0; a < cpu::kNumConvAlgos; ++a) {
      const auto algo = static_cast<ConvAlgo>(a);
      if (!cpu::conv_algo_supports(algo, pass, p)) continue;
      const Timing t = median_ms(reps, [&] { run(pass, algo, p, x, w, b, y, gx, gw); });
      std::printf("%-22s %-16s %-12s %8.3f ms %7.1f GFLOP/s  min %8.3f ms%s%s\n", l.name,
                  conv_pass_name(pass), cpu::conv_algo_name(algo), t.wall_ms,
                  gflop(p) / t.wall_ms * 1e3, t.min_ms, cpu_column(t).c_str(),
                  algo == chosen ? "  <- heuristic" : "");
    }
  }
}

// The layer's three bfloat16 passes, the products on the bfloat16 GEMM.
void bench_layer_bf16(const Layer& l, int reps) {
  ConvParams p = l.p;
  p.dtype = kBFloat16;
  const auto bf16 = [](const Tensor& t) { return t.to(kBFloat16); };
  const Tensor x = bf16(randn({p.n, p.c, p.h, p.w}));
  const Tensor w = bf16(randn({p.k, p.c / p.groups, p.r, p.s}));
  const Tensor b = bf16(randn({p.k})), y = bf16(randn({p.n, p.k, p.out_h(), p.out_w()}));
  const Tensor gx = empty_like(x), gw = empty_like(w);
  const auto* X = x.data_ptr<BFloat16>();
  const auto* W = w.data_ptr<BFloat16>();
  auto* Y = y.data_ptr<BFloat16>();
  for (ConvPass pass : {ConvPass::kForward, ConvPass::kBackwardData, ConvPass::kBackwardWeight}) {
    const Timing t = median_ms(reps, [&] {
      switch (pass) {
        case ConvPass::kForward:
          return cpu::conv_im2col_bf16_forward(p, {X, W, b.data_ptr<BFloat16>(), Y});
        case ConvPass::kBackwardData:
          return cpu::conv_im2col_bf16_backward_data(p, {Y, W, nullptr, gx.data_ptr<BFloat16>()});
        case ConvPass::kBackwardWeight:
          return cpu::conv_im2col_bf16_backward_weight(p, {X, Y, gw.data_ptr<BFloat16>()});
      }
    });
    std::printf("%-22s %-16s %-12s %8.3f ms %7.1f GFLOP/s  min %8.3f ms%s\n", l.name,
                conv_pass_name(pass), "im2col_bf16", t.wall_ms, gflop(p) / t.wall_ms * 1e3,
                t.min_ms, cpu_column(t).c_str());
  }
}

// The model's three convs through the op: forward only (eval), and forward +
// backward (train; the first layer's input needs no gradient).
void bench_model(const char* name, const std::vector<Layer>& layers, int reps) {
  std::vector<Tensor> xs, ws, bs;
  for (const Layer& l : layers) {
    xs.push_back(randn({l.p.n, l.p.c, l.p.h, l.p.w}));
    ws.push_back(randn({l.p.k, l.p.c, 3, 3}).requires_grad_());
    bs.push_back(randn({l.p.k}).requires_grad_());
  }
  double flops = 0;
  for (const Layer& l : layers) flops += gflop(l.p);
  const Timing eval = median_ms(reps, [&] {
    NoGradGuard no_grad;
    for (size_t i = 0; i < layers.size(); ++i) conv2d(xs[i], ws[i], bs[i], 2, 1);
  });
  std::printf("%-22s %-30s %8.3f ms %7.1f GFLOP/s  min %8.3f ms%s\n", name,
              "3 convs forward (eval)", eval.wall_ms, flops / eval.wall_ms * 1e3, eval.min_ms,
              cpu_column(eval).c_str());
  for (size_t i = 1; i < xs.size(); ++i) xs[i].requires_grad_();
  const Timing train = median_ms(reps, [&] {
    for (size_t i = 0; i < layers.size(); ++i) {
      const Tensor y = conv2d(xs[i], ws[i], bs[i], 2, 1);
      y.backward(ones_like(y));
    }
  });
  const double train_flops = 3 * flops - gflop(layers[0].p);
  std::printf("%-22s %-30s %8.3f ms %7.1f GFLOP/s  min %8.3f ms%s\n", name,
              "3 convs forward + backward", train.wall_ms, train_flops / train.wall_ms * 1e3,
              train.min_ms, cpu_column(train).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 21;
  int64_t batch = 64;
  int threads = 2;
  std::string only;  // only the layers whose name contains this, or "model" (for profiling)
  bool bf16 = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--reps" && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    if (arg == "--batch" && i + 1 < argc) batch = std::max(1, std::atoi(argv[++i]));
    if (arg == "--threads" && i + 1 < argc) threads = std::max(1, std::atoi(argv[++i]));
    if (arg == "--only" && i + 1 < argc) only = argv[++i];
    if (arg == "--bf16") bf16 = true;
  }
  if (bf16 && !cpu::conv_bf16_available()) {
    std::printf("--bf16 ignored: this CPU has no AVX-512 BF16, so bfloat16 convolutions run the "
                "float32 algorithms on float32 copies\n");
    bf16 = false;
  }
  set_num_threads(threads);
  std::printf("ember conv_bench: float32, batch %lld, %d threads, median of %d runs\n\n",
              static_cast<long long>(batch), get_num_threads(), reps);
  const std::vector<Layer> cifar{{"cifar 3x32x32->32", layer(batch, 3, 32, 32)},
                                 {"cifar 32x16x16->64", layer(batch, 32, 16, 64)},
                                 {"cifar 64x8x8->128", layer(batch, 64, 8, 128)}};
  const std::vector<Layer> fmnist{{"fmnist 1x28x28->32", layer(batch, 1, 28, 32)},
                                  {"fmnist 32x14x14->64", layer(batch, 32, 14, 64)},
                                  {"fmnist 64x7x7->128", layer(batch, 64, 7, 128)}};
  // 1x1 layers (not in the sample model): where the 1x1 algorithm competes.
  const std::vector<Layer> pointwise{{"1x1 64x16x16->128", layer(batch, 64, 16, 128, 1)},
                                     {"1x1 256x7x7->64", layer(batch, 256, 7, 64, 1)}};
  for (const auto* layers : {&cifar, &fmnist, &pointwise})
    for (const Layer& l : *layers)
      if (std::string(l.name).find(only) != std::string::npos) {
        bench_layer(l, reps);
        if (bf16) bench_layer_bf16(l, reps);
      }
  if (!only.empty() && only != "model") return 0;
  std::printf("\n");
  bench_model("cifar", cifar, reps);
  bench_model("fmnist", fmnist, reps);
  return 0;
}
