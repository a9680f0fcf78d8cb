#pragma once
// Adam, as torch.optim.Adam (update rule in kernels/common/optim_functors.h):
//   ember::optim::Adam opt(params, ember::optim::AdamOptions(1e-3).betas({0.9, 0.999}));
// weight_decay is L2: wd * p is added to the gradient (AdamW decouples it).
#include <tuple>

#include "ember/core/ops/nn_ops/fused_optim.h"
#include "ember/nn/optim/optimizer.h"

namespace ember::optim {

using betas_t = std::tuple<double, double>;

struct AdamOptions : public OptimizerCloneableOptions<AdamOptions> {
  AdamOptions(double lr = 1e-3) : OptimizerCloneableOptions(lr) {}  // NOLINT

  EMBER_OPTIM_ARG(betas_t, betas, betas_t(0.9, 0.999));
  EMBER_OPTIM_ARG(double, eps, 1e-8);
  EMBER_OPTIM_ARG(double, weight_decay, 0);
  EMBER_OPTIM_ARG(bool, amsgrad, false);

 public:
  bool has_momentum() const override { return true; }  // beta1
  double get_momentum() const override { return std::get<0>(betas_); }
  void set_momentum(double beta1) override { std::get<0>(betas_) = beta1; }
  void serialize(StateArchive& archive) override;
};

struct AdamParamState : public OptimizerParamState {
  EMBER_OPTIM_STEP_COUNT(AdamParamState);
  EMBER_OPTIM_ARG(Tensor, exp_avg, {});
  EMBER_OPTIM_ARG(Tensor, exp_avg_sq, {});
  EMBER_OPTIM_ARG(Tensor, max_exp_avg_sq, {});  // undefined unless amsgrad

 public:
  void serialize(StateArchive& archive) override;
};

class Adam : public Optimizer {
 public:
  Adam(const std::vector<OptimizerParamGroup>& param_groups, const AdamOptions& defaults);
  Adam(std::vector<Tensor> params, const AdamOptions& defaults);

  Tensor step(LossClosure closure = nullptr) override;
  bool can_skip_on_device() const override { return true; }

 protected:
  // For AdamW, which shares the step and the state.
  explicit Adam(std::unique_ptr<OptimizerOptions> defaults) : Optimizer(std::move(defaults)) {}

  const char* name() const override { return "Adam"; }
  void check_options(const OptimizerOptions& options) const override;
  std::unique_ptr<OptimizerParamState> make_state() const override;
  // The group's hyperparameters for the kernel (step filled in per parameter).
  virtual AdamHyper hyper(const OptimizerOptions& options) const;
};

namespace detail {
// Errors unless lr, eps, weight_decay >= 0 and both betas are in [0, 1).
void check_adam_options(const char* optimizer, double lr, const betas_t& betas, double eps,
                        double weight_decay);
}  // namespace detail

}  // namespace ember::optim
