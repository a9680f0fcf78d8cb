#include "ember/nn/optim/adam.h"

#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"

namespace ember::optim {

void AdamOptions::serialize(StateArchive& archive) {
  OptimizerOptions::serialize(archive);
  archive.field("betas", betas_);
  archive.field("eps", eps_);
  archive.field("weight_decay", weight_decay_);
  archive.field("amsgrad", amsgrad_);
}

void AdamParamState::serialize(StateArchive& archive) {
  archive.field("step", step_);
  archive.optional_tensor("exp_avg", exp_avg_);
  archive.optional_tensor("exp_avg_sq", exp_avg_sq_);
  archive.optional_tensor("max_exp_avg_sq", max_exp_avg_sq_);
}

Adam::Adam(const std::vector<OptimizerParamGroup>& param_groups, const AdamOptions& defaults)
    : Optimizer(std::make_unique<AdamOptions>(defaults)) {
  add_initial_groups(param_groups);
}

Adam::Adam(std::vector<Tensor> params, const AdamOptions& defaults)
    : Adam(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

void detail::check_adam_options(const char* optimizer, double lr, const betas_t& betas,
                                double eps, double weight_decay) {
  EMBER_CHECK(lr >= 0, optimizer, ": invalid learning rate ", lr, " (must be >= 0)");
  EMBER_CHECK(eps >= 0, optimizer, ": invalid eps ", eps, " (must be >= 0)");
  const auto [beta1, beta2] = betas;
  EMBER_CHECK(beta1 >= 0 && beta1 < 1, optimizer, ": invalid beta1 ", beta1,
              " (must be in [0, 1))");
  EMBER_CHECK(beta2 >= 0 && beta2 < 1, optimizer, ": invalid beta2 ", beta2,
              " (must be in [0, 1))");
  EMBER_CHECK(weight_decay >= 0, optimizer, ": invalid weight_decay ", weight_decay,
              " (must be >= 0)");
}

void Adam::check_options(const OptimizerOptions& options) const {
  const auto* typed = dynamic_cast<const AdamOptions*>(&options);
  EMBER_CHECK(typed != nullptr, "Adam: a parameter group's options must be AdamOptions");
  const AdamOptions& o = *typed;
  detail::check_adam_options(name(), o.lr(), o.betas(), o.eps(), o.weight_decay());
}

std::unique_ptr<OptimizerParamState> Adam::make_state() const {
  return std::make_unique<AdamParamState>();
}

AdamHyper Adam::hyper(const OptimizerOptions& options) const {
  const auto& o = static_cast<const AdamOptions&>(options);
  const auto [beta1, beta2] = o.betas();
  return {o.lr(), beta1, beta2, o.eps(), o.weight_decay(), o.amsgrad(),
          /*decoupled_weight_decay=*/false, /*step=*/0};
}

Tensor Adam::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  for (OptimizerParamGroup& group : param_groups()) {
    AdamHyper h = hyper(group.options());
    for (const Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      const Tensor grad = detail::dense_grad(name(), p);
      bool created = false;
      AdamParamState& s = param_state<AdamParamState>(p, created);
      if (created) {
        s.exp_avg(detail::zeros_state(p));
        s.exp_avg_sq(detail::zeros_state(p));
      }
      // amsgrad may be switched on after the first steps.
      if (h.amsgrad && !s.max_exp_avg_sq().defined()) s.max_exp_avg_sq(detail::zeros_state(p));
      const StepGate gate = count_step(s.step_count(), h.step);
      detail::update_in_place(p, [&](const Tensor& param) {
        fused::adam_step_(param, grad, s.exp_avg(), s.exp_avg_sq(), s.max_exp_avg_sq(), h, gate);
      });
    }
  }
  return loss;
}

}  // namespace ember::optim
