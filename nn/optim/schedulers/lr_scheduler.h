#pragma once
// The learning-rate scheduler base, as torch.optim.lr_scheduler.LRScheduler.
// A scheduler keeps a count of its steps (last_epoch) and sets each parameter
// group's lr to a function of that count and the group's base lr (its lr when
// the scheduler was made). Construction counts as step 0, as PyTorch:
//   ember::optim::StepLR sched(opt, /*step_size=*/30, /*gamma=*/0.1);
//   for (epoch...) { train(); sched.step(); }
// The schedules use PyTorch's closed forms, so a scheduler owns its groups'
// lr: another scheduler or a hand-set lr is overwritten at the next step.
#include <cstdint>
#include <vector>

#include "ember/nn/optim/optimizer.h"

namespace ember::optim {

class LRScheduler {
 public:
  explicit LRScheduler(Optimizer& optimizer);
  virtual ~LRScheduler() = default;
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;

  // Advances last_epoch by one and sets every group's lr.
  void step();
  // The lr of each group set by the last step.
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }
  const std::vector<double>& base_lrs() const { return base_lrs_; }

  // "last_epoch" (int64, 0-dim), "base_lrs" and "last_lr" (float64, one per
  // group). Loading checks the group count and sets no lr: the optimizer's
  // own state dict carries the lrs.
  virtual TensorDict state_dict() const;
  virtual void load_state_dict(const TensorDict& dict);

 protected:
  // The lr of every group at epoch last_epoch().
  virtual std::vector<double> get_lr() = 0;
  // Each derived constructor ends with it (it calls get_lr()): step 0.
  void initial_step();

  Optimizer& optimizer_;
  std::vector<double> base_lrs_;

 private:
  int64_t last_epoch_ = -1;
  std::vector<double> last_lr_;
};

namespace detail {
// A float64 tensor (n,) of the values, and back (checking n).
Tensor doubles_to_tensor(const std::vector<double>& values);
std::vector<double> tensor_to_doubles(const char* scheduler, const TensorDict& dict,
                                      const std::string& key, size_t n);
}  // namespace detail

}  // namespace ember::optim
