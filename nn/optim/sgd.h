#pragma once
// Stochastic gradient descent with momentum, as torch.optim.SGD (update rule
// in kernels/common/optim_functors.h):
//   ember::optim::SGD opt(params, ember::optim::SGDOptions(0.1).momentum(0.9).nesterov(true));
#include "ember/nn/optim/optimizer.h"

namespace ember::optim {

struct SGDOptions : public OptimizerCloneableOptions<SGDOptions> {
  SGDOptions(double lr) : OptimizerCloneableOptions(lr) {}  // NOLINT: SGD(params, 0.1)

  EMBER_OPTIM_ARG(double, momentum, 0);
  EMBER_OPTIM_ARG(double, dampening, 0);
  EMBER_OPTIM_ARG(double, weight_decay, 0);
  EMBER_OPTIM_ARG(bool, nesterov, false);

 public:
  bool has_momentum() const override { return true; }
  double get_momentum() const override { return momentum_; }
  void set_momentum(double m) override { momentum_ = m; }
  void serialize(StateArchive& archive) override;
};

struct SGDParamState : public OptimizerParamState {
  EMBER_OPTIM_ARG(Tensor, momentum_buffer, {});  // undefined without momentum

 public:
  void serialize(StateArchive& archive) override;
  // The buffer's steps, counted only while steps are gated on the device
  // (SGD::step, Note [Steps skipped on the device]); not saved.
  StepCount& momentum_step_count() { return momentum_steps_; }

 private:
  StepCount momentum_steps_;
};

class SGD : public Optimizer {
 public:
  SGD(const std::vector<OptimizerParamGroup>& param_groups, const SGDOptions& defaults);
  SGD(std::vector<Tensor> params, const SGDOptions& defaults);

  Tensor step(LossClosure closure = nullptr) override;
  bool can_skip_on_device() const override { return true; }

 protected:
  const char* name() const override { return "SGD"; }
  void check_options(const OptimizerOptions& options) const override;
  std::unique_ptr<OptimizerParamState> make_state() const override;

 private:
  bool first_momentum_step(SGDParamState& s, bool made, StepGate& gate) const;
};

}  // namespace ember::optim
