#include "ember/core/ops/nn_ops/fused_optim.h"

#include "ember/kernels/common/kernel_registry.h"

namespace ember::fused {

void sgd_step_(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
               const SgdHyper& h, bool first_step) {
  kernels().optimizer.sgd.on(param.device(), "sgd_update")(param, grad, momentum_buffer, h,
                                                           first_step);
}

void adam_step_(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq, const AdamHyper& h) {
  kernels().optimizer.adam.on(param.device(), "adam_update")(param, grad, exp_avg, exp_avg_sq,
                                                             max_exp_avg_sq, h);
}

void rmsprop_step_(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
                   const Tensor& momentum_buffer, const Tensor& grad_avg, const RmspropHyper& h) {
  kernels().optimizer.rmsprop.on(param.device(), "rmsprop_update")(param, grad, square_avg,
                                                                   momentum_buffer, grad_avg, h);
}

void adagrad_step_(const Tensor& param, const Tensor& grad, const Tensor& sum,
                   const AdagradHyper& h) {
  kernels().optimizer.adagrad.on(param.device(), "adagrad_update")(param, grad, sum, h);
}

}  // namespace ember::fused
