#pragma once
// The fused optimizer updates (Note [Kernel tables]): one pass over a
// parameter reads and writes the parameter, its gradient and its state
// together. With an active StepGate the rule's step-dependent constants are
// made in the kernel from the device's count, and the whole update is skipped
// there when found_inf is set. Every tensor given is contiguous, on the parameter's device and of
// its floating dtype; core/ops/nn_ops/fused_optim.cpp checks it. The update rules and
// their hyperparameters are in kernels/common/optim_functors.h, shared by both
// backends.
#include "ember/core/tensor.h"
#include "ember/kernels/common/kernel_table.h"
#include "ember/kernels/common/optim_functors.h"

namespace ember {

// A step that the device may skip (Note [Steps skipped on the device], in
// nn/optim/optimizer.h). Undefined members: an ordinary step, with the step
// count in the hyperparameters.
struct StepGate {
  // float32, 0-dim, on the parameter's device: the update runs where it is 0
  // and writes nothing where it is not.
  Tensor found_inf;
  // int64, 0-dim, there too: the parameter's step count, this step included
  // (count_step ran first); undefined where the rule needs no count.
  Tensor step;
  bool active() const { return found_inf.defined(); }
};

struct OptimizerKernels {
  // torch.optim.SGD's update; momentum_buffer undefined when momentum == 0.
  Kernel<void(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
              const SgdHyper& h, bool first_step, const StepGate& gate)>
      sgd;
  // torch.optim.Adam's and AdamW's; max_exp_avg_sq undefined unless amsgrad.
  Kernel<void(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
              const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq, const AdamHyper& h,
              const StepGate& gate)>
      adam;
  // torch.optim.RMSprop's; momentum_buffer undefined unless momentum > 0,
  // grad_avg unless centered.
  Kernel<void(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
              const Tensor& momentum_buffer, const Tensor& grad_avg, const RmspropHyper& h,
              const StepGate& gate)>
      rmsprop;
  // torch.optim.Adagrad's.
  Kernel<void(const Tensor& param, const Tensor& grad, const Tensor& sum, const AdagradHyper& h,
              const StepGate& gate)>
      adagrad;
  // step += 1 where found_inf is 0 (step: int64 0-dim, found_inf: float32
  // 0-dim, both on one device): a gated step's count, read by the update.
  Kernel<void(const Tensor& step, const Tensor& found_inf)> count_step;
};

}  // namespace ember
