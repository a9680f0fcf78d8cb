#pragma once
// A torchsummary-style table of a model: each leaf module in the order the
// forward runs it, its output shape (batch shown as -1) and parameter count,
// then the totals.
//   std::cout << nn::summary(model, {1, 28, 28});
#include <functional>
#include <string>

#include "ember/nn/module_holder.h"

namespace ember::nn {

// Runs forward once on zeros of shape (2, *input_shape) (two samples, so batch
// norm can compute batch statistics) in eval mode under NoGradGuard, then
// restores the training flag. The input takes the dtype and device of the
// model's first parameter (float32 on the CPU without one).
std::string summary(Module& module, const std::function<Tensor(const Tensor&)>& forward,
                    IntArrayRef input_shape);

template <typename M>
std::string summary(ModuleHolder<M>& module, IntArrayRef input_shape) {
  return summary(*module, [&module](const Tensor& x) -> Tensor { return module(x); },
                 input_shape);
}

}  // namespace ember::nn
