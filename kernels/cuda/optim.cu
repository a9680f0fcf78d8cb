// The fused optimizer updates on CUDA (kernels/cuda/optim.h): the operand
// checks, and one grid-stride loop that applies a shared functor of
// optim_functors.h to every element, instantiated per dtype (float16 and
// bfloat16 elements computed in float32, rounded once on store) and per
// combination of the flags that change the update rule.
#include "ember/kernels/cuda/optim.h"

#include "ember/core/error.h"
#include "ember/kernels/cuda/cuda_check.h"
#include "ember/kernels/cuda/device_guard.h"
#include "ember/kernels/common/cuda_plans/host_helpers.h"
#include "ember/kernels/common/dtype_set.h"

namespace ember::cuda::detail {

// A gate's device pointers; found_inf null: an ordinary step.
struct Gate {
  const float* found_inf = nullptr;
  const int64_t* step = nullptr;
};

namespace {

// f(operands..., i) for every element i < numel.
template <typename F, typename... Ptr>
__global__ void update_kernel(F f, int64_t numel, Ptr... operands) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < numel; i += step)
    f(operands..., i);
}

// A step the device may skip (Note [Steps skipped on the device]): every
// thread reads the flag and the step count itself, and builds the update
// from the count (rule(step): optim_functors.h), so the host never waits.
template <typename Rule, typename... Ptr>
__global__ void gated_update_kernel(Rule rule, const float* found_inf, const int64_t* step_count,
                                    int64_t numel, Ptr... operands) {
  if (*found_inf != 0) return;
  const auto f = rule(step_count != nullptr ? *step_count : 0);
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < numel; i += step)
    f(operands..., i);
}

__global__ void count_step_kernel(int64_t* step, const float* found_inf) {
  if (*found_inf == 0) ++*step;
}

// rule's update on every element: gated (the kernel reads the flag and the
// step count), or for the host's step count.
template <typename Rule, typename... Ptr>
void launch_rule(const OptimGrid& grid, int64_t numel, const Rule& rule, int64_t host_step,
                 const Gate& gate, Ptr... operands) {
  if (gate.found_inf != nullptr) {
    gated_update_kernel<Rule, Ptr...><<<grid.blocks, grid.threads, 0, nullptr>>>(
        rule, gate.found_inf, gate.step, numel, operands...);
  } else {
    const auto f = rule(host_step);
    update_kernel<decltype(f), Ptr...><<<grid.blocks, grid.threads, 0, nullptr>>>(f, numel,
                                                                                operands...);
  }
  EMBER_CUDA_CHECK_LAUNCH();
}

}  // namespace

void launch_sgd_update(ScalarType dtype, const OptimGrid& grid, int64_t numel, void* param,
                       const void* grad, void* buf, const SgdHyper& h, bool first_step,
                       const Gate& gate) {
  dispatch_floating_storage(dtype, "sgd_update", [&]<typename S>() {
    using T = opmath_t<S>;  // elements of S, computed in T
    S* p = static_cast<S*>(param);
    const S* g = static_cast<const S*>(grad);
    S* b = static_cast<S*>(buf);
    if (h.momentum == 0)
      return launch_rule(grid, numel, functors::SgdPlainRule<T>{h}, 0, gate, p, g, b);
    // The buffer's first step is the one whose count is 1 (SgdMomentumRule).
    with_flag(h.nesterov, [&]<bool kNesterov>() {
      launch_rule(grid, numel, functors::SgdMomentumRule<T, kNesterov>{h}, first_step ? 1 : 2,
                  gate, p, g, b);
    });
  });
}

void launch_adam_update(ScalarType dtype, const OptimGrid& grid, int64_t numel, void* param,
                        const void* grad, void* exp_avg, void* exp_avg_sq, void* max_exp_avg_sq,
                        const AdamHyper& h, const Gate& gate) {
  dispatch_floating_storage(dtype, "adam_update", [&]<typename S>() {
    using T = opmath_t<S>;
    with_flag(h.amsgrad, [&]<bool kAmsgrad>() {
      with_flag(h.decoupled_weight_decay, [&]<bool kDecoupled>() {
        launch_rule(grid, numel, functors::AdamRule<T, kAmsgrad, kDecoupled>{h}, h.step, gate,
                    static_cast<S*>(param), static_cast<const S*>(grad), static_cast<S*>(exp_avg),
                    static_cast<S*>(exp_avg_sq), static_cast<S*>(max_exp_avg_sq));
      });
    });
  });
}

void launch_rmsprop_update(ScalarType dtype, const OptimGrid& grid, int64_t numel, void* param,
                           const void* grad, void* square_avg, void* momentum_buffer,
                           void* grad_avg, const RmspropHyper& h, const Gate& gate) {
  dispatch_floating_storage(dtype, "rmsprop_update", [&]<typename S>() {
    using T = opmath_t<S>;
    with_flag(h.momentum > 0, [&]<bool kMomentum>() {
      with_flag(h.centered, [&]<bool kCentered>() {
        launch_rule(grid, numel, functors::RmspropRule<T, kMomentum, kCentered>{h}, 0, gate,
                    static_cast<S*>(param), static_cast<const S*>(grad),
                    static_cast<S*>(square_avg), static_cast<S*>(momentum_buffer),
                    static_cast<S*>(grad_avg));
      });
    });
  });
}

void launch_adagrad_update(ScalarType dtype, const OptimGrid& grid, int64_t numel, void* param,
                           const void* grad, void* sum, const AdagradHyper& h, const Gate& gate) {
  dispatch_floating_storage(dtype, "adagrad_update", [&]<typename S>() {
    launch_rule(grid, numel, functors::AdagradRule<opmath_t<S>>{h}, h.step, gate,
                static_cast<S*>(param), static_cast<const S*>(grad), static_cast<S*>(sum));
  });
}

void launch_count_step(int64_t* step, const float* found_inf) {
  count_step_kernel<<<1, 1, 0, nullptr>>>(step, found_inf);
  EMBER_CUDA_CHECK_LAUNCH();
}

}  // namespace ember::cuda::detail

namespace ember::cuda {

namespace {

void check_operand(const char* op, const Tensor& param, const Tensor& t) {
  EMBER_INTERNAL_ASSERT(t.is_cuda() && t.device() == param.device() && t.is_contiguous() &&
                            t.dtype() == param.dtype() && t.numel() == param.numel(),
                        op, ": operand ", t.toString(), " for parameter ", param.toString());
}

void check_param(const char* op, const Tensor& param) {
  EMBER_INTERNAL_ASSERT(param.is_cuda() && param.is_contiguous() && param.is_floating_point(),
                        op, ": parameter ", param.toString());
}

// The gate's device pointers (null where inactive); core/ops/nn_ops/fused_optim.cpp
// checked its dtypes and devices.
detail::Gate gate_pointers(const char* op, const Tensor& param, const StepGate& gate) {
  if (!gate.active()) return {};
  EMBER_INTERNAL_ASSERT(gate.found_inf.device() == param.device() &&
                            (!gate.step.defined() || gate.step.device() == param.device()),
                        op, ": a gate off the device of parameter ", param.toString());
  return {gate.found_inf.data_ptr<float>(),
          gate.step.defined() ? gate.step.data_ptr<int64_t>() : nullptr};
}

}  // namespace

void sgd_update(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
                const SgdHyper& h, bool first_step, const StepGate& gate) {
  check_param("sgd_update", param);
  check_operand("sgd_update", param, grad);
  const bool momentum = h.momentum != 0;
  if (momentum) check_operand("sgd_update", param, momentum_buffer);
  if (param.numel() == 0) return;
  DeviceGuard guard(detail::device_of(param));
  detail::launch_sgd_update(param.dtype(), optim_grid(param.numel()), param.numel(),
                            param.data_ptr(), grad.data_ptr(),
                            momentum ? momentum_buffer.data_ptr() : nullptr, h, first_step,
                            gate_pointers("sgd_update", param, gate));
}

void adam_update(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                 const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq, const AdamHyper& h,
                 const StepGate& gate) {
  check_param("adam_update", param);
  check_operand("adam_update", param, grad);
  check_operand("adam_update", param, exp_avg);
  check_operand("adam_update", param, exp_avg_sq);
  if (h.amsgrad) check_operand("adam_update", param, max_exp_avg_sq);
  if (param.numel() == 0) return;
  DeviceGuard guard(detail::device_of(param));
  detail::launch_adam_update(param.dtype(), optim_grid(param.numel()), param.numel(),
                             param.data_ptr(), grad.data_ptr(), exp_avg.data_ptr(),
                             exp_avg_sq.data_ptr(),
                             h.amsgrad ? max_exp_avg_sq.data_ptr() : nullptr, h,
                             gate_pointers("adam_update", param, gate));
}

void rmsprop_update(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
                    const Tensor& momentum_buffer, const Tensor& grad_avg, const RmspropHyper& h,
                    const StepGate& gate) {
  check_param("rmsprop_update", param);
  check_operand("rmsprop_update", param, grad);
  check_operand("rmsprop_update", param, square_avg);
  if (h.momentum > 0) check_operand("rmsprop_update", param, momentum_buffer);
  if (h.centered) check_operand("rmsprop_update", param, grad_avg);
  if (param.numel() == 0) return;
  DeviceGuard guard(detail::device_of(param));
  detail::launch_rmsprop_update(param.dtype(), optim_grid(param.numel()), param.numel(),
                                param.data_ptr(), grad.data_ptr(), square_avg.data_ptr(),
                                h.momentum > 0 ? momentum_buffer.data_ptr() : nullptr,
                                h.centered ? grad_avg.data_ptr() : nullptr, h,
                                gate_pointers("rmsprop_update", param, gate));
}

void adagrad_update(const Tensor& param, const Tensor& grad, const Tensor& sum,
                    const AdagradHyper& h, const StepGate& gate) {
  check_param("adagrad_update", param);
  check_operand("adagrad_update", param, grad);
  check_operand("adagrad_update", param, sum);
  if (param.numel() == 0) return;
  DeviceGuard guard(detail::device_of(param));
  detail::launch_adagrad_update(param.dtype(), optim_grid(param.numel()), param.numel(),
                                param.data_ptr(), grad.data_ptr(), sum.data_ptr(), h,
                                gate_pointers("adagrad_update", param, gate));
}

void count_step(const Tensor& step, const Tensor& found_inf) {
  EMBER_INTERNAL_ASSERT(step.is_cuda() && step.dtype() == kLong && step.numel() == 1 &&
                            found_inf.device() == step.device() && found_inf.dtype() == kFloat &&
                            found_inf.numel() == 1,
                        "count_step of ", step.toString(), " by ", found_inf.toString());
  DeviceGuard guard(detail::device_of(step));
  detail::launch_count_step(step.data_ptr<int64_t>(), found_inf.data_ptr<float>());
}

}  // namespace ember::cuda
