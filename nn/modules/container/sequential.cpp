#include "ember/nn/modules/container/sequential.h"

#include "ember/nn/modules/container/sequential_fusion.h"

namespace ember::nn {

std::shared_ptr<SequentialFusion> make_sequential_fusion() {
  return std::make_shared<SequentialFusion>();
}

SequentialImpl::SequentialImpl(std::initializer_list<NamedAnyModule> named_modules) {
  for (const auto& named : named_modules) push_back(named.name(), named.module());
}

Tensor SequentialImpl::forward(const Tensor& input) {
  EMBER_CHECK(!modules_.empty(), "Sequential: cannot call forward() on an empty Sequential");
  return call_with_hooks(input, [this](const Tensor& x) {
    Tensor out = x;
    for (size_t i = 0; i < modules_.size();) {
      Tensor fused;
      if (const size_t ran = fusion_->run(modules_, i, out, fused)) {
        out = std::move(fused);
        i += ran;
      } else {
        out = modules_[i++].forward(out);
      }
    }
    return out;
  });
}

void SequentialImpl::push_back(AnyModule module) {
  push_back(std::to_string(modules_.size()), std::move(module));
}

void SequentialImpl::push_back(std::string name, AnyModule module) {
  EMBER_CHECK(!module.is_empty(), "Sequential: cannot add an empty module");
  register_module(std::move(name), module.ptr());
  modules_.push_back(std::move(module));
}

void SequentialImpl::extend(const SequentialImpl& other) {
  for (const AnyModule& module : other.modules_) push_back(module);
}

const AnyModule& SequentialImpl::at_any(size_t index) const {
  EMBER_CHECK(index < modules_.size(), "Sequential: index ", index,
              " is out of range for a Sequential of ", modules_.size(), " modules");
  return modules_[index];
}

std::shared_ptr<Module> SequentialImpl::ptr(size_t index) const { return at_any(index).ptr(); }

}  // namespace ember::nn
