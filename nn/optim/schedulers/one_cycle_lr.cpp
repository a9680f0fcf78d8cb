#include "ember/nn/optim/schedulers/one_cycle_lr.h"

#include <cmath>
#include <numbers>

#include "ember/core/error.h"

namespace ember::optim {
namespace {

// From start (pct = 0) to end (pct = 1).
double anneal(AnnealStrategy strategy, double start, double end, double pct) {
  if (strategy == AnnealStrategy::linear) return (end - start) * pct + start;
  return end + (start - end) / 2 * (std::cos(std::numbers::pi * pct) + 1);
}

}  // namespace

OneCycleLR::OneCycleLR(Optimizer& optimizer, const OneCycleLROptions& options)
    : LRScheduler(optimizer), options_(options) {
  const OneCycleLROptions& o = options_;
  const size_t groups = optimizer.param_groups().size();
  EMBER_CHECK(o.total_steps() > 0, "OneCycleLR: total_steps must be positive, got ",
              o.total_steps());
  EMBER_CHECK(o.pct_start() >= 0 && o.pct_start() <= 1, "OneCycleLR: pct_start must be in "
              "[0, 1], got ", o.pct_start());
  EMBER_CHECK(o.max_lrs().size() == 1 || o.max_lrs().size() == groups, "OneCycleLR: got ",
              o.max_lrs().size(), " max_lr values for ", groups, " parameter groups");
  for (size_t g = 0; g < groups; ++g) {
    const double max_lr = o.max_lrs()[o.max_lrs().size() == 1 ? 0 : g];
    const double initial = max_lr / o.div_factor();
    group_lrs_.push_back({initial, max_lr, initial / o.final_div_factor()});
    base_lrs_[g] = initial;
  }
  if (o.cycle_momentum())
    for (OptimizerParamGroup& group : optimizer.param_groups()) {
      EMBER_CHECK(group.options().has_momentum(), "OneCycleLR: cycle_momentum needs an "
                  "optimizer with momentum or beta1 (SGD, Adam, AdamW); pass "
                  "cycle_momentum(false)");
      group.options().set_momentum(o.max_momentum());
    }

  const double n = static_cast<double>(o.total_steps()), up_end = o.pct_start() * n - 1;
  const double lo = o.base_momentum(), hi = o.max_momentum();
  if (o.three_phase())
    phases_ = {{up_end, kInitial, kMax, hi, lo},
               {2 * o.pct_start() * n - 2, kMax, kInitial, lo, hi},
               {n - 1, kInitial, kMin, hi, hi}};
  else
    phases_ = {{up_end, kInitial, kMax, hi, lo}, {n - 1, kMax, kMin, lo, hi}};
  initial_step();
}

std::vector<double> OneCycleLR::get_lr() {
  const int64_t step = last_epoch();
  EMBER_CHECK(step <= options_.total_steps(), "OneCycleLR: tried to step ", step,
              " times; total_steps is ", options_.total_steps());
  std::vector<OptimizerParamGroup>& groups = optimizer_.param_groups();
  std::vector<double> lrs;
  for (size_t g = 0; g < groups.size(); ++g) {
    double start_step = 0;
    for (size_t i = 0; i < phases_.size(); ++i) {
      const Phase& phase = phases_[i];
      if (step <= phase.end_step || i + 1 == phases_.size()) {
        const double pct = (step - start_step) / (phase.end_step - start_step);
        const std::vector<double>& points = group_lrs_[g];
        lrs.push_back(anneal(options_.anneal_strategy(), points[phase.start_lr],
                             points[phase.end_lr], pct));
        if (options_.cycle_momentum())
          groups[g].options().set_momentum(
              anneal(options_.anneal_strategy(), phase.start_momentum, phase.end_momentum, pct));
        break;
      }
      start_step = phase.end_step;
    }
  }
  return lrs;
}

}  // namespace ember::optim
