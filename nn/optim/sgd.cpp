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
      if (h.momentum != 0) {
        SGDParamState& s = param_state<SGDParamState>(p, first);
        // A buffer may be missing after a group's momentum went from 0 to > 0.
        first = !s.momentum_buffer().defined();
        if (first) s.momentum_buffer(detail::zeros_state(p));
        buf = s.momentum_buffer();
      }
      detail::update_in_place(p, [&](const Tensor& param) {
        fused::sgd_step_(param, grad, buf, h, first);
      });
    }
  }
  return loss;
}

}  // namespace ember::optim
