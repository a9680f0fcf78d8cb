#pragma once
// The fused optimizer updates (Note [Kernel tables]): one pass over a
// parameter reads and writes the parameter, its gradient and its state
// together. Every tensor given is contiguous, on the parameter's device and of
// its floating dtype; core/ops/nn_ops/fused_optim.cpp checks it. The update rules and
// their hyperparameters are in kernels/common/optim_functors.h, shared by both
// backends.
#include "ember/core/tensor.h"
#include "ember/kernels/common/kernel_table.h"
#include "ember/kernels/common/optim_functors.h"

namespace ember {

struct OptimizerKernels {
  // torch.optim.SGD's update; momentum_buffer undefined when momentum == 0.
  Kernel<void(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
              const SgdHyper& h, bool first_step)>
      sgd;
  // torch.optim.Adam's and AdamW's; max_exp_avg_sq undefined unless amsgrad.
  Kernel<void(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
              const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq, const AdamHyper& h)>
      adam;
  // torch.optim.RMSprop's; momentum_buffer undefined unless momentum > 0,
  // grad_avg unless centered.
  Kernel<void(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
              const Tensor& momentum_buffer, const Tensor& grad_avg, const RmspropHyper& h)>
      rmsprop;
  // torch.optim.Adagrad's.
  Kernel<void(const Tensor& param, const Tensor& grad, const Tensor& sum, const AdagradHyper& h)>
      adagrad;
};

}  // namespace ember
