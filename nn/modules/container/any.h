#pragma once
// AnyModule: any module with a one-tensor forward, type-erased, as
// torch::nn::AnyModule. Sequential holds its layers in them.
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "ember/nn/module_holder.h"

namespace ember::nn {

class AnyModule {
 public:
  AnyModule() = default;
  // M: a Module subclass with Tensor forward(const Tensor&) (or forward(Tensor)).
  template <typename M, typename = std::enable_if_t<std::is_base_of_v<Module, M>>>
  AnyModule(std::shared_ptr<M> module)  // NOLINT: implicit as libtorch
      : module_(module), forward_([m = module.get()](const Tensor& x) {
          return m->call_with_hooks(x, [m](const Tensor& in) -> Tensor { return m->forward(in); });
        }) {
    EMBER_CHECK(module_ != nullptr, "AnyModule: the module is null");
  }
  template <typename M>
  AnyModule(const ModuleHolder<M>& holder) : AnyModule(holder.ptr()) {}  // NOLINT

  bool is_empty() const { return module_ == nullptr; }
  // Runs forward through the module's hooks.
  Tensor forward(const Tensor& input) const {
    EMBER_CHECK(!is_empty(), "AnyModule: forward() on an empty AnyModule");
    return forward_(input);
  }
  const std::shared_ptr<Module>& ptr() const { return module_; }
  // The module as M; an error if it is not one.
  template <typename M>
  std::shared_ptr<M> ptr() const {
    auto typed = std::dynamic_pointer_cast<M>(module_);
    EMBER_CHECK(typed != nullptr, "AnyModule: the module is a ", module_->name(),
                ", not the requested type");
    return typed;
  }
  template <typename M>
  M& get() const {
    return *ptr<M>();
  }

 private:
  std::shared_ptr<Module> module_;
  std::function<Tensor(const Tensor&)> forward_;
};

// A name and a module: the entries of a named Sequential,
//   Sequential({{"conv", Conv2d(3, 8, 3)}, {"relu", ReLU()}}).
class NamedAnyModule {
 public:
  template <typename M>
  NamedAnyModule(std::string name, M&& module)
      : name_(std::move(name)), module_(std::forward<M>(module)) {}
  const std::string& name() const { return name_; }
  const AnyModule& module() const { return module_; }

 private:
  std::string name_;
  AnyModule module_;
};

}  // namespace ember::nn
