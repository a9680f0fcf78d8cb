#pragma once
// OneCycleLR, as torch.optim.lr_scheduler.OneCycleLR: the lr climbs from
// max_lr / div_factor to max_lr over the first pct_start of total_steps, then
// anneals to max_lr / (div_factor * final_div_factor). With three_phase it
// comes back down to max_lr / div_factor first and only then anneals. The
// momentum (SGD's momentum, Adam's beta1) moves the opposite way between
// max_momentum and base_momentum when cycle_momentum is on. Step it once per
// batch; stepping past total_steps is an Error.
//   ember::optim::OneCycleLR sched(opt, ember::optim::OneCycleLROptions(0.1, 1000)
//                                           .pct_start(0.25));
#include "ember/nn/optim/schedulers/lr_scheduler.h"

namespace ember::optim {

enum class AnnealStrategy { cos, linear };

struct OneCycleLROptions {
  OneCycleLROptions(double max_lr, int64_t total_steps)
      : max_lrs_{max_lr}, total_steps_(total_steps) {}
  // One max_lr per parameter group.
  OneCycleLROptions(std::vector<double> max_lrs, int64_t total_steps)
      : max_lrs_(std::move(max_lrs)), total_steps_(total_steps) {}
  const std::vector<double>& max_lrs() const { return max_lrs_; }
  int64_t total_steps() const { return total_steps_; }

  EMBER_OPTIM_ARG(double, pct_start, 0.3);
  EMBER_OPTIM_ARG(AnnealStrategy, anneal_strategy, AnnealStrategy::cos);
  EMBER_OPTIM_ARG(bool, cycle_momentum, true);
  EMBER_OPTIM_ARG(double, base_momentum, 0.85);
  EMBER_OPTIM_ARG(double, max_momentum, 0.95);
  EMBER_OPTIM_ARG(double, div_factor, 25);
  EMBER_OPTIM_ARG(double, final_div_factor, 1e4);
  EMBER_OPTIM_ARG(bool, three_phase, false);

 private:
  std::vector<double> max_lrs_;
  int64_t total_steps_;
};

class OneCycleLR : public LRScheduler {
 public:
  OneCycleLR(Optimizer& optimizer, const OneCycleLROptions& options);

 protected:
  // Also sets each group's momentum when cycling it (as PyTorch's get_lr).
  std::vector<double> get_lr() override;

 private:
  enum LrPoint { kInitial, kMax, kMin };
  // One stretch of the cycle: lr and momentum go from start to end by end_step.
  struct Phase {
    double end_step;
    LrPoint start_lr, end_lr;
    double start_momentum, end_momentum;
  };

  OneCycleLROptions options_;
  std::vector<std::vector<double>> group_lrs_;  // [group][LrPoint]
  std::vector<Phase> phases_;
};

}  // namespace ember::optim
