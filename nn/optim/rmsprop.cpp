#include "ember/nn/optim/rmsprop.h"

#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/ops/nn_ops/fused_optim.h"

namespace ember::optim {

void RMSpropOptions::serialize(StateArchive& archive) {
  OptimizerOptions::serialize(archive);
  archive.field("alpha", alpha_);
  archive.field("eps", eps_);
  archive.field("weight_decay", weight_decay_);
  archive.field("momentum", momentum_);
  archive.field("centered", centered_);
}

void RMSpropParamState::serialize(StateArchive& archive) {
  archive.field("step", step_);
  archive.optional_tensor("square_avg", square_avg_);
  archive.optional_tensor("momentum_buffer", momentum_buffer_);
  archive.optional_tensor("grad_avg", grad_avg_);
}

RMSprop::RMSprop(const std::vector<OptimizerParamGroup>& param_groups,
                 const RMSpropOptions& defaults)
    : Optimizer(std::make_unique<RMSpropOptions>(defaults)) {
  add_initial_groups(param_groups);
}

RMSprop::RMSprop(std::vector<Tensor> params, const RMSpropOptions& defaults)
    : RMSprop(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))},
              defaults) {}

void RMSprop::check_options(const OptimizerOptions& options) const {
  const auto* typed = dynamic_cast<const RMSpropOptions*>(&options);
  EMBER_CHECK(typed != nullptr, "RMSprop: a parameter group's options must be RMSpropOptions");
  const RMSpropOptions& o = *typed;
  EMBER_CHECK(o.lr() >= 0, "RMSprop: invalid learning rate ", o.lr(), " (must be >= 0)");
  EMBER_CHECK(o.eps() >= 0, "RMSprop: invalid eps ", o.eps(), " (must be >= 0)");
  EMBER_CHECK(o.alpha() >= 0, "RMSprop: invalid alpha ", o.alpha(), " (must be >= 0)");
  EMBER_CHECK(o.momentum() >= 0, "RMSprop: invalid momentum ", o.momentum(), " (must be >= 0)");
  EMBER_CHECK(o.weight_decay() >= 0, "RMSprop: invalid weight_decay ", o.weight_decay(),
              " (must be >= 0)");
}

std::unique_ptr<OptimizerParamState> RMSprop::make_state() const {
  return std::make_unique<RMSpropParamState>();
}

Tensor RMSprop::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  for (OptimizerParamGroup& group : param_groups()) {
    const auto& o = static_cast<const RMSpropOptions&>(group.options());
    const RmspropHyper h{o.lr(), o.alpha(), o.eps(), o.weight_decay(), o.momentum(),
                         o.centered()};
    for (const Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      const Tensor grad = detail::dense_grad(name(), p);
      bool created = false;
      RMSpropParamState& s = param_state<RMSpropParamState>(p, created);
      if (created) s.square_avg(detail::zeros_state(p));
      // momentum and centered may be switched on after the first steps.
      if (h.momentum > 0 && !s.momentum_buffer().defined())
        s.momentum_buffer(detail::zeros_state(p));
      if (h.centered && !s.grad_avg().defined()) s.grad_avg(detail::zeros_state(p));
      int64_t step = 0;  // counted for the state only: RMSprop's rule does not use it
      const StepGate gate = count_step(s.step_count(), step);
      detail::update_in_place(p, [&](const Tensor& param) {
        fused::rmsprop_step_(param, grad, s.square_avg(), s.momentum_buffer(), s.grad_avg(), h,
                             gate);
      });
    }
  }
  return loss;
}

}  // namespace ember::optim
