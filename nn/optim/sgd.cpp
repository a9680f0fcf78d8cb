#include "ember/nn/optim/sgd.h"

#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/ops/nn_ops/fused_optim.h"

namespace ember::optim {

void SGDOptions::serialize(StateArchive& archive) {
  OptimizerOptions::serialize(archive);
  archive.field("momentum", momentum_);
  archive.field("dampening", dampening_);
  archive.field("weight_decay", weight_decay_);
  archive.field("nesterov", nesterov_);
}

void SGDParamState::serialize(StateArchive& archive) {
  archive.optional_tensor("momentum_buffer", momentum_buffer_);
}

SGD::SGD(const std::vector<OptimizerParamGroup>& param_groups, const SGDOptions& defaults)
    : Optimizer(std::make_unique<SGDOptions>(defaults)) {
  add_initial_groups(param_groups);
}

SGD::SGD(std::vector<Tensor> params, const SGDOptions& defaults)
    : SGD(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

void SGD::check_options(const OptimizerOptions& options) const {
  const auto* typed = dynamic_cast<const SGDOptions*>(&options);
  EMBER_CHECK(typed != nullptr, "SGD: a parameter group's options must be SGDOptions");
  const SGDOptions& o = *typed;
  EMBER_CHECK(o.lr() >= 0, "SGD: invalid learning rate ", o.lr(), " (must be >= 0)");
  EMBER_CHECK(o.momentum() >= 0, "SGD: invalid momentum ", o.momentum(), " (must be >= 0)");
  EMBER_CHECK(o.weight_decay() >= 0, "SGD: invalid weight_decay ", o.weight_decay(),
              " (must be >= 0)");
  EMBER_CHECK(!o.nesterov() || (o.momentum() > 0 && o.dampening() == 0),
              "SGD: nesterov momentum requires a momentum > 0 and zero dampening (got momentum ",
              o.momentum(), ", dampening ", o.dampening(), ")");
}

std::unique_ptr<OptimizerParamState> SGD::make_state() const {
  return std::make_unique<SGDParamState>();
}

// Whether the buffer takes its first step (buf = g), given that it was just
// made (`made`). Within step_unless() only the device knows: while no step of
// the buffer has run there, its steps are counted there and the gate carries
// the count (the first is the one that brings it to 1); the return value is
// then unused. A buffer saved before any of its steps ran loads as a stepped
// one (the count is not part of PyTorch's state).
bool SGD::first_momentum_step(SGDParamState& s, bool made, StepGate& gate) const {
  StepCount& count = s.momentum_step_count();
  if (made) count.set(0);
  if (gate.active()) {
    if (made || count.on_device()) gate.step = count.advance_unless(gate.found_inf);
    return false;
  }
  if (!count.on_device()) return made;
  // Back from gated steps: the first is still to come if every one was skipped.
  const bool first = count.get() == 0;
  count.set(1);
  return first;
}

Tensor SGD::step(LossClosure closure) {
  Tensor loss = run_closure(closure);
  NoGradGuard no_grad;
  for (OptimizerParamGroup& group : param_groups()) {
    const auto& o = static_cast<const SGDOptions&>(group.options());
    const SgdHyper h{o.lr(), o.momentum(), o.dampening(), o.weight_decay(), o.nesterov()};
    for (const Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      const Tensor grad = detail::dense_grad(name(), p);
      bool first = false;
      Tensor buf;
      StepGate gate{skip_flag(), Tensor()};
      if (h.momentum != 0) {
        SGDParamState& s = param_state<SGDParamState>(p, first);
        // A buffer may be missing after a group's momentum went from 0 to > 0.
        first = !s.momentum_buffer().defined();
        if (first) s.momentum_buffer(detail::zeros_state(p));
        buf = s.momentum_buffer();
        first = first_momentum_step(s, first, gate);
      }
      detail::update_in_place(p, [&](const Tensor& param) {
        fused::sgd_step_(param, grad, buf, h, first, gate);
      });
    }
  }
  return loss;
}

}  // namespace ember::optim
