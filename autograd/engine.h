#pragma once
// The backward engine (Note [The ready queue] in engine.cpp).
#include <optional>

#include "ember/core/tensor.h"

namespace ember::autograd {

// Gradients of `tensors` (seeded with grad_tensors, or 1 for one-element
// outputs) accumulated into the .grad of every leaf they depend on.
// retain_graph defaults to create_graph.
void backward(const tensor_list& tensors, const tensor_list& grad_tensors = {},
              std::optional<bool> retain_graph = std::nullopt, bool create_graph = false);

// Gradients of `outputs` with respect to `inputs`, returned instead of
// accumulated into .grad. allow_unused: an input the outputs do not depend on
// gets an undefined tensor instead of an Error.
tensor_list grad(const tensor_list& outputs, const tensor_list& inputs,
                 const tensor_list& grad_outputs = {}, std::optional<bool> retain_graph = std::nullopt,
                 bool create_graph = false, bool allow_unused = false);

}  // namespace ember::autograd
