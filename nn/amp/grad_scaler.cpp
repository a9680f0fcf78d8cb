#include "ember/nn/amp/grad_scaler.h"

#include "ember/autograd/grad_mode.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/elementwise/compare.h"
#include "ember/core/ops/elementwise/logical.h"
#include "ember/core/ops/elementwise/unary.h"

namespace ember::amp {

GradScaler::GradScaler(GradScalerOptions options) : options_(options) {
  EMBER_CHECK(options_.init_scale() > 0, "GradScaler: init_scale must be positive, got ",
              options_.init_scale());
  EMBER_CHECK(options_.growth_factor() > 1.0, "GradScaler: growth_factor must be above 1, got ",
              options_.growth_factor());
  EMBER_CHECK(options_.backoff_factor() > 0 && options_.backoff_factor() < 1.0,
              "GradScaler: backoff_factor must be in (0, 1), got ", options_.backoff_factor());
  EMBER_CHECK(options_.growth_interval() > 0, "GradScaler: growth_interval must be positive, got ",
              options_.growth_interval());
}

void GradScaler::ensure_state(Device device) {
  if (!scale_.defined()) {
    scale_ = full({}, options_.init_scale(), TensorOptions(kFloat).device(device));
    growth_tracker_ = zeros({}, TensorOptions(kLong).device(device));
  } else if (scale_.device() != device) {
    scale_ = scale_.to(device);
    growth_tracker_ = growth_tracker_.to(device);
  }
}

Tensor GradScaler::scale(const Tensor& outputs) {
  if (!is_enabled()) return outputs;
  ensure_state(outputs.device());
  return outputs * scale_;
}

void GradScaler::unscale_(optim::Optimizer& optimizer) {
  if (!is_enabled()) return;
  PerOptimizer& s = state_of(optimizer);
  EMBER_CHECK(s.stage != Stage::kUnscaled,
              "GradScaler: unscale_() has already been called on this optimizer since the last "
              "update()");
  EMBER_CHECK(s.stage != Stage::kStepped, "GradScaler: unscale_() is being called after step()");
  EMBER_CHECK(scale_.defined(), "GradScaler: unscale_() before any scale(): nothing was scaled");
  NoGradGuard no_grad;
  const Tensor inv_scale = scale_.to(kDouble).reciprocal().to(kFloat);
  Tensor found = zeros({}, TensorOptions(kFloat).device(scale_.device()));
  for (optim::OptimizerParamGroup& group : optimizer.param_groups())
    for (Tensor& p : group.params()) {
      Tensor g = p.grad();
      if (!g.defined()) continue;
      EMBER_CHECK(g.device() == scale_.device(), "GradScaler: a gradient is on ", g.device(),
                  " but the scale on ", scale_.device());
      g.mul_(inv_scale);
      // The product keeps inf and NaN: one check after the division finds them all.
      found = maximum(found, logical_not(isfinite(g)).any().to(kFloat));
    }
  s.found_inf = found;
  s.stage = Stage::kUnscaled;
}

Tensor GradScaler::step(optim::Optimizer& optimizer) {
  if (!is_enabled()) return optimizer.step();
  PerOptimizer& s = state_of(optimizer);
  EMBER_CHECK(s.stage != Stage::kStepped,
              "GradScaler: step() has already been called since the last update()");
  if (s.stage == Stage::kReady) unscale_(optimizer);
  Tensor result = optimizer.step_unless(s.found_inf);
  s.stage = Stage::kStepped;
  return result;
}

void GradScaler::update(std::optional<double> new_scale) {
  if (!is_enabled() || !scale_.defined()) return;
  NoGradGuard no_grad;
  if (new_scale) {
    EMBER_CHECK(*new_scale > 0, "GradScaler: update()'s new_scale must be positive, got ", *new_scale);
    scale_.fill_(*new_scale);
  } else {
    Tensor found = zeros({}, TensorOptions(kFloat).device(scale_.device()));
    for (const auto& [opt, s] : per_optimizer_)
      if (s.found_inf.defined()) found = maximum(found, s.found_inf);
    EMBER_CHECK(!per_optimizer_.empty(), "GradScaler: update() without any unscale_() or step()");
    // On the device: after an inf, back off and restart the count; after
    // growth_interval clean steps, grow and restart it.
    const Tensor skipped = found > 0;
    const Tensor counted = growth_tracker_ + 1;
    const Tensor grows = logical_and(logical_not(skipped), counted == options_.growth_interval());
    scale_.copy_(where(skipped, scale_ * options_.backoff_factor(),
                       where(grows, scale_ * options_.growth_factor(), scale_)));
    growth_tracker_.copy_(where(logical_or(skipped, grows), zeros_like(counted), counted));
  }
  per_optimizer_.clear();
}

double GradScaler::get_scale() const {
  if (!is_enabled()) return 1.0;
  return scale_.defined() ? scale_.item<double>() : options_.init_scale();
}

int64_t GradScaler::get_growth_tracker() const {
  return growth_tracker_.defined() ? growth_tracker_.item<int64_t>() : 0;
}

OrderedDict<std::string, Tensor> GradScaler::state_dict() const {
  OrderedDict<std::string, Tensor> d;
  d.insert("scale", full({}, get_scale(), kFloat));
  d.insert("growth_factor", full({}, options_.growth_factor(), kDouble));
  d.insert("backoff_factor", full({}, options_.backoff_factor(), kDouble));
  d.insert("growth_interval", full({}, options_.growth_interval(), kLong));
  d.insert("_growth_tracker", full({}, get_growth_tracker(), kLong));
  return d;
}

void GradScaler::load_state_dict(const OrderedDict<std::string, Tensor>& state) {
  for (const char* key : {"scale", "growth_factor", "backoff_factor", "growth_interval", "_growth_tracker"})
    EMBER_CHECK(state.contains(key) && state[key].numel() == 1,
                "GradScaler::load_state_dict: missing or malformed '", key, "'");
  options_.growth_factor(state["growth_factor"].item<double>())
      .backoff_factor(state["backoff_factor"].item<double>())
      .growth_interval(state["growth_interval"].item<int64_t>());
  const Device device = scale_.defined() ? scale_.device() : Device(kCPU);
  scale_ = full({}, state["scale"].item<double>(), TensorOptions(kFloat).device(device));
  growth_tracker_ = full({}, state["_growth_tracker"].item<int64_t>(), TensorOptions(kLong).device(device));
  per_optimizer_.clear();
}

}  // namespace ember::amp
