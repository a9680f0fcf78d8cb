#include "ember/nn/optim/schedulers/cosine_annealing_lr.h"

#include <cmath>
#include <numbers>

#include "ember/core/error.h"

namespace ember::optim {

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min)
    : LRScheduler(optimizer), T_max_(T_max), eta_min_(eta_min) {
  EMBER_CHECK(T_max > 0, "CosineAnnealingLR: T_max must be positive, got ", T_max);
  initial_step();
}

std::vector<double> CosineAnnealingLR::get_lr() {
  const double c =
      (1 + std::cos(std::numbers::pi * static_cast<double>(last_epoch()) / T_max_)) / 2;
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(eta_min_ + (base - eta_min_) * c);
  return lrs;
}

}  // namespace ember::optim
