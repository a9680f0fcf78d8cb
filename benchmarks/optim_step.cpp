// Optimizer step time on the CPU: the fused update loops (nn/optim) against
// the same Adam update written as separate ember ops, measured in the same
// run, for the sample trainer's parameter set (~0.11M floats in 14 tensors)
// and for 10M floats (RMSprop and Adagrad too). Also the bandwidth the fused Adam step reaches (it
// reads p, g, m, v and writes p, m, v: 7 element-sized accesses). --dtype
// bfloat16 or float16 runs the same steps on 16-bit parameters and state,
// which the fused loops read as float and round once on store.
//
//   build-*/benchmarks/optim_step [--reps N] [--dtype float32|bfloat16|float16]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <ember/ember.h>
#include <ember/core/ops/nn_ops/fused_optim.h>
#include <ember/nn/optim/optim.h>

#include "bench_timing.h"

using namespace ember;
using bench_timing::median_seconds;

namespace {

// Parameters of the given shapes, each with a gradient.
std::vector<Tensor> make_params(const std::vector<std::vector<int64_t>>& shapes,
                                ScalarType dtype) {
  std::vector<Tensor> params;
  for (const auto& shape : shapes) {
    Tensor p = randn(shape).to(dtype).requires_grad_();
    p.set_grad((randn(shape) * 0.01).to(dtype));
    params.push_back(p);
  }
  return params;
}

// design.md section 8: three Conv2d(3x3) + BatchNorm2d blocks (32, 64, 128
// channels), then Linear(128*4*4 -> 10).
std::vector<std::vector<int64_t>> sample_model_shapes() {
  return {{32, 3, 3, 3},  {32},  {32},  {32},  {64, 32, 3, 3}, {64},     {64},
          {64},           {128, 64, 3, 3}, {128}, {128}, {128}, {10, 2048}, {10}};
}

int64_t count(const std::vector<Tensor>& params) {
  int64_t n = 0;
  for (const Tensor& p : params) n += p.numel();
  return n;
}

// torch.optim.Adam's single-tensor update written with one ember op per line:
// the unfused reference the fused loop is compared with.
struct UnfusedAdam {
  std::vector<Tensor> params, m, v;
  int64_t step = 0;
  double lr = 1e-3, b1 = 0.9, b2 = 0.999, eps = 1e-8;

  explicit UnfusedAdam(std::vector<Tensor> p) : params(std::move(p)) {
    for (const Tensor& t : params) {
      m.push_back(zeros_like(t));
      v.push_back(zeros_like(t));
    }
  }
  void run() {
    NoGradGuard no_grad;
    ++step;
    const double bias1 = 1 - std::pow(b1, step), bias2 = 1 - std::pow(b2, step);
    for (size_t i = 0; i < params.size(); ++i) {
      const Tensor& g = params[i].grad();
      m[i].mul_(b1).add_(g, 1 - b1);
      v[i].mul_(b2).add_(g * g, 1 - b2);
      const Tensor denom = v[i].sqrt() / std::sqrt(bias2) + eps;
      Tensor p = params[i];
      p.sub_(m[i] / denom, lr / bias1);
    }
  }
};

void bench(const char* set, const std::vector<std::vector<int64_t>>& shapes, ScalarType dtype,
           int reps) {
  const std::vector<Tensor> params = make_params(shapes, dtype);
  const int64_t n = count(params);
  std::printf("\n%s: %lld %s parameters in %zu tensors, %d threads\n", set,
              static_cast<long long>(n), dtype_name(dtype), params.size(), get_num_threads());

  auto time_opt = [&](const char* what, optim::Optimizer& opt) {
    opt.step();  // the first step makes the state
    const double s = median_seconds(reps, [&] { opt.step(); });
    std::printf("  %-34s %10.1f us/step  %7.2f ns/param\n", what, s * 1e6, s * 1e9 / n);
    return s;
  };
  optim::Adam adam(params, optim::AdamOptions(1e-3));
  const double fused = time_opt("Adam (fused)", adam);
  const double bytes = 7.0 * static_cast<double>(element_size(dtype)) * static_cast<double>(n);
  std::printf("  %-34s %10.2f GB/s\n", "  Adam bytes moved / time", bytes / fused / 1e9);
  optim::Adam ams(params, optim::AdamOptions(1e-3).amsgrad(true));
  time_opt("Adam amsgrad (fused)", ams);
  optim::AdamW adamw(params, optim::AdamWOptions(1e-3));
  time_opt("AdamW (fused)", adamw);
  optim::SGD sgd(params, optim::SGDOptions(1e-2).momentum(0.9).nesterov(true));
  time_opt("SGD nesterov (fused)", sgd);
  optim::RMSprop rmsprop(params, optim::RMSpropOptions(1e-3).momentum(0.9).centered(true));
  time_opt("RMSprop momentum centered (fused)", rmsprop);
  optim::Adagrad adagrad(params, optim::AdagradOptions(1e-2));
  time_opt("Adagrad (fused)", adagrad);

  if (dtype != kFloat) {
    // The same update on float32 copies of the 16-bit tensors, rounded back:
    // what running the float32 kernel through copies costs (ThroughFloat32,
    // Note [Kernels run through compute-dtype copies]).
    std::vector<Tensor> m, v;
    for (const Tensor& p : params) {
      m.push_back(zeros_like(p));
      v.push_back(zeros_like(p));
    }
    int64_t step = 0;
    auto through_copies = [&] {
      NoGradGuard no_grad;
      const AdamHyper h{1e-3, 0.9, 0.999, 1e-8, 0, false, false, ++step};
      for (size_t i = 0; i < params.size(); ++i) {
        const Tensor p32 = params[i].detach().to(kFloat), m32 = m[i].to(kFloat),
                     v32 = v[i].to(kFloat);
        fused::adam_step_(p32, params[i].grad().to(kFloat), m32, v32, Tensor(), h);
        Tensor(params[i]).detach().copy_(p32);
        m[i].copy_(m32);
        v[i].copy_(v32);
      }
    };
    through_copies();
    const double s = median_seconds(reps, through_copies);
    std::printf("  %-34s %10.1f us/step  %7.2f ns/param  (fused is %.1fx faster)\n",
                "Adam on float32 copies", s * 1e6, s * 1e9 / n, s / fused);
  }

  UnfusedAdam unfused(params);
  unfused.run();
  const double s = median_seconds(reps, [&] { unfused.run(); });
  std::printf("  %-34s %10.1f us/step  %7.2f ns/param  (fused is %.1fx faster)\n",
              "Adam as separate ember ops", s * 1e6, s * 1e9 / n, s / fused);
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 51;
  ScalarType dtype = kFloat;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--dtype") == 0 && i + 1 < argc) {
      const std::string name = argv[++i];
      if (name == "bfloat16") dtype = kBFloat16;
      else if (name == "float16") dtype = kHalf;
      else if (name != "float32") {
        std::fprintf(stderr, "optim_step: --dtype takes float32, bfloat16 or float16\n");
        return 2;
      }
    }
  }
  manual_seed(0);
  bench("sample model", sample_model_shapes(), dtype, reps * 10);
  bench("10M", {{2500, 1000}, {2500, 1000}, {2500, 1000}, {2500, 1000}}, dtype, reps);
  return 0;
}
