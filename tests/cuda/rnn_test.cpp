// LSTM and GRU on CUDA tensors against the same modules on the CPU: the
// layers are ember ops (nn/modules/rnn.cpp), so this checks that their
// composition (one input matmul per layer, the per-step gates, unbind/stack)
// gives the CPU's outputs and gradients. Tolerance 1e-4 relative (float32,
// cuBLAS vs the CPU GEMM, TF32 off by default, over 2 layers x 5 steps).
#include <ember/ember.h>
#include <ember/nn/nn.h>

#include <catch2/catch.hpp>
#include <vector>

#include "nn_compare.h"

using namespace ember;
using cuda_test::kGpu;
using nn_compare::check_close;

namespace {

// Runs f(x) -> loss on the CPU, moves module and x to the GPU, runs it again,
// and compares the loss, x's gradient and every parameter's gradient.
template <typename Holder, typename F>
void compare_devices(Holder& module, const Tensor& x0, const F& f) {
  const Tensor x_cpu = x0.detach().requires_grad_();
  const Tensor out_cpu = f(x_cpu);
  out_cpu.sum().backward();
  std::vector<Tensor> grads_cpu;
  for (const Tensor& p : module->parameters()) grads_cpu.push_back(p.grad().clone());
  module->zero_grad();
  module->to(kGpu);
  const Tensor x_gpu = x0.to(kGpu).detach().requires_grad_();
  const Tensor out_gpu = f(x_gpu);
  out_gpu.sum().backward();
  check_close(out_gpu, out_cpu, 1e-4, "output");
  check_close(x_gpu.grad(), x_cpu.grad(), 1e-4, "input gradient");
  const auto params = module->named_parameters();
  for (size_t i = 0; i < params.size(); ++i)
    check_close(params[i].value().grad(), grads_cpu[i], 1e-4, params[i].key());
}

}  // namespace

TEST_CASE("cuda LSTM and GRU match the CPU, forward and backward",
          "[cuda][cuda_rnn][memcheck]") {
  manual_seed(1);
  const Tensor x = randn({3, 5, 7});  // batch_first: (B, T, in)
  SECTION("LSTM, 2 layers, bidirectional, batch_first") {
    nn::LSTM lstm(nn::LSTMOptions(7, 6).num_layers(2).bidirectional(true).batch_first(true));
    compare_devices(lstm, x, [&lstm](const Tensor& in) {
      auto [output, state] = lstm(in);
      return cat({output.flatten(), std::get<0>(state).flatten(), std::get<1>(state).flatten()});
    });
  }
  SECTION("GRU, 2 layers, time-major") {
    nn::GRU gru(nn::GRUOptions(7, 6).num_layers(2));
    compare_devices(gru, x, [&gru](const Tensor& in) {
      auto [output, h_n] = gru(in);
      return cat({output.flatten(), h_n.flatten()});
    });
  }
}
