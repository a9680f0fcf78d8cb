#include "ember/nn/optim/adagrad.h"

#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/ops/nn_ops/fused_optim.h"

namespace ember::optim {

void AdagradOptions::serialize(StateArchive& archive) {
  OptimizerOptions::serialize(archive);
  archive.field("lr_decay", lr_decay_);
  archive.field("weight_decay", weight_decay_);
  archive.field("initial_accumulator_value", initial_accumulator_value_);
  archive.field("eps", eps_);
}

void AdagradParamState::serialize(StateArchive& archive) {
  archive.field("step", step_);
  archive.optional_tensor("sum", sum_);
}

Adagrad::Adagrad(const std::vector<OptimizerParamGroup>& param_groups,
                 const AdagradOptions& defaults)
    : Optimizer(std::make_unique<AdagradOptions>(defaults)) {
  add_initial_groups(param_groups);
}

Adagrad::Adagrad(std::vector<Tensor> params, const AdagradOptions& defaults)
    : Adagrad(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
              defaults) {}

void Adagrad::check_options(const OptimizerOptions& options) const {
  const auto* typed = dynamic_cast<const AdagradOptions*>(&options);
  EMBER_CHECK(typed != nullptr, "Adagrad: a parameter group's options must be AdagradOptions");
  const AdagradOptions& o = *typed;
  EMBER_CHECK(o.lr() >= 0, "Adagrad: invalid learning rate ", o.lr(), " (must be >= 0)");
  EMBER_CHECK(o.lr_decay() >= 0, "Adagrad: invalid lr_decay ", o.lr_decay(), " (must be >= 0)");
  EMBER_CHECK(o.weight_decay() >= 0, "Adagrad: invalid weight_decay ", o.weight_decay(),
              " (must be >= 0)");
  EMBER_CHECK(o.initial_accumulator_value() >= 0, "Adagrad: invalid initial_accumulator_value ",
              o.initial_accumulator_value(), " (must be >= 0)");
  EMBER_CHECK(o.eps() >= 0, "Adagrad: invalid eps ", o.eps(), " (must be >= 0)");
}

std::unique_ptr<OptimizerParamState> Adagrad::make_state() const {
  return std::make_unique<AdagradParamState>();
}

Tensor Adagrad::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  for (OptimizerParamGroup& group : param_groups()) {
    const auto& o = static_cast<const AdagradOptions&>(group.options());
    AdagradHyper h{o.lr(), o.lr_decay(), o.weight_decay(), o.eps(), /*step=*/0};
    for (const Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      const Tensor grad = detail::dense_grad(name(), p);
      bool created = false;
      AdagradParamState& s = param_state<AdagradParamState>(p, created);
      if (created) s.sum(detail::zeros_state(p).fill_(o.initial_accumulator_value()));
      const StepGate gate = count_step(s.step_count(), h.step);
      detail::update_in_place(p, [&](const Tensor& param) {
        fused::adagrad_step_(param, grad, s.sum(), h, gate);
      });
    }
  }
  return loss;
}

}  // namespace ember::optim
