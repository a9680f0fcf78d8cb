#include "ember/nn/optim/optimizer.h"

#include <unordered_set>

#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/ops/creation/factory.h"

namespace ember::optim {

// ---- OptimizerOptions ----

double OptimizerOptions::get_momentum() const {
  EMBER_ERROR("this optimizer has no momentum or beta1 to read");
}

void OptimizerOptions::set_momentum(double) {
  EMBER_ERROR("this optimizer has no momentum or beta1 to set");
}

void OptimizerOptions::serialize(StateArchive& archive) { archive.field("lr", lr_); }

// ---- OptimizerParamGroup ----

OptimizerParamGroup::OptimizerParamGroup(std::vector<Tensor> params)
    : params_(std::move(params)) {}

OptimizerParamGroup::OptimizerParamGroup(std::vector<Tensor> params,
                                         std::unique_ptr<OptimizerOptions> options)
    : params_(std::move(params)), options_(std::move(options)) {}

OptimizerParamGroup::OptimizerParamGroup(const OptimizerParamGroup& other)
    : params_(other.params_), options_(other.has_options() ? other.options_->clone() : nullptr) {}

OptimizerParamGroup& OptimizerParamGroup::operator=(const OptimizerParamGroup& other) {
  if (this != &other) {
    params_ = other.params_;
    options_ = other.has_options() ? other.options_->clone() : nullptr;
  }
  return *this;
}

OptimizerOptions& OptimizerParamGroup::options() {
  EMBER_CHECK(has_options(), "OptimizerParamGroup: this group has no options yet (a group gets "
              "the optimizer's defaults when it is added to one)");
  return *options_;
}

const OptimizerOptions& OptimizerParamGroup::options() const {
  return const_cast<OptimizerParamGroup*>(this)->options();
}

// ---- Optimizer ----

Optimizer::Optimizer(std::unique_ptr<OptimizerOptions> defaults)
    : defaults_(std::move(defaults)) {}

void Optimizer::add_initial_groups(const std::vector<OptimizerParamGroup>& param_groups) {
  check_options(*defaults_);
  EMBER_CHECK(!param_groups.empty(), name(), ": got an empty list of parameter groups");
  for (const OptimizerParamGroup& g : param_groups) add_param_group(g);
}

void Optimizer::add_param_group(const OptimizerParamGroup& group) {
  check_options(group.has_options() ? group.options() : *defaults_);
  std::unordered_set<const TensorImpl*> seen;
  for (const OptimizerParamGroup& g : param_groups_)
    for (const Tensor& p : g.params()) seen.insert(p.unsafeGetTensorImpl());
  for (size_t i = 0; i < group.params().size(); ++i) {
    const Tensor& p = group.params()[i];
    EMBER_CHECK(p.defined(), name(), ": parameter ", i, " of the group is an undefined tensor");
    EMBER_CHECK(p.is_floating_point(), name(), ": can only optimize floating point tensors, "
                "parameter ", i, " of the group is ", p.scalar_type());
    EMBER_CHECK(p.is_leaf(), name(), ": can't optimize a non-leaf tensor (parameter ", i,
                " of the group); use detach().requires_grad_() to make a leaf");
    EMBER_CHECK(seen.insert(p.unsafeGetTensorImpl()).second, name(), ": parameter ", i,
                " of the group appears more than once among the parameter groups");
  }
  OptimizerParamGroup added(group.params(),
                            group.has_options() ? group.options().clone() : defaults_->clone());
  param_groups_.push_back(std::move(added));
}

void Optimizer::zero_grad(bool set_to_none) {
  for (OptimizerParamGroup& group : param_groups_)
    for (Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      if (set_to_none) {
        p.mutable_grad() = Tensor();
        continue;
      }
      Tensor& g = p.mutable_grad();
      if (g.grad_fn()) g = g.detach();  // a create_graph gradient: drop its graph
      NoGradGuard no_grad;
      g.zero_();
    }
}

std::vector<Tensor> Optimizer::parameters() const {
  std::vector<Tensor> out;
  out.reserve(size());
  for (const OptimizerParamGroup& group : param_groups_)
    out.insert(out.end(), group.params().begin(), group.params().end());
  return out;
}

size_t Optimizer::size() const {
  size_t n = 0;
  for (const OptimizerParamGroup& group : param_groups_) n += group.params().size();
  return n;
}

Tensor Optimizer::step_unless(const Tensor& found_inf) {
  EMBER_CHECK(found_inf.defined() && found_inf.numel() == 1 && found_inf.dtype() == kFloat,
              name(), ".step_unless: found_inf must be a one-element float32 tensor, got ",
              found_inf.defined() ? found_inf.toString() : std::string("an undefined tensor"));
  if (!can_skip_on_device()) return found_inf.item<float>() == 0 ? step() : Tensor();
  EMBER_CHECK(!skip_flag_.defined(), name(), ".step_unless: called from inside a step()");
  skip_flag_ = found_inf;
  struct Reset {
    Tensor& flag;
    ~Reset() { flag = Tensor(); }
  } reset{skip_flag_};
  return step();
}

StepGate Optimizer::count_step(StepCount& count, int64_t& step) const {
  if (!skip_flag_.defined()) {
    step = count.advance();
    return {};
  }
  return {skip_flag_, count.advance_unless(skip_flag_)};
}

Tensor Optimizer::run_closure(const LossClosure& closure) {
  if (!closure) return {};
  AutoGradMode grad_on(true);
  return closure();
}

TensorDict Optimizer::state_dict() const {
  TensorDict dict("State dict key");
  int64_t index = 0;
  for (size_t g = 0; g < param_groups_.size(); ++g) {
    const std::string prefix = "param_groups." + std::to_string(g) + ".";
    const std::vector<Tensor>& params = param_groups_[g].params();
    Tensor numbers = empty({static_cast<int64_t>(params.size())}, kLong);
    for (size_t i = 0; i < params.size(); ++i, ++index) {
      numbers.data_ptr<int64_t>()[i] = index;
      auto it = state_.find(params[i].unsafeGetTensorImpl());
      if (it == state_.end()) continue;
      StateArchive archive(dict, "state." + std::to_string(index) + ".");
      it->second->serialize(archive);  // saving only reads the state
    }
    dict.insert(prefix + "params", numbers);
    StateArchive archive(dict, prefix);
    param_groups_[g].options().clone()->serialize(archive);
  }
  return dict;
}

void Optimizer::load_state_dict(const TensorDict& dict) {
  const size_t groups = param_groups_.size();
  size_t dict_groups = 0;
  while (dict.contains("param_groups." + std::to_string(dict_groups) + ".params")) ++dict_groups;
  EMBER_CHECK(dict_groups == groups, name(), ".load_state_dict: the state dict has ", dict_groups,
              " parameter groups, this optimizer has ", groups);

  // The parameter numbers that have state: keys "state.<i>.<field>".
  std::unordered_set<std::string> with_state;
  for (const auto& item : dict) {
    const std::string& key = item.key();
    if (key.rfind("state.", 0) == 0) with_state.insert(key.substr(0, key.find('.', 6) + 1));
  }

  // Everything is read into new objects first, so an error changes nothing.
  std::unordered_set<std::string> used;
  std::vector<std::unique_ptr<OptimizerOptions>> options;
  std::unordered_map<void*, std::unique_ptr<OptimizerParamState>> state;
  int64_t index = 0;
  for (size_t g = 0; g < groups; ++g) {
    const std::string prefix = "param_groups." + std::to_string(g) + ".";
    const std::vector<Tensor>& params = param_groups_[g].params();
    const Tensor& numbers = dict[prefix + "params"];
    used.insert(prefix + "params");
    EMBER_CHECK(numbers.numel() == static_cast<int64_t>(params.size()), name(),
                ".load_state_dict: parameter group ", g, " has ", numbers.numel(),
                " parameters in the state dict and ", params.size(), " in this optimizer");
    options.push_back(param_groups_[g].options().clone());
    const std::string owner = std::string(name()) + ".load_state_dict";
    StateArchive options_archive(dict, owner, prefix, used);
    options.back()->serialize(options_archive);
    check_options(*options.back());
    for (const Tensor& p : params) {
      const std::string state_prefix = "state." + std::to_string(index++) + ".";
      if (with_state.count(state_prefix) == 0) continue;
      std::unique_ptr<OptimizerParamState> s = make_state();
      StateArchive state_archive(dict, owner, state_prefix, used, &p);
      s->serialize(state_archive);
      state[p.unsafeGetTensorImpl()] = std::move(s);
    }
  }
  for (const auto& item : dict)
    EMBER_CHECK(used.count(item.key()) != 0, name(), ".load_state_dict: unexpected key '",
                item.key(), "' (", dict.size() - used.size(), " unexpected in all)");

  for (size_t g = 0; g < groups; ++g) param_groups_[g].set_options(std::move(options[g]));
  state_ = std::move(state);
}

namespace detail {

Tensor dense_grad(const char* optimizer, const Tensor& p) {
  const Tensor& g = p.grad();
  EMBER_CHECK(g.dtype() == p.dtype() && g.sizes() == p.sizes() && g.device() == p.device(),
              optimizer, ": the gradient (", g.toString(), ") does not match its parameter (",
              p.toString(), ")");
  return g.contiguous();
}

Tensor zeros_state(const Tensor& p) {
  return zeros(p.sizes(), TensorOptions(p.dtype()).device(p.device()));
}

}  // namespace detail

}  // namespace ember::optim
