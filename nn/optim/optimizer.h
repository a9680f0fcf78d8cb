#pragma once
// The optimizer base, as libtorch's torch::optim::Optimizer:
//   ember::optim::Adam opt(model->parameters(), ember::optim::AdamOptions(1e-3));
//   opt.zero_grad(); loss.backward(); opt.step();
// Parameters come in groups, each with its own options (lr, ...); a group built
// without options takes a copy of the optimizer's defaults. Per-parameter state
// (momentum buffers, Adam's moments) is made on a parameter's first step.
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/core/ops/nn_ops/fused_optim.h"  // StepGate
#include "ember/nn/optim/state_archive.h"
#include "ember/nn/optim/step_count.h"

namespace ember::optim {

// A hyperparameter of an options or state type, as libtorch's TORCH_ARG:
// `opts.name(v)` sets it and returns the object (to chain), `opts.name()` reads
// it (by reference, so a container can be changed in place).
#define EMBER_OPTIM_ARG(Type, name, default_value) \
 public:                                           \
  auto& name(const Type& v) {                      \
    name##_ = v;                                   \
    return *this;                                  \
  }                                                \
  const Type& name() const { return name##_; }     \
  Type& name() { return name##_; }                 \
                                                   \
 private:                                          \
  Type name##_ = default_value

class OptimizerOptions {
 public:
  virtual ~OptimizerOptions() = default;
  virtual std::unique_ptr<OptimizerOptions> clone() const = 0;

  double lr() const { return lr_; }
  OptimizerOptions& lr(double lr) {
    lr_ = lr;
    return *this;
  }
  double get_lr() const { return lr_; }  // libtorch's names, used by schedulers
  void set_lr(double lr) { lr_ = lr; }

  // The momentum a schedule may cycle (OneCycleLR): SGD's momentum, Adam's beta1.
  virtual bool has_momentum() const { return false; }
  virtual double get_momentum() const;
  virtual void set_momentum(double momentum);

  // Lists every hyperparameter for state_dict / load_state_dict.
  virtual void serialize(StateArchive& archive);

 protected:
  explicit OptimizerOptions(double lr) : lr_(lr) {}
  OptimizerOptions(const OptimizerOptions&) = default;
  OptimizerOptions& operator=(const OptimizerOptions&) = default;

 private:
  double lr_;
};

// Gives an options type clone() and an lr setter that returns the type itself.
template <typename Derived>
class OptimizerCloneableOptions : public OptimizerOptions {
 public:
  std::unique_ptr<OptimizerOptions> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
  double lr() const { return OptimizerOptions::lr(); }
  Derived& lr(double lr) {
    OptimizerOptions::lr(lr);
    return static_cast<Derived&>(*this);
  }

 protected:
  using OptimizerOptions::OptimizerOptions;
};

class OptimizerParamState {
 public:
  virtual ~OptimizerParamState() = default;
  // Lists every state tensor and counter for state_dict / load_state_dict.
  virtual void serialize(StateArchive& archive) = 0;
};

class OptimizerParamGroup {
 public:
  OptimizerParamGroup(std::vector<Tensor> params);  // NOLINT: takes the optimizer's defaults
  OptimizerParamGroup(std::vector<Tensor> params, std::unique_ptr<OptimizerOptions> options);
  OptimizerParamGroup(const OptimizerParamGroup& other);
  OptimizerParamGroup& operator=(const OptimizerParamGroup& other);
  OptimizerParamGroup(OptimizerParamGroup&&) = default;
  OptimizerParamGroup& operator=(OptimizerParamGroup&&) = default;

  bool has_options() const { return options_ != nullptr; }
  OptimizerOptions& options();
  const OptimizerOptions& options() const;
  void set_options(std::unique_ptr<OptimizerOptions> options) { options_ = std::move(options); }
  std::vector<Tensor>& params() { return params_; }
  const std::vector<Tensor>& params() const { return params_; }

 private:
  std::vector<Tensor> params_;
  std::unique_ptr<OptimizerOptions> options_;
};

class Optimizer {
 public:
  using LossClosure = std::function<Tensor()>;

  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;
  virtual ~Optimizer() = default;

  // Adds a group; its parameters must be floating point leaves that are in no
  // other group. A group without options gets a copy of defaults().
  void add_param_group(const OptimizerParamGroup& group);

  // One update of every parameter that has a gradient (others are skipped).
  // With a closure, calls it first (grad mode on) and returns its loss.
  virtual Tensor step(LossClosure closure = nullptr) = 0;

  // Note [Steps skipped on the device]
  // step() where found_inf (float32, 0-dim, on the parameters' device) is 0,
  // nothing where it is not: GradScaler's step, decided on the device so that
  // a CUDA training step never waits for the flag. Each fused update reads
  // the flag in its kernel and writes nothing when it is set; the step counts
  // the updates depend on (StepCount) move to the device, where a small kernel
  // advances them before the update unless the flag is set. State a skipped
  // step creates is what a fresh parameter starts from (zeros, count 0), so
  // skipping leaves the training where it was. SGD, Adam, AdamW, RMSprop and
  // Adagrad decide on the device (can_skip_on_device()); other optimizers
  // (LBFGS, ones written outside ember) read the flag on the host instead.
  // Returns step()'s result (undefined: no closure here).
  Tensor step_unless(const Tensor& found_inf);
  virtual bool can_skip_on_device() const { return false; }

  // Drops every gradient (set_to_none) or zeroes it in place.
  void zero_grad(bool set_to_none = true);

  std::vector<Tensor> parameters() const;  // every group's, in order
  size_t size() const;                     // how many parameters
  OptimizerOptions& defaults() { return *defaults_; }
  const OptimizerOptions& defaults() const { return *defaults_; }
  std::vector<OptimizerParamGroup>& param_groups() { return param_groups_; }
  const std::vector<OptimizerParamGroup>& param_groups() const { return param_groups_; }
  // Per-parameter state, keyed by p.unsafeGetTensorImpl() (as libtorch).
  std::unordered_map<void*, std::unique_ptr<OptimizerParamState>>& state() { return state_; }
  const std::unordered_map<void*, std::unique_ptr<OptimizerParamState>>& state() const {
    return state_;
  }

  // Tensors only, so a checkpoint can store it as safetensors. Parameters are
  // numbered 0, 1, ... across the groups in order:
  //   "state.<i>.<field>"           e.g. state.0.exp_avg, state.0.step (int64, 0-dim)
  //   "param_groups.<g>.params"     int64 (n,): the numbers of the group's parameters
  //   "param_groups.<g>.<option>"   e.g. param_groups.0.lr (float64, 0-dim)
  TensorDict state_dict() const;
  // Restores state_dict()'s output into an optimizer over parameters of the
  // same shapes in the same groups. Checks the group count, each group's
  // parameter count, each state tensor's shape, and that no key is left
  // unread; on an error nothing is changed.
  void load_state_dict(const TensorDict& dict);

 protected:
  explicit Optimizer(std::unique_ptr<OptimizerOptions> defaults);
  // Called by each derived constructor (it needs name() and check_options()):
  // checks the defaults and adds the groups. Errors when there is none.
  void add_initial_groups(const std::vector<OptimizerParamGroup>& param_groups);

  // "SGD", "Adam", ...: the start of error messages.
  virtual const char* name() const = 0;
  // Errors naming the bad option (a negative lr, ...).
  virtual void check_options(const OptimizerOptions& options) const = 0;
  // A fresh, empty state of this optimizer's kind (load_state_dict fills it).
  virtual std::unique_ptr<OptimizerParamState> make_state() const = 0;

  // The state of p, made by make_state() on first use; `created` says so.
  template <typename State>
  State& param_state(const Tensor& p, bool& created) {
    std::unique_ptr<OptimizerParamState>& s = state_[p.unsafeGetTensorImpl()];
    created = s == nullptr;
    if (created) s = make_state();
    return static_cast<State&>(*s);
  }

  // Runs the closure (if any) with grad mode on and returns its loss.
  static Tensor run_closure(const LossClosure& closure);

  // The flag of step_unless() while it runs step() (undefined otherwise): the
  // gate each fused update of an optimizer that can_skip_on_device() takes.
  const Tensor& skip_flag() const { return skip_flag_; }
  // Counts one step of a parameter: on the host, setting `step` and returning
  // an inactive gate; or, within step_unless(), on the device, returning the
  // gate for the parameter's update (`step` untouched).
  StepGate count_step(StepCount& count, int64_t& step) const;

 private:
  Tensor skip_flag_;
  std::unique_ptr<OptimizerOptions> defaults_;
  std::vector<OptimizerParamGroup> param_groups_;
  std::unordered_map<void*, std::unique_ptr<OptimizerParamState>> state_;
};

namespace detail {
// The gradient of p as a contiguous tensor of p's dtype and device; errors
// when its dtype or shape differs (a gradient set by hand).
Tensor dense_grad(const char* optimizer, const Tensor& p);
// A zero tensor shaped as p, contiguous, without autograd.
Tensor zeros_state(const Tensor& p);
// Runs update(contiguous param) and writes the result back when p is not
// contiguous; bumps p's version counter (the update is in place).
template <typename F>
void update_in_place(const Tensor& p, const F& update) {
  if (p.is_contiguous()) {
    update(p);
    p.unsafeGetTensorImpl()->bump_version();
    return;
  }
  Tensor work = p.contiguous();
  update(work);
  Tensor(p).copy_(work);  // bumps the version
}
}  // namespace detail

}  // namespace ember::optim
