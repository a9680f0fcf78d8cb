#include "ember/nn/optim/adamw.h"

#include "ember/core/error.h"

namespace ember::optim {

void AdamWOptions::serialize(StateArchive& archive) {
  OptimizerOptions::serialize(archive);
  archive.field("betas", betas_);
  archive.field("eps", eps_);
  archive.field("weight_decay", weight_decay_);
  archive.field("amsgrad", amsgrad_);
}

AdamW::AdamW(const std::vector<OptimizerParamGroup>& param_groups, const AdamWOptions& defaults)
    : Adam(std::make_unique<AdamWOptions>(defaults)) {
  add_initial_groups(param_groups);
}

AdamW::AdamW(std::vector<Tensor> params, const AdamWOptions& defaults)
    : AdamW(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

void AdamW::check_options(const OptimizerOptions& options) const {
  const auto* typed = dynamic_cast<const AdamWOptions*>(&options);
  EMBER_CHECK(typed != nullptr, "AdamW: a parameter group's options must be AdamWOptions");
  const AdamWOptions& o = *typed;
  detail::check_adam_options(name(), o.lr(), o.betas(), o.eps(), o.weight_decay());
}

AdamHyper AdamW::hyper(const OptimizerOptions& options) const {
  const auto& o = static_cast<const AdamWOptions&>(options);
  const auto [beta1, beta2] = o.betas();
  return {o.lr(), beta1, beta2, o.eps(), o.weight_decay(), o.amsgrad(),
          /*decoupled_weight_decay=*/true, /*step=*/0};
}

}  // namespace ember::optim
