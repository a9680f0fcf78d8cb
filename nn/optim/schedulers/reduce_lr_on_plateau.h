#pragma once
// ReduceLROnPlateau, as torch.optim.lr_scheduler.ReduceLROnPlateau: step(metric)
// once per evaluation; when the metric has not improved for more than
// `patience` steps, every group's lr becomes max(lr * factor, min_lr), then
// `cooldown` steps pass before bad steps count again. Improvement:
//   mode min, rel: metric < best * (1 - threshold)   abs: metric < best - threshold
//   mode max, rel: metric > best * (1 + threshold)   abs: metric > best + threshold
// A reduction smaller than eps is not made.
#include <cstdint>
#include <vector>

#include "ember/nn/optim/optimizer.h"

namespace ember::optim {

class ReduceLROnPlateau {
 public:
  enum SchedulerMode { min, max };
  enum ThresholdMode { rel, abs };

  // min_lr: one value for every group, or one per group (empty: 0).
  explicit ReduceLROnPlateau(Optimizer& optimizer, SchedulerMode mode = min, double factor = 0.1,
                             int64_t patience = 10, double threshold = 1e-4,
                             ThresholdMode threshold_mode = rel, int64_t cooldown = 0,
                             std::vector<double> min_lr = {}, double eps = 1e-8);

  void step(double metric);
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }
  double best() const { return best_; }
  int64_t num_bad_epochs() const { return num_bad_epochs_; }

  // "last_epoch", "best", "num_bad_epochs", "cooldown_counter" (0-dim) and
  // "last_lr" (float64, one per group).
  TensorDict state_dict() const;
  void load_state_dict(const TensorDict& dict);

 private:
  bool is_better(double metric) const;

  Optimizer& optimizer_;
  SchedulerMode mode_;
  double factor_;
  int64_t patience_;
  double threshold_;
  ThresholdMode threshold_mode_;
  int64_t cooldown_;
  std::vector<double> min_lrs_;
  double eps_;

  double best_;
  int64_t num_bad_epochs_ = 0;
  int64_t cooldown_counter_ = 0;
  int64_t last_epoch_ = 0;
  std::vector<double> last_lr_;
};

using ReduceLROnPlateauScheduler = ReduceLROnPlateau;  // libtorch's name

}  // namespace ember::optim
