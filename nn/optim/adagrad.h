#pragma once
// Adagrad, as torch.optim.Adagrad (update rule in kernels/common/optim_functors.h):
//   ember::optim::Adagrad opt(params, ember::optim::AdagradOptions(0.1).lr_decay(1e-4));
// Divides each step by the root of the sum of all squared gradients so far.
// Differs from libtorch in when the state is made: on a parameter's first
// step (sum = initial_accumulator_value), as ember's other optimizers, rather
// than in the constructor.
#include "ember/nn/optim/optimizer.h"

namespace ember::optim {

struct AdagradOptions : public OptimizerCloneableOptions<AdagradOptions> {
  AdagradOptions(double lr = 1e-2) : OptimizerCloneableOptions(lr) {}  // NOLINT

  EMBER_OPTIM_ARG(double, lr_decay, 0);
  EMBER_OPTIM_ARG(double, weight_decay, 0);
  EMBER_OPTIM_ARG(double, initial_accumulator_value, 0);
  EMBER_OPTIM_ARG(double, eps, 1e-10);

 public:
  void serialize(StateArchive& archive) override;
};

struct AdagradParamState : public OptimizerParamState {
  EMBER_OPTIM_ARG(Tensor, sum, {});
  EMBER_OPTIM_STEP_COUNT(AdagradParamState);

 public:
  void serialize(StateArchive& archive) override;
};

class Adagrad : public Optimizer {
 public:
  Adagrad(const std::vector<OptimizerParamGroup>& param_groups, const AdagradOptions& defaults);
  Adagrad(std::vector<Tensor> params, const AdagradOptions& defaults);

  Tensor step(LossClosure closure = nullptr) override;
  bool can_skip_on_device() const override { return true; }

 protected:
  const char* name() const override { return "Adagrad"; }
  void check_options(const OptimizerOptions& options) const override;
  std::unique_ptr<OptimizerParamState> make_state() const override;
};

}  // namespace ember::optim
