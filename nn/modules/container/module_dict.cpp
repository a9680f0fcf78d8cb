#include "ember/nn/modules/container/module_dict.h"

namespace ember::nn {

ModuleDictImpl::ModuleDictImpl(
    const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules) {
  update(modules);
}

ModuleDictImpl::ModuleDictImpl(const OrderedDict<std::string, std::shared_ptr<Module>>& modules) {
  update(modules);
}

void ModuleDictImpl::update(const std::string& key, std::shared_ptr<Module> module) {
  EMBER_CHECK(module != nullptr, "ModuleDict: module '", key, "' is null");
  if (modules_.contains(key)) {
    replace_module(key, module);
    modules_[key] = std::move(module);
  } else {
    register_module(key, module);
    modules_.insert(key, std::move(module));
  }
}

void ModuleDictImpl::update(
    const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules) {
  for (const auto& [key, module] : modules) update(key, module);
}

std::shared_ptr<Module> ModuleDictImpl::pop(const std::string& key) {
  std::shared_ptr<Module> module = modules_[key];
  unregister_module(key);
  OrderedDict<std::string, std::shared_ptr<Module>> kept(modules_.key_description());
  for (const auto& item : modules_)
    if (item.key() != key) kept.insert(item.key(), item.value());
  modules_ = std::move(kept);
  return module;
}

void ModuleDictImpl::clear() {
  for (const std::string& key : modules_.keys()) unregister_module(key);
  modules_.clear();
}

}  // namespace ember::nn
