#include "ember/nn/optim/schedulers/linear_lr.h"

#include <algorithm>

#include "ember/core/error.h"

namespace ember::optim {

LinearLR::LinearLR(Optimizer& optimizer, double start_factor, double end_factor,
                   int64_t total_iters)
    : LRScheduler(optimizer),
      start_factor_(start_factor),
      end_factor_(end_factor),
      total_iters_(total_iters) {
  EMBER_CHECK(start_factor > 0 && start_factor <= 1, "LinearLR: start_factor must be in (0, 1], "
              "got ", start_factor);
  EMBER_CHECK(end_factor >= 0 && end_factor <= 1, "LinearLR: end_factor must be in [0, 1], got ",
              end_factor);
  EMBER_CHECK(total_iters > 0, "LinearLR: total_iters must be positive, got ", total_iters);
  initial_step();
}

std::vector<double> LinearLR::get_lr() {
  const double t = static_cast<double>(std::min(last_epoch(), total_iters_)) / total_iters_;
  const double factor = start_factor_ + (end_factor_ - start_factor_) * t;
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(base * factor);
  return lrs;
}

}  // namespace ember::optim
