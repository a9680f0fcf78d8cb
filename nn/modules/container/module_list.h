#pragma once
// ModuleList, as torch::nn::ModuleList: modules of any kind, registered as
// children "0", "1", ...; the caller decides how to run them.
#include <memory>
#include <vector>

#include "ember/nn/module_holder.h"

namespace ember::nn {

class ModuleListImpl : public Module {
 public:
  ModuleListImpl() = default;
  template <typename... Modules>
  explicit ModuleListImpl(Modules&&... modules) {
    (push_back(std::forward<Modules>(modules)), ...);
  }

  template <typename M>
  void push_back(const ModuleHolder<M>& module) {
    push_back(std::static_pointer_cast<Module>(module.ptr()));
  }
  template <typename M, typename = std::enable_if_t<std::is_base_of_v<Module, M>>>
  void push_back(std::shared_ptr<M> module) {
    push_back(std::static_pointer_cast<Module>(std::move(module)));
  }
  void push_back(std::shared_ptr<Module> module);
  // Inserts before index (index == size() appends); later children are renamed.
  void insert(size_t index, std::shared_ptr<Module> module);
  void extend(const ModuleListImpl& other);

  size_t size() const { return modules_.size(); }
  bool is_empty() const { return modules_.empty(); }
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  std::shared_ptr<Module> ptr(size_t index) const;
  // The module as M; an error if it is not one.
  template <typename M>
  std::shared_ptr<M> ptr(size_t index) const {
    auto typed = std::dynamic_pointer_cast<M>(ptr(index));
    EMBER_CHECK(typed != nullptr, "ModuleList: module ", index, " is a ", ptr(index)->name(),
                ", not the requested type");
    return typed;
  }
  template <typename M>
  M& at(size_t index) const {
    return *ptr<M>(index);
  }
  auto begin() const { return modules_.begin(); }
  auto end() const { return modules_.end(); }

 private:
  std::vector<std::shared_ptr<Module>> modules_;
};
EMBER_MODULE(ModuleList);

}  // namespace ember::nn
