#include "ember/nn/optim/schedulers/exponential_lr.h"

#include <cmath>

namespace ember::optim {

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma)
    : LRScheduler(optimizer), gamma_(gamma) {
  initial_step();
}

std::vector<double> ExponentialLR::get_lr() {
  const double factor = std::pow(gamma_, static_cast<double>(last_epoch()));
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(base * factor);
  return lrs;
}

}  // namespace ember::optim
