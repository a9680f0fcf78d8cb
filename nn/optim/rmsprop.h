#pragma once
// RMSprop, as torch.optim.RMSprop (update rule in kernels/common/optim_functors.h):
//   ember::optim::RMSprop opt(params, ember::optim::RMSpropOptions(1e-3).momentum(0.9));
// Divides each step by a running root mean square of the gradient;
// `centered` subtracts the square of the running mean gradient first.
#include "ember/nn/optim/optimizer.h"

namespace ember::optim {

struct RMSpropOptions : public OptimizerCloneableOptions<RMSpropOptions> {
  RMSpropOptions(double lr = 1e-2) : OptimizerCloneableOptions(lr) {}  // NOLINT

  EMBER_OPTIM_ARG(double, alpha, 0.99);
  EMBER_OPTIM_ARG(double, eps, 1e-8);
  EMBER_OPTIM_ARG(double, weight_decay, 0);
  EMBER_OPTIM_ARG(double, momentum, 0);
  EMBER_OPTIM_ARG(bool, centered, false);

 public:
  bool has_momentum() const override { return true; }
  double get_momentum() const override { return momentum_; }
  void set_momentum(double m) override { momentum_ = m; }
  void serialize(StateArchive& archive) override;
};

struct RMSpropParamState : public OptimizerParamState {
  EMBER_OPTIM_STEP_COUNT(RMSpropParamState);
  EMBER_OPTIM_ARG(Tensor, square_avg, {});
  EMBER_OPTIM_ARG(Tensor, momentum_buffer, {});  // undefined unless momentum > 0
  EMBER_OPTIM_ARG(Tensor, grad_avg, {});         // undefined unless centered

 public:
  void serialize(StateArchive& archive) override;
};

class RMSprop : public Optimizer {
 public:
  RMSprop(const std::vector<OptimizerParamGroup>& param_groups, const RMSpropOptions& defaults);
  RMSprop(std::vector<Tensor> params, const RMSpropOptions& defaults);

  Tensor step(LossClosure closure = nullptr) override;
  bool can_skip_on_device() const override { return true; }

 protected:
  const char* name() const override { return "RMSprop"; }
  void check_options(const OptimizerOptions& options) const override;
  std::unique_ptr<OptimizerParamState> make_state() const override;
};

}  // namespace ember::optim
