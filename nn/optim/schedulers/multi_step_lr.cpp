#include "ember/nn/optim/schedulers/multi_step_lr.h"

#include <algorithm>
#include <cmath>

namespace ember::optim {

MultiStepLR::MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma)
    : LRScheduler(optimizer), milestones_(std::move(milestones)), gamma_(gamma) {
  std::sort(milestones_.begin(), milestones_.end());
  initial_step();
}

std::vector<double> MultiStepLR::get_lr() {
  // A milestone listed twice counts twice, as PyTorch's Counter of milestones.
  const auto passed = std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch()) -
                      milestones_.begin();
  const double factor = std::pow(gamma_, static_cast<double>(passed));
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(base * factor);
  return lrs;
}

}  // namespace ember::optim
