#include "ember/nn/modules/container/module_list.h"

#include <string>

namespace ember::nn {

void ModuleListImpl::push_back(std::shared_ptr<Module> module) {
  EMBER_CHECK(module != nullptr, "ModuleList: cannot add a null module");
  register_module(std::to_string(modules_.size()), module);
  modules_.push_back(std::move(module));
}

void ModuleListImpl::insert(size_t index, std::shared_ptr<Module> module) {
  EMBER_CHECK(index <= modules_.size(), "ModuleList: insert index ", index,
              " is out of range for a ModuleList of ", modules_.size(), " modules");
  EMBER_CHECK(module != nullptr, "ModuleList: cannot add a null module");
  if (index == modules_.size()) return push_back(std::move(module));
  modules_.insert(modules_.begin() + static_cast<std::ptrdiff_t>(index), std::move(module));
  // Children are named by position: re-register from the inserted one on.
  for (size_t i = index; i + 1 < modules_.size(); ++i)
    replace_module(std::to_string(i), modules_[i]);
  register_module(std::to_string(modules_.size() - 1), modules_.back());
}

void ModuleListImpl::extend(const ModuleListImpl& other) {
  for (const auto& module : other.modules_) push_back(module);
}

std::shared_ptr<Module> ModuleListImpl::ptr(size_t index) const {
  EMBER_CHECK(index < modules_.size(), "ModuleList: index ", index,
              " is out of range for a ModuleList of ", modules_.size(), " modules");
  return modules_[index];
}

}  // namespace ember::nn
