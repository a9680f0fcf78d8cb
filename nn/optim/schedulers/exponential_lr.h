#pragma once
// ExponentialLR: lr = base_lr * gamma^epoch.
#include "ember/nn/optim/schedulers/lr_scheduler.h"

namespace ember::optim {

class ExponentialLR : public LRScheduler {
 public:
  ExponentialLR(Optimizer& optimizer, double gamma);

 protected:
  std::vector<double> get_lr() override;

 private:
  double gamma_;
};

}  // namespace ember::optim
