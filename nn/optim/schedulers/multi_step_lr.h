#pragma once
// MultiStepLR: lr = base_lr * gamma^(number of milestones <= epoch).
#include "ember/nn/optim/schedulers/lr_scheduler.h"

namespace ember::optim {

class MultiStepLR : public LRScheduler {
 public:
  MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma = 0.1);

 protected:
  std::vector<double> get_lr() override;

 private:
  std::vector<int64_t> milestones_;  // sorted
  double gamma_;
};

}  // namespace ember::optim
