#pragma once
// CosineAnnealingLR, PyTorch's closed form:
//   lr = eta_min + (base_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2
// (past T_max the cosine goes on: lr climbs back towards base_lr).
#include "ember/nn/optim/schedulers/lr_scheduler.h"

namespace ember::optim {

class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0);

 protected:
  std::vector<double> get_lr() override;

 private:
  int64_t T_max_;
  double eta_min_;
};

}  // namespace ember::optim
