#pragma once
// Sequential, as torch::nn::Sequential: runs its modules in order, each
// through its hooks. Children are named "0", "1", ... unless given names.
//   Sequential seq(Conv2d(3, 8, 3), BatchNorm2d(8), ReLU());
//   Sequential named({{"conv", Conv2d(3, 8, 3)}, {"relu", ReLU()}});
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "ember/nn/modules/container/any.h"

namespace ember::nn {

class SequentialFusion;
std::shared_ptr<SequentialFusion> make_sequential_fusion();

class SequentialImpl : public Module {
 public:
  SequentialImpl() = default;
  template <typename... Modules>
  explicit SequentialImpl(Modules&&... modules) {
    (push_back(std::forward<Modules>(modules)), ...);
  }
  explicit SequentialImpl(std::initializer_list<NamedAnyModule> named_modules);

  // x -> modules[n-1](...modules[0](x)); an error when empty. Conv2d ->
  // BatchNorm2d [-> ReLU] in eval under no-grad, and BatchNorm -> ReLU in
  // training, run as one op each (Note [Fusion in Sequential],
  // sequential_fusion.h).
  Tensor forward(const Tensor& input);

  void push_back(AnyModule module);
  void push_back(std::string name, AnyModule module);
  // Appends other's modules (shared, not copied).
  void extend(const SequentialImpl& other);

  size_t size() const { return modules_.size(); }
  bool is_empty() const { return modules_.empty(); }
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  std::shared_ptr<Module> ptr(size_t index) const;
  template <typename M>
  std::shared_ptr<M> ptr(size_t index) const {
    return at_any(index).ptr<M>();
  }
  template <typename M>
  M& at(size_t index) const {
    return at_any(index).get<M>();
  }
  auto begin() const { return modules_.begin(); }
  auto end() const { return modules_.end(); }

 private:
  const AnyModule& at_any(size_t index) const;
  std::vector<AnyModule> modules_;
  std::shared_ptr<SequentialFusion> fusion_ = make_sequential_fusion();
};

class Sequential : public ModuleHolder<SequentialImpl> {
 public:
  using ModuleHolder<SequentialImpl>::ModuleHolder;
  Sequential() : ModuleHolder(std::make_shared<SequentialImpl>()) {}
  Sequential(std::initializer_list<NamedAnyModule> named_modules)  // NOLINT
      : ModuleHolder(std::make_shared<SequentialImpl>(named_modules)) {}
};

}  // namespace ember::nn
