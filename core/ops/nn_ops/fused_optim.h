#pragma once
// The fused optimizer steps behind nn/optim (SGD, Adam, AdamW, RMSprop,
// Adagrad): each updates one parameter and its state in place, in one pass,
// through the optimizer kernel table (kernels/common/optimizer_kernels.h) on
// the parameter's device. The rules and their hyperparameter structs
// (SgdHyper, AdamHyper, RmspropHyper, AdagradHyper) are in
// kernels/common/optim_functors.h. Internal to ember's optimizers: they
// record no autograd and bump no version (the optimizer runs under
// NoGradGuard and updates parameters in place, as torch.optim does).
#include "ember/core/tensor.h"
#include "ember/kernels/common/optim_functors.h"
#include "ember/kernels/common/optimizer_kernels.h"

namespace ember::fused {

// Every tensor: contiguous, on param's device, of param's floating dtype;
// optional state (undefined when the rule does not use it) as the table says.
// An active gate (StepGate, kernels/common/optimizer_kernels.h) makes the step
// one the device may skip; its tensors must be on param's device (Error).
void sgd_step_(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
               const SgdHyper& h, bool first_step, const StepGate& gate = {});
void adam_step_(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq, const AdamHyper& h,
                const StepGate& gate = {});
void rmsprop_step_(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
                   const Tensor& momentum_buffer, const Tensor& grad_avg, const RmspropHyper& h,
                   const StepGate& gate = {});
void adagrad_step_(const Tensor& param, const Tensor& grad, const Tensor& sum,
                   const AdagradHyper& h, const StepGate& gate = {});
// step += 1 unless found_inf is set, on their device (a gated step's count;
// step int64 0-dim, found_inf float32 0-dim, one device: else Error).
void count_step_(const Tensor& step, const Tensor& found_inf);

}  // namespace ember::fused
