#include "ember/core/ops/nn_ops/fused_optim.h"

#include <initializer_list>

#include "ember/core/error.h"
#include "ember/kernels/common/kernel_registry.h"

namespace ember::fused {
namespace {

// found_inf: a float32 flag; step: an int64 count; both 0-dim on `device`.
void check_flag_and_count(const char* op, Device device, const Tensor& found_inf,
                          const Tensor& step) {
  EMBER_CHECK(found_inf.defined() && found_inf.dtype() == kFloat && found_inf.numel() == 1 &&
                  found_inf.device() == device,
              op, ": found_inf must be a one-element float32 tensor on ", device, ", got ",
              found_inf.defined() ? found_inf.toString() : std::string("an undefined tensor"));
  EMBER_CHECK(!step.defined() || (step.dtype() == kLong && step.numel() == 1 &&
                                  step.device() == device && step.is_contiguous()),
              op, ": the step count must be a one-element int64 tensor on ", device, ", got ",
              step.defined() ? step.toString() : std::string());
}

void check_gate(const char* op, const Tensor& param, const StepGate& gate) {
  if (gate.active() || gate.step.defined())
    check_flag_and_count(op, param.device(), gate.found_inf, gate.step);
}

// The kernels compute in the parameter's dtype: its gradient and state must
// have it (a state made before the model changed dtype would not).
void check_dtypes(const char* op, const Tensor& param, std::initializer_list<const Tensor*> operands) {
  for (const Tensor* t : operands)
    EMBER_CHECK(!t->defined() || (t->dtype() == param.dtype() && t->device() == param.device()),
                op, ": the parameter is ", param.dtype(), " on ", param.device(),
                " but its gradient or state is ", t->dtype(), " on ", t->device());
}

}  // namespace

void sgd_step_(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
               const SgdHyper& h, bool first_step, const StepGate& gate) {
  check_gate("sgd_update", param, gate);
  check_dtypes("sgd_update", param, {&grad, &momentum_buffer});
  kernels().optimizer.sgd.on(param.device(), "sgd_update")(param, grad, momentum_buffer, h,
                                                           first_step, gate);
}

void adam_step_(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq, const AdamHyper& h,
                const StepGate& gate) {
  check_gate("adam_update", param, gate);
  check_dtypes("adam_update", param, {&grad, &exp_avg, &exp_avg_sq, &max_exp_avg_sq});
  kernels().optimizer.adam.on(param.device(), "adam_update")(param, grad, exp_avg, exp_avg_sq,
                                                             max_exp_avg_sq, h, gate);
}

void rmsprop_step_(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
                   const Tensor& momentum_buffer, const Tensor& grad_avg, const RmspropHyper& h,
                   const StepGate& gate) {
  check_gate("rmsprop_update", param, gate);
  check_dtypes("rmsprop_update", param, {&grad, &square_avg, &momentum_buffer, &grad_avg});
  kernels().optimizer.rmsprop.on(param.device(), "rmsprop_update")(
      param, grad, square_avg, momentum_buffer, grad_avg, h, gate);
}

void adagrad_step_(const Tensor& param, const Tensor& grad, const Tensor& sum,
                   const AdagradHyper& h, const StepGate& gate) {
  check_gate("adagrad_update", param, gate);
  check_dtypes("adagrad_update", param, {&grad, &sum});
  kernels().optimizer.adagrad.on(param.device(), "adagrad_update")(param, grad, sum, h, gate);
}

void count_step_(const Tensor& step, const Tensor& found_inf) {
  EMBER_CHECK(step.defined(), "count_step: the step count is undefined");
  check_flag_and_count("count_step", step.device(), found_inf, step);
  kernels().optimizer.count_step.on(step.device(), "count_step")(step, found_inf);
}

}  // namespace ember::fused
