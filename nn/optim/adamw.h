#pragma once
// AdamW, as torch.optim.AdamW: Adam with decoupled weight decay (the
// parameter shrinks by lr * weight_decay each step; the gradient is left
// alone). Shares Adam's step and state.
//   ember::optim::AdamW opt(params, ember::optim::AdamWOptions(1e-3).weight_decay(0.01));
#include "ember/nn/optim/adam.h"

namespace ember::optim {

struct AdamWOptions : public OptimizerCloneableOptions<AdamWOptions> {
  AdamWOptions(double lr = 1e-3) : OptimizerCloneableOptions(lr) {}  // NOLINT

  EMBER_OPTIM_ARG(betas_t, betas, betas_t(0.9, 0.999));
  EMBER_OPTIM_ARG(double, eps, 1e-8);
  EMBER_OPTIM_ARG(double, weight_decay, 1e-2);
  EMBER_OPTIM_ARG(bool, amsgrad, false);

 public:
  bool has_momentum() const override { return true; }  // beta1
  double get_momentum() const override { return std::get<0>(betas_); }
  void set_momentum(double beta1) override { std::get<0>(betas_) = beta1; }
  void serialize(StateArchive& archive) override;
};

using AdamWParamState = AdamParamState;

class AdamW : public Adam {
 public:
  AdamW(const std::vector<OptimizerParamGroup>& param_groups, const AdamWOptions& defaults);
  AdamW(std::vector<Tensor> params, const AdamWOptions& defaults);

 protected:
  const char* name() const override { return "AdamW"; }
  void check_options(const OptimizerOptions& options) const override;
  AdamHyper hyper(const OptimizerOptions& options) const override;
};

}  // namespace ember::optim
