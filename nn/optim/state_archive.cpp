#include "ember/nn/optim/state_archive.h"

#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/ops/creation/factory.h"

namespace ember::optim {

StateArchive::StateArchive(TensorDict& out, std::string prefix)
    : out_(&out), prefix_(std::move(prefix)) {}

StateArchive::StateArchive(const TensorDict& in, std::string owner, std::string prefix,
                           std::unordered_set<std::string>& used, const Tensor* like)
    : in_(&in), owner_(std::move(owner)), prefix_(std::move(prefix)), used_(&used), like_(like) {}

const Tensor& StateArchive::read(const std::string& key) {
  const Tensor* t = in_->find(key);
  EMBER_CHECK(t != nullptr && t->defined(), "load_state_dict: missing key '", key, "'");
  used_->insert(key);
  return *t;
}

void StateArchive::field(const std::string& name, double& value) {
  const std::string key = prefix_ + name;
  if (!is_loading()) {
    out_->insert(key, tensor(value, kDouble));
    return;
  }
  const Tensor& t = read(key);
  EMBER_CHECK(t.numel() == 1, "load_state_dict: '", key, "' should hold one number, it has shape ",
              t.sizes());
  value = t.item<double>();
}

void StateArchive::field(const std::string& name, bool& value) {
  double d = value ? 1 : 0;
  field(name, d);
  value = d != 0;
}

void StateArchive::field(const std::string& name, int64_t& value, CounterRange range) {
  const std::string key = prefix_ + name;
  if (!is_loading()) {
    out_->insert(key, tensor(value, kLong));
    return;
  }
  value = read_counter(&read(key), owner_, key, range);
}

void StateArchive::field(const std::string& name, StepCount& value) {
  int64_t count = is_loading() ? 0 : value.get();
  field(name, count);
  if (is_loading()) value.set(count);
}

void StateArchive::field(const std::string& name, std::tuple<double, double>& value) {
  const std::string key = prefix_ + name;
  if (!is_loading()) {
    out_->insert(key, tensor({std::get<0>(value), std::get<1>(value)}, kDouble));
    return;
  }
  const Tensor& t = read(key);
  EMBER_CHECK(t.numel() == 2, "load_state_dict: '", key, "' should hold two numbers, it has shape ",
              t.sizes());
  const Tensor d = t.contiguous().to(kDouble);
  value = {d.data_ptr<double>()[0], d.data_ptr<double>()[1]};
}

void StateArchive::optional_tensor(const std::string& name, Tensor& value) {
  const std::string key = prefix_ + name;
  NoGradGuard no_grad;
  if (!is_loading()) {
    // A copy: the dict must not change when the optimizer steps on.
    if (value.defined()) out_->insert(key, value.clone());
    return;
  }
  const Tensor* t = in_->find(key);
  if (t == nullptr || !t->defined()) {
    value = Tensor();
    return;
  }
  used_->insert(key);
  if (like_ == nullptr) {
    value = t->clone();
    return;
  }
  EMBER_CHECK(t->sizes() == like_->sizes(), "load_state_dict: '", key, "' has shape ", t->sizes(),
              " but its parameter has shape ", like_->sizes());
  value = empty(like_->sizes(), TensorOptions(like_->dtype()).device(like_->device()));
  value.copy_(*t);
}

void StateArchive::optional_free_tensor(const std::string& name, Tensor& value) {
  const Tensor* stored = is_loading() ? in_->find(prefix_ + name) : nullptr;
  if (like_ == nullptr || stored == nullptr || !stored->defined()) {
    optional_tensor(name, value);
    return;
  }
  used_->insert(prefix_ + name);
  NoGradGuard no_grad;
  value = empty(stored->sizes(), TensorOptions(like_->dtype()).device(like_->device()));
  value.copy_(*stored);
}

}  // namespace ember::optim
