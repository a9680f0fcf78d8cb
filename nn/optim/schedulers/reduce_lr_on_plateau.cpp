#include "ember/nn/optim/schedulers/reduce_lr_on_plateau.h"

#include <algorithm>
#include <limits>

#include "ember/core/error.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/nn/optim/schedulers/lr_scheduler.h"
#include "ember/nn/serialize/counter.h"

namespace ember::optim {

ReduceLROnPlateau::ReduceLROnPlateau(Optimizer& optimizer, SchedulerMode mode, double factor,
                                     int64_t patience, double threshold,
                                     ThresholdMode threshold_mode, int64_t cooldown,
                                     std::vector<double> min_lr, double eps)
    : optimizer_(optimizer),
      mode_(mode),
      factor_(factor),
      patience_(patience),
      threshold_(threshold),
      threshold_mode_(threshold_mode),
      cooldown_(cooldown),
      min_lrs_(std::move(min_lr)),
      eps_(eps) {
  const size_t groups = optimizer.param_groups().size();
  EMBER_CHECK(factor < 1.0, "ReduceLROnPlateau: factor must be < 1.0, got ", factor);
  EMBER_CHECK(patience >= 0 && cooldown >= 0, "ReduceLROnPlateau: patience and cooldown must "
              "be >= 0, got ", patience, " and ", cooldown);
  if (min_lrs_.empty()) min_lrs_ = {0.0};
  EMBER_CHECK(min_lrs_.size() == 1 || min_lrs_.size() == groups, "ReduceLROnPlateau: got ",
              min_lrs_.size(), " min_lr values for ", groups, " parameter groups");
  if (min_lrs_.size() == 1) min_lrs_.resize(groups, min_lrs_[0]);
  const double inf = std::numeric_limits<double>::infinity();
  best_ = mode == min ? inf : -inf;
  for (const OptimizerParamGroup& group : optimizer.param_groups())
    last_lr_.push_back(group.options().get_lr());
}

bool ReduceLROnPlateau::is_better(double metric) const {
  if (mode_ == min)
    return threshold_mode_ == rel ? metric < best_ * (1 - threshold_) : metric < best_ - threshold_;
  return threshold_mode_ == rel ? metric > best_ * (1 + threshold_) : metric > best_ + threshold_;
}

void ReduceLROnPlateau::step(double metric) {
  ++last_epoch_;
  if (is_better(metric)) {
    best_ = metric;
    num_bad_epochs_ = 0;
  } else {
    ++num_bad_epochs_;
  }
  if (cooldown_counter_ > 0) {
    --cooldown_counter_;
    num_bad_epochs_ = 0;  // bad steps during a cooldown do not count
  }
  std::vector<OptimizerParamGroup>& groups = optimizer_.param_groups();
  if (num_bad_epochs_ > patience_) {
    for (size_t g = 0; g < groups.size(); ++g) {
      const double old_lr = groups[g].options().get_lr();
      const double new_lr = std::max(old_lr * factor_, min_lrs_[g]);
      if (old_lr - new_lr > eps_) groups[g].options().set_lr(new_lr);
    }
    cooldown_counter_ = cooldown_;
    num_bad_epochs_ = 0;
  }
  last_lr_.clear();
  for (const OptimizerParamGroup& group : groups) last_lr_.push_back(group.options().get_lr());
}

TensorDict ReduceLROnPlateau::state_dict() const {
  TensorDict dict("State dict key");
  dict.insert("last_epoch", tensor(last_epoch_, kLong));
  dict.insert("best", tensor(best_, kDouble));
  dict.insert("num_bad_epochs", tensor(num_bad_epochs_, kLong));
  dict.insert("cooldown_counter", tensor(cooldown_counter_, kLong));
  dict.insert("last_lr", detail::doubles_to_tensor(last_lr_));
  return dict;
}

void ReduceLROnPlateau::load_state_dict(const TensorDict& dict) {
  auto number = [&](const char* key) {
    const Tensor* t = dict.find(key);
    EMBER_CHECK(t && t->defined() && t->numel() == 1, "ReduceLROnPlateau.load_state_dict: "
                "missing or malformed key '", key, "'");
    return *t;
  };
  std::vector<double> last =
      detail::tensor_to_doubles("ReduceLROnPlateau", dict, "last_lr", last_lr_.size());
  const auto counter = [&](const char* key) {
    return read_counter(dict.find(key), "ReduceLROnPlateau.load_state_dict", key);
  };
  const int64_t epoch = counter("last_epoch");
  const double best = number("best").item<double>();
  const int64_t bad = counter("num_bad_epochs");
  const int64_t cooldown = counter("cooldown_counter");
  last_epoch_ = epoch;
  best_ = best;
  num_bad_epochs_ = bad;
  cooldown_counter_ = cooldown;
  last_lr_ = std::move(last);
}

}  // namespace ember::optim
