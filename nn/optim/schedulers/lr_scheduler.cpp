#include "ember/nn/optim/schedulers/lr_scheduler.h"

#include "ember/core/error.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/nn/serialize/counter.h"

namespace ember::optim {

LRScheduler::LRScheduler(Optimizer& optimizer) : optimizer_(optimizer) {
  for (const OptimizerParamGroup& group : optimizer.param_groups())
    base_lrs_.push_back(group.options().get_lr());
}

void LRScheduler::initial_step() { step(); }

void LRScheduler::step() {
  ++last_epoch_;
  std::vector<double> lrs = get_lr();
  std::vector<OptimizerParamGroup>& groups = optimizer_.param_groups();
  EMBER_CHECK(lrs.size() == groups.size(), "LRScheduler: the optimizer has ", groups.size(),
              " parameter groups but the scheduler was made for ", lrs.size());
  for (size_t g = 0; g < groups.size(); ++g) groups[g].options().set_lr(lrs[g]);
  last_lr_ = std::move(lrs);
}

TensorDict LRScheduler::state_dict() const {
  TensorDict dict("State dict key");
  dict.insert("last_epoch", tensor(last_epoch_, kLong));
  dict.insert("base_lrs", detail::doubles_to_tensor(base_lrs_));
  dict.insert("last_lr", detail::doubles_to_tensor(last_lr_));
  return dict;
}

void LRScheduler::load_state_dict(const TensorDict& dict) {
  const size_t n = base_lrs_.size();
  std::vector<double> base = detail::tensor_to_doubles("LRScheduler", dict, "base_lrs", n);
  std::vector<double> last = detail::tensor_to_doubles("LRScheduler", dict, "last_lr", n);
  // -1: constructed but never stepped.
  last_epoch_ = read_counter(dict.find("last_epoch"), "LRScheduler.load_state_dict", "last_epoch",
                             {.min = -1});
  base_lrs_ = std::move(base);
  last_lr_ = std::move(last);
}

namespace detail {

Tensor doubles_to_tensor(const std::vector<double>& values) {
  Tensor t = empty({static_cast<int64_t>(values.size())}, kDouble);
  std::copy(values.begin(), values.end(), t.data_ptr<double>());
  return t;
}

std::vector<double> tensor_to_doubles(const char* scheduler, const TensorDict& dict,
                                      const std::string& key, size_t n) {
  const Tensor* t = dict.find(key);
  EMBER_CHECK(t != nullptr && t->defined(), scheduler, ".load_state_dict: missing key '", key,
              "'");
  EMBER_CHECK(t->dim() == 1 && t->numel() == static_cast<int64_t>(n), scheduler,
              ".load_state_dict: '", key, "' has shape ", t->sizes(), ", expected [", n,
              "] (one value per parameter group)");
  const Tensor d = t->contiguous().to(kDouble);
  return std::vector<double>(d.data_ptr<double>(), d.data_ptr<double>() + n);
}

}  // namespace detail

}  // namespace ember::optim
