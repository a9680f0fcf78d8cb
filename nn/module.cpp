#include "ember/nn/module.h"

#include <cxxabi.h>

#include <cstdlib>
#include <typeinfo>
#include <unordered_set>

#include "ember/autograd/function.h"
#include "ember/core/tensor_impl.h"

namespace ember::nn {

void RemovableHandle::remove() {
  if (remove_ && !registry_.expired()) remove_();
  remove_ = nullptr;
}

Module::Module(std::string name) : name_(std::move(name)) {}
Module::Module() = default;

namespace {

// "ember::nn::LinearImpl" -> "Linear"; "MyNet" -> "MyNet".
std::string readable_type_name(const std::type_info& type) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
  std::string name = status == 0 ? demangled : type.name();
  std::free(demangled);
  if (const size_t colon = name.rfind("::"); colon != std::string::npos)
    name = name.substr(colon + 2);
  const std::string suffix = "Impl";
  if (name.size() > suffix.size() && name.ends_with(suffix))
    name.resize(name.size() - suffix.size());
  return name;
}

std::string join_name(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

}  // namespace

const std::string& Module::name() const {
  // The dynamic type is only known once construction is over: computed lazily.
  if (!name_) name_ = readable_type_name(typeid(*this));
  return *name_;
}

// ---------------------------------------------------------------- the tree

// As PyTorch, a tensor registered under several names (tied weights) is
// listed once, under its first name, so an optimizer steps it once.
void Module::collect_tensors(TensorDict Module::*dict, const std::string& prefix, bool recurse,
                             TensorDict& result,
                             std::unordered_set<const TensorImpl*>& seen) const {
  for (const auto& item : this->*dict)
    if (item.value().defined() && seen.insert(item.value().unsafeGetTensorImpl()).second)
      result.insert(join_name(prefix, item.key()), item.value());
  if (recurse)
    for (const auto& child : children_)
      child.value()->collect_tensors(dict, join_name(prefix, child.key()), true, result, seen);
}

std::vector<Tensor> Module::parameters(bool recurse) const {
  return named_parameters(recurse).values();
}

OrderedDict<std::string, Tensor> Module::named_parameters(bool recurse) const {
  TensorDict result("Parameter");
  std::unordered_set<const TensorImpl*> seen;
  collect_tensors(&Module::parameters_, "", recurse, result, seen);
  return result;
}

std::vector<Tensor> Module::buffers(bool recurse) const { return named_buffers(recurse).values(); }

OrderedDict<std::string, Tensor> Module::named_buffers(bool recurse) const {
  TensorDict result("Buffer");
  std::unordered_set<const TensorImpl*> seen;
  collect_tensors(&Module::buffers_, "", recurse, result, seen);
  return result;
}

std::vector<std::shared_ptr<Module>> Module::children() const { return children_.values(); }

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_children() const {
  return children_;
}

std::vector<std::shared_ptr<Module>> Module::modules(bool include_self) const {
  return named_modules("", include_self).values();
}

OrderedDict<std::string, std::shared_ptr<Module>> Module::named_modules(
    const std::string& name_prefix, bool include_self) const {
  OrderedDict<std::string, std::shared_ptr<Module>> result("Module");
  if (include_self) {
    auto self = std::const_pointer_cast<Module>(weak_from_this().lock());
    EMBER_CHECK(self != nullptr, "modules(): ", name(),
                " is not owned by a shared_ptr (hold it in a module holder or make_shared); "
                "pass include_self=false");
    result.insert(name_prefix, self);
  }
  for (const auto& child : children_) {
    const std::string child_name = join_name(name_prefix, child.key());
    result.insert(child_name, child.value());
    for (const auto& item : child.value()->named_modules(child_name, false))
      result.insert(item.key(), item.value());
  }
  return result;
}

void Module::apply(const std::function<void(Module&)>& fn) {
  fn(*this);
  for (auto& child : children_) child.value()->apply(fn);
}

void Module::apply(const std::function<void(const std::string&, Module&)>& fn,
                   const std::string& name_prefix) {
  fn(name_prefix, *this);
  for (auto& child : children_) child.value()->apply(fn, join_name(name_prefix, child.key()));
}

void Module::apply(const std::function<void(const std::shared_ptr<Module>&)>& fn) {
  for (const auto& module : modules(true)) fn(module);
}

// ---------------------------------------------------------------- state

void Module::train(bool on) {
  for (auto& child : children_) child.value()->train(on);
  is_training_ = on;
}

void Module::to(Device device, ScalarType dtype, bool non_blocking) {
  to_impl(device, dtype, non_blocking);
}
void Module::to(ScalarType dtype, bool non_blocking) { to_impl(std::nullopt, dtype, non_blocking); }
void Module::to(Device device, bool non_blocking) { to_impl(device, std::nullopt, non_blocking); }

namespace {

// t.to(device/dtype), written into t's own TensorImpl.
void convert_in_place(const Tensor& t, std::optional<Device> device,
                      std::optional<ScalarType> dtype, bool non_blocking) {
  const ScalarType target =
      dtype && t.is_floating_point() && is_floating_point(*dtype) ? *dtype : t.scalar_type();
  const Tensor converted = t.to(device.value_or(t.device()), target, non_blocking);
  t.unsafeGetTensorImpl()->set_data(*converted.unsafeGetTensorImpl());
}

}  // namespace

void Module::to_impl(std::optional<Device> device, std::optional<ScalarType> dtype,
                     bool non_blocking) {
  NoGradGuard no_grad;
  for (auto& child : children_) child.value()->to_impl(device, dtype, non_blocking);
  for (auto& item : parameters_) {
    const Tensor& p = item.value();
    if (!p.defined()) continue;
    convert_in_place(p, device, dtype, non_blocking);
    if (p.grad().defined()) convert_in_place(p.grad(), device, dtype, non_blocking);
  }
  for (auto& item : buffers_)
    if (item.value().defined()) convert_in_place(item.value(), device, dtype, non_blocking);
}

void Module::zero_grad(bool set_to_none) {
  for (Tensor& p : parameters(true)) {
    Tensor& grad = p.mutable_grad();
    if (!grad.defined()) continue;
    if (set_to_none) {
      grad = Tensor();
    } else {
      if (grad.grad_fn()) grad = grad.detach();
      grad.zero_();
    }
  }
}

// ---------------------------------------------------------------- registration

void Module::check_child_name(const char* op, const std::string& name, bool defined) const {
  EMBER_CHECK(!name.empty(), op, ": submodule name must not be empty");
  EMBER_CHECK(name.find('.') == std::string::npos, op,
              ": submodule name must not contain a dot (got '", name, "')");
  EMBER_CHECK(defined, op, ": submodule '", name, "' is null");
}

void Module::unregister_module(const std::string& name) {
  EMBER_CHECK(children_.contains(name), "unregister_module: no submodule named '", name, "'");
  OrderedDict<std::string, std::shared_ptr<Module>> kept(children_.key_description());
  for (auto& child : children_)
    if (child.key() != name) kept.insert(child.key(), std::move(child.value()));
  children_ = std::move(kept);
}

namespace {

void check_tensor_name(const char* op, const char* kind, const std::string& name) {
  EMBER_CHECK(!name.empty(), op, ": ", kind, " name must not be empty");
  EMBER_CHECK(name.find('.') == std::string::npos, op, ": ", kind,
              " name must not contain a dot (got '", name, "')");
}

}  // namespace

Tensor& Module::register_parameter(std::string name, Tensor tensor, bool requires_grad) {
  check_tensor_name("register_parameter", "parameter", name);
  if (tensor.defined()) tensor.requires_grad_(requires_grad);
  return parameters_.insert(std::move(name), std::move(tensor));
}

Tensor& Module::register_buffer(std::string name, Tensor tensor) {
  check_tensor_name("register_buffer", "buffer", name);
  return buffers_.insert(std::move(name), std::move(tensor));
}

// ---------------------------------------------------------------- hooks

// What a call's backward hooks share: the module's grad_output, seen first
// (at the output), then passed with grad_input (at the input).
struct BackwardHookState {
  Module* module = nullptr;
  // The graph keeps the module alive until backward (when it is in a shared_ptr).
  std::shared_ptr<Module> keep_alive;
  std::vector<BackwardHook> hooks;  // those registered when the call began
  bool input_requires_grad = false;
  Tensor grad_output;

  // Runs the hooks in order; each may replace grad_input for the next.
  Tensor run(Tensor grad_input) {
    for (const auto& hook : hooks)
      if (auto replaced = hook(*module, grad_input, grad_output)) grad_input = *replaced;
    // Under create_graph grad_output's graph reaches the nodes holding this
    // state: dropping it breaks that cycle.
    grad_output = Tensor();
    return grad_input;
  }
};

namespace {

// An identity op on t with its own node, so a hook sees exactly the gradient
// that crosses the module's boundary there.
Tensor identity_with_node(const Tensor& t) {
  Tensor out = t.detach();
  auto node = autograd::make_node(
      // derivative of register_full_backward_hook: d/dt = g (an identity, so a hook sees the gradient at the boundary)
      "BackwardHookFunctionBackward", {t},
      [](autograd::Node&, const tensor_list& grads) -> tensor_list { return {grads[0]}; });
  autograd::set_history(out, node);
  return out;
}

}  // namespace

bool Module::has_hooks() const {
  return (forward_pre_hooks_ && !forward_pre_hooks_->hooks.empty()) ||
         (forward_hooks_ && !forward_hooks_->hooks.empty()) ||
         (backward_hooks_ && !backward_hooks_->hooks.empty());
}

Tensor Module::run_forward_pre_hooks(const Tensor& input) {
  if (!forward_pre_hooks_) return input;
  Tensor x = input;
  // A copy: a hook may remove itself (or others) while running.
  const auto hooks = forward_pre_hooks_->hooks;
  for (const auto& [id, hook] : hooks)
    if (auto replaced = hook(*this, x)) x = *replaced;
  return x;
}

Tensor Module::run_forward_hooks(const Tensor& input, const Tensor& output) {
  if (!forward_hooks_) return output;
  Tensor out = output;
  const auto hooks = forward_hooks_->hooks;
  for (const auto& [id, hook] : hooks)
    if (auto replaced = hook(*this, input, out)) out = *replaced;
  return out;
}

bool Module::wants_backward_hooks() const {
  return backward_hooks_ && !backward_hooks_->hooks.empty() && GradMode::is_enabled();
}

Tensor Module::begin_backward_hooks(const Tensor& input) {
  auto state = std::make_shared<BackwardHookState>();
  state->module = this;
  state->keep_alive = weak_from_this().lock();
  for (const auto& [id, hook] : backward_hooks_->hooks) state->hooks.push_back(hook);
  state->input_requires_grad = input.requires_grad();
  pending_backward_ = state;
  if (!state->input_requires_grad) return input;
  Tensor x = identity_with_node(input);
  x.register_hook(
      std::function<Tensor(const Tensor&)>([state](const Tensor& grad_input) -> Tensor {
        return state->run(grad_input);
      }));
  return x;
}

Tensor Module::end_backward_hooks(const Tensor& output) {
  auto state = std::move(pending_backward_);
  pending_backward_.reset();
  if (!output.requires_grad()) return output;
  Tensor out = identity_with_node(output);
  out.register_hook(std::function<void(const Tensor&)>([state](const Tensor& grad_output) {
    state->grad_output = grad_output;
    // No gradient flows to the input: the hooks run now, with no grad_input.
    if (!state->input_requires_grad) state->run(Tensor());
  }));
  return out;
}

// ---------------------------------------------------------------- printing

// Containers and user modules print their name; the tree adds "(children)".
void Module::pretty_print(std::ostream& stream) const { stream << name(); }

namespace {

void print_tree(std::ostream& stream, const Module& module, const std::string& indent) {
  module.pretty_print(stream);
  const auto children = module.named_children();
  if (children.is_empty()) return;
  stream << "(\n";
  for (const auto& child : children) {
    stream << indent << "  (" << child.key() << "): ";
    print_tree(stream, *child.value(), indent + "  ");
    stream << "\n";
  }
  stream << indent << ")";
}

}  // namespace

std::ostream& operator<<(std::ostream& stream, const Module& module) {
  print_tree(stream, module, "");
  return stream;
}

}  // namespace ember::nn
