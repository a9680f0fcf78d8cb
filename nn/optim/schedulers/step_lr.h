#pragma once
// StepLR: lr = base_lr * gamma^floor(epoch / step_size).
#include "ember/nn/optim/schedulers/lr_scheduler.h"

namespace ember::optim {

class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1);

 protected:
  std::vector<double> get_lr() override;

 private:
  int64_t step_size_;
  double gamma_;
};

}  // namespace ember::optim
