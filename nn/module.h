#pragma once
// nn::Module, as torch::nn::Module: a tree of named parameters, buffers and
// submodules. Layers derive from it (FooImpl) and are held through a
// ModuleHolder (Foo, nn/module_holder.h), so `Linear fc(2, 3); fc->weight`.
// Modules live in shared_ptrs: children are shared, modules() returns them.
//
// Forward hooks (ours; libtorch has none) are described in nn/README.md.
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/core/tensor.h"
#include "ember/nn/ordered_dict.h"

namespace ember::nn {

template <typename Contained>
class ModuleHolder;

class Module;
struct BackwardHookState;  // module.cpp

// Removes the hook it was returned for; safe to call twice or after the
// module is gone.
class RemovableHandle {
 public:
  RemovableHandle() = default;
  RemovableHandle(std::weak_ptr<void> registry, std::function<void()> remove)
      : registry_(std::move(registry)), remove_(std::move(remove)) {}
  void remove();

 private:
  std::weak_ptr<void> registry_;
  std::function<void()> remove_;
};

// pre hook: (module, input) -> replacement input or nothing.
using ForwardPreHook = std::function<std::optional<Tensor>(Module&, const Tensor&)>;
// forward hook: (module, input, output) -> replacement output or nothing.
using ForwardHook = std::function<std::optional<Tensor>(Module&, const Tensor&, const Tensor&)>;
// full backward hook: (module, grad_input, grad_output) -> replacement
// grad_input or nothing. grad_input is undefined when the input needs no grad.
using BackwardHook =
    std::function<std::optional<Tensor>(Module&, const Tensor&, const Tensor&)>;

class Module : public std::enable_shared_from_this<Module> {
 public:
  // name: what printing shows; by default the class name without "Impl".
  explicit Module(std::string name);
  Module();
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  const std::string& name() const;

  // --- the tree ---
  std::vector<Tensor> parameters(bool recurse = true) const;
  OrderedDict<std::string, Tensor> named_parameters(bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  OrderedDict<std::string, Tensor> named_buffers(bool recurse = true) const;
  std::vector<std::shared_ptr<Module>> children() const;
  OrderedDict<std::string, std::shared_ptr<Module>> named_children() const;
  // Pre-order, self first (needs self owned by a shared_ptr when include_self).
  std::vector<std::shared_ptr<Module>> modules(bool include_self = true) const;
  OrderedDict<std::string, std::shared_ptr<Module>> named_modules(
      const std::string& name_prefix = "", bool include_self = true) const;

  // fn on self, then on every descendant (pre-order, as libtorch).
  void apply(const std::function<void(Module&)>& fn);
  void apply(const std::function<void(const std::string&, Module&)>& fn,
             const std::string& name_prefix = "");
  void apply(const std::function<void(const std::shared_ptr<Module>&)>& fn);

  // --- state ---
  virtual void train(bool on = true);
  void eval() { train(false); }
  virtual bool is_training() const { return is_training_; }
  // Converts parameters, their gradients and buffers in place (every handle
  // to them sees the change). As PyTorch, a dtype applies to floating-point
  // tensors only: num_batches_tracked stays int64.
  virtual void to(Device device, ScalarType dtype, bool non_blocking = false);
  virtual void to(ScalarType dtype, bool non_blocking = false);
  virtual void to(Device device, bool non_blocking = false);
  // Clears (set_to_none) or zeroes the gradient of every parameter.
  virtual void zero_grad(bool set_to_none = true);

  // One line describing this module alone ("Linear(in_features=2, ...)");
  // operator<< adds the children.
  virtual void pretty_print(std::ostream& stream) const;

  // --- registration ---
  // name: non-empty, no '.'. An undefined tensor registers a placeholder
  // (Linear without bias) that named_parameters() skips, as libtorch.
  Tensor& register_parameter(std::string name, Tensor tensor, bool requires_grad = true);
  Tensor& register_buffer(std::string name, Tensor tensor);
  template <typename ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name,
                                              std::shared_ptr<ModuleType> module) {
    check_child_name("register_module", name, module != nullptr);
    children_.insert(std::move(name), module);
    return module;
  }
  template <typename ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name,
                                              ModuleHolder<ModuleType> module_holder) {
    return register_module(std::move(name), module_holder.ptr());
  }
  // Replaces a registered child (returns the new one).
  template <typename ModuleType>
  std::shared_ptr<ModuleType> replace_module(const std::string& name,
                                             std::shared_ptr<ModuleType> module) {
    check_child_name("replace_module", name, module != nullptr);
    children_[name] = module;
    return module;
  }
  template <typename ModuleType>
  std::shared_ptr<ModuleType> replace_module(const std::string& name,
                                             ModuleHolder<ModuleType> module_holder) {
    return replace_module(name, module_holder.ptr());
  }

  // Removes a registered child (an error if there is none by that name).
  void unregister_module(const std::string& name);

  // This module as a ModuleType (or its Impl for a holder type); null if not one.
  template <typename ModuleType>
  auto* as() {
    using Impl = typename impl_of<ModuleType>::type;
    return dynamic_cast<Impl*>(this);
  }

  // --- hooks (nn/README.md) ---
  // Each fn may return a replacement (std::optional<Tensor>) or nothing (void).
  template <typename F>
  RemovableHandle register_forward_pre_hook(F fn) {
    return add_hook(forward_pre_hooks_, ForwardPreHook(adapt_hook<const Tensor&>(std::move(fn))));
  }
  template <typename F>
  RemovableHandle register_forward_hook(F fn) {
    return add_hook(forward_hooks_,
                    ForwardHook(adapt_hook<const Tensor&, const Tensor&>(std::move(fn))));
  }
  template <typename F>
  RemovableHandle register_full_backward_hook(F fn) {
    return add_hook(backward_hooks_,
                    BackwardHook(adapt_hook<const Tensor&, const Tensor&>(std::move(fn))));
  }

  // Whether any forward-pre, forward or backward hook is registered (a
  // container fuses no module that has one).
  bool has_hooks() const;

  // Runs forward(input) between this module's hooks. Holders' operator(),
  // containers and the built-in layers' forward call it; a call nested in
  // one already running for this module runs forward alone, so hooks fire
  // once per call.
  template <typename Forward>
  Tensor call_with_hooks(const Tensor& input, Forward&& forward) {
    if (in_hooked_call_ || !has_hooks()) return forward(input);
    HookedCallScope scope(in_hooked_call_);
    Tensor x = run_forward_pre_hooks(input);
    const bool backward = wants_backward_hooks();
    if (backward) x = begin_backward_hooks(x);
    Tensor out = forward(x);
    out = run_forward_hooks(x, out);
    return backward ? end_backward_hooks(out) : out;
  }

 protected:
  bool is_training_ = true;

 private:
  template <typename T, typename = void>
  struct impl_of {
    using type = T;
  };
  template <typename T>
  struct impl_of<T, std::void_t<typename T::ContainedType>> {
    using type = typename T::ContainedType;
  };

  template <typename Hook>
  struct HookList {
    unsigned next_id = 0;
    std::vector<std::pair<unsigned, Hook>> hooks;
  };

  struct HookedCallScope {
    explicit HookedCallScope(bool& flag) : flag_(flag) { flag_ = true; }
    ~HookedCallScope() { flag_ = false; }
    bool& flag_;
  };

  // Wraps a hook returning void or std::optional<Tensor> into the latter.
  template <typename... Args, typename F>
  static auto adapt_hook(F fn) {
    return [fn = std::move(fn)](Module& m, Args... args) -> std::optional<Tensor> {
      if constexpr (std::is_void_v<std::invoke_result_t<F&, Module&, Args...>>) {
        fn(m, args...);
        return std::nullopt;
      } else {
        return fn(m, args...);
      }
    };
  }
  template <typename Hook>
  RemovableHandle add_hook(std::shared_ptr<HookList<Hook>>& list, Hook hook) {
    if (!list) list = std::make_shared<HookList<Hook>>();
    const unsigned id = list->next_id++;
    list->hooks.emplace_back(id, std::move(hook));
    std::weak_ptr<HookList<Hook>> weak = list;
    return RemovableHandle(list, [weak, id] {
      if (auto l = weak.lock())
        std::erase_if(l->hooks, [id](const auto& h) { return h.first == id; });
    });
  }

  Tensor run_forward_pre_hooks(const Tensor& input);
  Tensor run_forward_hooks(const Tensor& input, const Tensor& output);
  bool wants_backward_hooks() const;
  Tensor begin_backward_hooks(const Tensor& input);
  Tensor end_backward_hooks(const Tensor& output);

  using TensorDict = OrderedDict<std::string, Tensor>;
  // Adds this subtree's tensors of `dict` (parameters_ or buffers_) to result.
  void collect_tensors(TensorDict Module::*dict, const std::string& prefix, bool recurse,
                       TensorDict& result, std::unordered_set<const TensorImpl*>& seen) const;
  void check_child_name(const char* op, const std::string& name, bool defined) const;
  void to_impl(std::optional<Device> device, std::optional<ScalarType> dtype, bool non_blocking);

  mutable std::optional<std::string> name_;
  TensorDict parameters_{"Parameter"};
  TensorDict buffers_{"Buffer"};
  OrderedDict<std::string, std::shared_ptr<Module>> children_{"Submodule"};

  std::shared_ptr<HookList<ForwardPreHook>> forward_pre_hooks_;
  std::shared_ptr<HookList<ForwardHook>> forward_hooks_;
  std::shared_ptr<HookList<BackwardHook>> backward_hooks_;
  // Set while call_with_hooks runs, so a nested call does not fire hooks twice.
  bool in_hooked_call_ = false;
  // Between begin_ and end_backward_hooks: the module input's hook state.
  std::shared_ptr<BackwardHookState> pending_backward_;
};

// Prints the tree like PyTorch: "Sequential(\n  (0): Linear(...)\n)".
std::ostream& operator<<(std::ostream& stream, const Module& module);

}  // namespace ember::nn
