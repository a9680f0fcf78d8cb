#pragma once
// LinearLR (warm-up): the factor on base_lr goes linearly from start_factor to
// end_factor over total_iters steps, then stays at end_factor:
//   lr = base_lr * (start + (end - start) * min(epoch, total_iters) / total_iters)
#include "ember/nn/optim/schedulers/lr_scheduler.h"

namespace ember::optim {

class LinearLR : public LRScheduler {
 public:
  LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0,
           int64_t total_iters = 5);

 protected:
  std::vector<double> get_lr() override;

 private:
  double start_factor_, end_factor_;
  int64_t total_iters_;
};

}  // namespace ember::optim
