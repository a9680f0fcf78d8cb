// The fused optimizer updates on CUDA (kernels/cuda/optim.cu) against the same
// optimizer on CPU copies of the parameters: SGD (plain, momentum with
// dampening and weight decay, nesterov), Adam / AdamW (weight decay,
// amsgrad), RMSprop (momentum, centered) and Adagrad, several steps from the
// same state and the same gradients (float32, float64, and the 16-bit floats
// the kernels read and round themselves), on
// parameters of 0, 1, 31 and 1025 elements, a non-contiguous one, and one of
// 65535 * 256 + 3 elements (more than one grid-stride pass). Tolerance, relative
// to max(1, |cpu value|): 1e-6 for float32 (the device may fuse a multiply-add
// the host rounds twice), 1e-12 for float64. A step after the first makes no
// cudaMalloc. The same with steps gated on the device (step_unless, every
// other one skipped). clip_grad_norm_ on CUDA gradients against the CPU too.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <ember/core/ops/creation/factory.h>
#include <ember/core/ops/creation/random.h>
#include <ember/core/cuda/memory.h>
#include <ember/core/cuda/sync_count.h>
#include <ember/nn/amp/grad_scaler.h>
#include <ember/nn/optim/adagrad.h>
#include <ember/nn/optim/adam.h>
#include <ember/nn/optim/adamw.h>
#include <ember/nn/optim/rmsprop.h>
#include <ember/nn/optim/sgd.h>
#include <ember/nn/utils/clip_grad.h>

#include "../test_helpers.h"

using namespace ember;
using namespace ember_test;

namespace {

const Device kGpu(kCUDA, 0);
constexpr int kSteps = 4;

using MakeOptimizer = std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor>)>;

struct Config {
  std::string name;
  MakeOptimizer make;
};

std::vector<Config> configs() {
  using namespace optim;
  return {
      {"SGD", [](std::vector<Tensor> p) { return std::make_unique<SGD>(p, SGDOptions(0.1)); }},
      {"SGD momentum dampening weight_decay",
       [](std::vector<Tensor> p) {
         return std::make_unique<SGD>(
             p, SGDOptions(0.1).momentum(0.9).dampening(0.3).weight_decay(0.01));
       }},
      {"SGD nesterov",
       [](std::vector<Tensor> p) {
         return std::make_unique<SGD>(p, SGDOptions(0.05).momentum(0.8).nesterov(true));
       }},
      {"Adam",
       [](std::vector<Tensor> p) {
         return std::make_unique<Adam>(p, AdamOptions(1e-2).weight_decay(0.1));
       }},
      {"Adam amsgrad",
       [](std::vector<Tensor> p) {
         return std::make_unique<Adam>(p, AdamOptions(1e-2).betas({0.8, 0.99}).amsgrad(true));
       }},
      {"AdamW amsgrad",
       [](std::vector<Tensor> p) {
         return std::make_unique<AdamW>(p, AdamWOptions(1e-2).weight_decay(0.05).amsgrad(true));
       }},
      {"RMSprop",
       [](std::vector<Tensor> p) {
         return std::make_unique<RMSprop>(p, RMSpropOptions(1e-2).weight_decay(0.1));
       }},
      {"RMSprop momentum centered",
       [](std::vector<Tensor> p) {
         return std::make_unique<RMSprop>(p, RMSpropOptions(1e-2).momentum(0.9).centered(true));
       }},
      {"Adagrad",
       [](std::vector<Tensor> p) {
         return std::make_unique<Adagrad>(
             p, AdagradOptions(0.1).lr_decay(0.01).weight_decay(0.1).initial_accumulator_value(0.2));
       }},
  };
}

// |randn| + 0.1 with a random sign.
Tensor random_nonzero(IntArrayRef shape, ScalarType dtype) {
  const Tensor r = randn(shape, kDouble);
  return ((r.abs() + 0.1) * where(randn(shape, kDouble) > 0, ones(shape, kDouble), -1.0))
      .to(dtype);
}

void require_close(const Tensor& gpu, const Tensor& cpu, double tol) {
  const std::vector<double> got = values(gpu.cpu()), want = values(cpu);
  REQUIRE(got.size() == want.size());
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i)
    worst = std::max(worst, std::abs(got[i] - want[i]) / std::max(1.0, std::abs(want[i])));
  CHECK(worst <= tol);
}

// The shapes of the parameters: the sizes of the brief, plus a transposed one.
struct ParamShape {
  std::vector<int64_t> sizes;
  bool transposed = false;
};

// gated: each step through step_unless (GradScaler's device-side skip), with
// the flag set on steps 0 and 2 (the first one skipped: SGD's momentum buffer
// starts on step 1, Adam's bias corrections count two steps).
void run_against_cpu(const Config& config, ScalarType dtype, bool with_large, bool gated = false) {
  std::vector<ParamShape> shapes = {{{0}}, {{1}}, {{31}}, {{1025}}, {{31, 33}, true}};
  if (with_large) shapes.push_back({{65535LL * 256 + 3}});
  std::vector<Tensor> cpu_params, gpu_params;
  for (const ParamShape& s : shapes) {
    const Tensor init = random_nonzero(s.sizes, dtype);
    cpu_params.push_back(init.clone().requires_grad_());
    Tensor on_gpu;
    if (s.transposed) {  // a non-contiguous leaf: (31, 33) with strides (1, 31)
      on_gpu = empty_strided(s.sizes, {1, s.sizes[0]}, TensorOptions(dtype).device(kGpu));
      on_gpu.copy_(init);
      REQUIRE_FALSE(on_gpu.is_contiguous());
    } else {
      on_gpu = init.to(kGpu);
    }
    gpu_params.push_back(on_gpu.requires_grad_());
  }
  auto cpu_opt = config.make(cpu_params);
  auto gpu_opt = config.make(gpu_params);
  // nvcc contracts the update's multiply-adds into FMAs: a few ulps a step
  // (in float32; a 16-bit result may then round to the neighbouring value).
  const double tol = dtype == kDouble  ? 1e-12
                     : dtype == kFloat ? 2e-6
                     : dtype == kHalf  ? 4e-3
                                       : 3e-2;
  uint64_t mallocs_after_first = 0;
  for (int step = 0; step < kSteps; ++step) {
    INFO("step " << step);
    for (size_t i = 0; i < shapes.size(); ++i) {
      const Tensor g = random_nonzero(shapes[i].sizes, dtype);
      cpu_params[i].set_grad(g);
      if (step == 0)
        gpu_params[i].set_grad(g.to(kGpu));
      else
        gpu_params[i].mutable_grad().copy_(g);  // reuses the gradient's memory
    }
    const float skip = step % 2 == 0 ? 1.0f : 0.0f;
    const Tensor cpu_flag = full({}, skip), gpu_flag = cpu_flag.to(kGpu);
    const uint64_t syncs = cuda::sync_count();
    if (gated) {
      cpu_opt->step_unless(cpu_flag);
      gpu_opt->step_unless(gpu_flag);
    } else {
      cpu_opt->step();
      gpu_opt->step();
    }
    CHECK(cuda::sync_count() == syncs);  // a step never waits for the device
    if (step == 0) mallocs_after_first = cuda::memory_stats().num_system_allocs;
    for (size_t i = 0; i < shapes.size(); ++i) {
      INFO("parameter " << i);
      require_close(gpu_params[i], cpu_params[i], tol);
    }
  }
  CHECK(cuda::memory_stats().num_system_allocs == mallocs_after_first);
}

}  // namespace

TEST_CASE("cuda optim: every optimizer's float32 CUDA step matches its CPU step",
          "[cuda_optim]") {
  for (const Config& c : configs()) {
    INFO(c.name);
    run_against_cpu(c, kFloat, /*with_large=*/c.name == "SGD momentum dampening weight_decay" ||
                                   c.name == "AdamW amsgrad");
  }
}

TEST_CASE("cuda optim: every optimizer's bfloat16 and float16 CUDA step matches its CPU step",
          "[cuda_optim]") {
  for (ScalarType dtype : {kBFloat16, kHalf})
    for (const Config& c : configs()) {
      INFO(c.name << ", " << dtype);
      run_against_cpu(c, dtype, /*with_large=*/false);
    }
}

TEST_CASE("cuda optim: steps skipped on the device match the CPU's and never wait for the flag",
          "[cuda_optim]") {
  for (const Config& c : configs()) {
    INFO(c.name);
    run_against_cpu(c, kFloat, /*with_large=*/c.name == "Adam amsgrad", /*gated=*/true);
  }
}

// Small shapes only: also in the sanitizer subset (memcheck_test.cpp).
TEST_CASE("cuda optim: every optimizer's float64 CUDA step matches its CPU step",
          "[cuda_optim][memcheck]") {
  for (const Config& c : configs()) {
    INFO(c.name);
    run_against_cpu(c, kDouble, /*with_large=*/false);
  }
}

TEST_CASE("cuda optim: clip_grad_norm_ on CUDA gradients matches the CPU and syncs once",
          "[cuda_optim]") {
  // Tolerance: 1e-6 (float32 gradients; the device sums in another order).
  for (double norm_type : {2.0, 1.0, 3.0, std::numeric_limits<double>::infinity()}) {
    INFO("norm_type " << norm_type);
    std::vector<Tensor> cpu_params, gpu_params;
    for (int64_t n : {0, 1, 31, 1025}) {  // an empty gradient adds 0 (inf norm too)
      const Tensor p = random_nonzero({n}, kFloat), g = random_nonzero({n}, kFloat);
      cpu_params.push_back(p.clone().requires_grad_());
      cpu_params.back().set_grad(g.clone());
      gpu_params.push_back(p.to(kGpu).requires_grad_());
      gpu_params.back().set_grad(g.to(kGpu));
    }
    {  // a transposed (non-contiguous) gradient, viewed after the copy to the device
      const Tensor p = random_nonzero({33, 31}, kFloat), g = random_nonzero({31, 33}, kFloat);
      cpu_params.push_back(p.clone().requires_grad_());
      cpu_params.back().set_grad(g.clone().t());
      gpu_params.push_back(p.to(kGpu).requires_grad_());
      gpu_params.back().set_grad(g.to(kGpu).t());
    }
    const double want = nn::utils::clip_grad_norm_(cpu_params, 0.5, norm_type);
    const uint64_t syncs = cuda::sync_count();
    const double got = nn::utils::clip_grad_norm_(gpu_params, 0.5, norm_type);
    CHECK(cuda::sync_count() == syncs + 1);  // reading the returned total
    CHECK(std::abs(got - want) <= 1e-6 * std::max(1.0, std::abs(want)));
    for (size_t i = 0; i < cpu_params.size(); ++i)
      require_close(gpu_params[i].grad(), cpu_params[i].grad(), 1e-6);
  }
}

TEST_CASE("cuda optim: clip_grad_norm_tensor_ on CUDA gradients makes no host sync",
          "[cuda_optim]") {
  Tensor p = zeros({2}, TensorOptions().device(kGpu)).requires_grad_();
  p.set_grad(tensor({3.0f, 4.0f}).to(kGpu));
  const uint64_t syncs = cuda::sync_count();
  const Tensor total = nn::utils::clip_grad_norm_tensor_({p}, 1.0);
  CHECK(cuda::sync_count() == syncs);
  CHECK(total.is_cuda());
  CHECK(total.dtype() == kDouble);
  CHECK(total.item<double>() == Approx(5.0).epsilon(1e-12));
  require_close(p.grad(), tensor({3.0f, 4.0f}) / (5.0 + 1e-6), 1e-6);
}

TEST_CASE("cuda optim: clip_grad_norm_ with error_if_nonfinite leaves CUDA gradients alone",
          "[cuda_optim]") {
  Tensor p = zeros({3}, TensorOptions().device(kGpu)).requires_grad_();
  p.set_grad(tensor({1.0f, INFINITY, 2.0f}).to(kGpu));
  REQUIRE_THROWS_WITH(nn::utils::clip_grad_norm_(p, 1.0, 2.0, /*error_if_nonfinite=*/true),
                      Catch::Contains("clip_grad_norm_: the total norm of order 2 of the "
                                      "gradients is inf"));
  CHECK(values(p.grad().cpu())[0] == 1.0);
  // Only empty gradients: a total of 0 on the device, nothing scaled.
  Tensor e = zeros({0}, TensorOptions().device(kGpu)).requires_grad_();
  e.set_grad(zeros({0}, TensorOptions().device(kGpu)));
  CHECK(nn::utils::clip_grad_norm_(e, 1.0, INFINITY, true) == 0.0);
  CHECK(nn::utils::clip_grad_norm_(e, 1.0, 2.0, true) == 0.0);
  Tensor q = zeros({2}).requires_grad_();
  q.mutable_grad() = ones({2});
  REQUIRE_THROWS_WITH(nn::utils::clip_grad_norm_({p, q}, 1.0),
                      Catch::Contains("clip_grad_norm_: all gradients must be on one device"));
}

TEST_CASE("cuda optim: a GradScaler step makes no host sync and matches the CPU, skips included",
          "[cuda_optim][amp]") {
  // loss = sum(w * x): the gradient is x * scale; step 2 has an inf in it.
  const Tensor init = tensor({1.0f, 2.0f, -3.0f, 0.5f});
  Tensor cpu_w = init.clone().requires_grad_(), gpu_w = init.to(kGpu).requires_grad_();
  optim::Adam cpu_opt({cpu_w}, optim::AdamOptions(0.01));
  optim::Adam gpu_opt({gpu_w}, optim::AdamOptions(0.01));
  amp::GradScaler cpu_scaler, gpu_scaler;
  for (int step = 0; step < 5; ++step) {
    INFO("step " << step);
    Tensor x = tensor({0.5f, -1.0f, 0.25f * static_cast<float>(step), 2.0f});
    if (step == 2) x = tensor({0.5f, INFINITY, 1.0f, 2.0f});
    const Tensor gx = x.to(kGpu);
    cpu_opt.zero_grad();
    gpu_opt.zero_grad();
    const uint64_t syncs = cuda::sync_count();
    gpu_scaler.scale((gpu_w * gx).sum()).backward();
    gpu_scaler.step(gpu_opt);
    gpu_scaler.update();
    CHECK(cuda::sync_count() == syncs);
    cpu_scaler.scale((cpu_w * x).sum()).backward();
    cpu_scaler.step(cpu_opt);
    cpu_scaler.update();
    require_close(gpu_w.detach(), cpu_w.detach(), 2e-6);
  }
  CHECK(gpu_scaler.get_scale() == 32768.0);
  CHECK(gpu_opt.state_dict()["state.0.step"].item<int64_t>() == 4);
}
