#pragma once
// ModuleDict, as torch::nn::ModuleDict: modules by name, in insertion order,
// registered as children under their keys.
//   ModuleDict heads({{"cls", Linear(8, 10).ptr()}, {"box", Linear(8, 4).ptr()}});
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/nn/module_holder.h"

namespace ember::nn {

class ModuleDictImpl : public Module {
 public:
  ModuleDictImpl() = default;
  explicit ModuleDictImpl(
      const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules);
  explicit ModuleDictImpl(const OrderedDict<std::string, std::shared_ptr<Module>>& modules);

  // Adds or replaces the module under key.
  void update(const std::string& key, std::shared_ptr<Module> module);
  template <typename M>
  void update(const std::string& key, const ModuleHolder<M>& module) {
    update(key, std::static_pointer_cast<Module>(module.ptr()));
  }
  // Adds or replaces each module, in order.
  void update(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules);
  // The same from an OrderedDict of modules, or another dict's items (`a->update(*b)`).
  template <typename Container>
  void update(const Container& container) {
    for (const auto& item : container) update(item.key(), item.value());
  }
  // Removes and returns the module under key.
  std::shared_ptr<Module> pop(const std::string& key);
  void clear();

  size_t size() const { return modules_.size(); }
  bool is_empty() const { return modules_.is_empty(); }
  bool contains(const std::string& key) const { return modules_.contains(key); }
  std::vector<std::string> keys() const { return modules_.keys(); }
  std::vector<std::shared_ptr<Module>> values() const { return modules_.values(); }
  const OrderedDict<std::string, std::shared_ptr<Module>>& items() const { return modules_; }
  std::shared_ptr<Module> operator[](const std::string& key) const { return modules_[key]; }
  // The module as M; an error if it is not one.
  template <typename M>
  std::shared_ptr<M> ptr(const std::string& key) const {
    auto typed = std::dynamic_pointer_cast<M>(modules_[key]);
    EMBER_CHECK(typed != nullptr, "ModuleDict: module '", key, "' is a ", modules_[key]->name(),
                ", not the requested type");
    return typed;
  }
  template <typename M>
  M& at(const std::string& key) const {
    return *ptr<M>(key);
  }
  auto begin() const { return modules_.begin(); }
  auto end() const { return modules_.end(); }

 private:
  OrderedDict<std::string, std::shared_ptr<Module>> modules_{"Module"};
};
class ModuleDict : public ModuleHolder<ModuleDictImpl> {
 public:
  using ModuleHolder<ModuleDictImpl>::ModuleHolder;
  ModuleDict() : ModuleHolder(std::make_shared<ModuleDictImpl>()) {}
  // ModuleDict({{"cls", module}, ...}).
  ModuleDict(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules)  // NOLINT
      : ModuleHolder(std::make_shared<ModuleDictImpl>(modules)) {}
};

}  // namespace ember::nn
