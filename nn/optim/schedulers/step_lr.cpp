#include "ember/nn/optim/schedulers/step_lr.h"

#include <cmath>

#include "ember/core/error.h"

namespace ember::optim {

StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
  EMBER_CHECK(step_size > 0, "StepLR: step_size must be positive, got ", step_size);
  initial_step();
}

std::vector<double> StepLR::get_lr() {
  const double factor = std::pow(gamma_, static_cast<double>(last_epoch() / step_size_));
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(base * factor);
  return lrs;
}

}  // namespace ember::optim
