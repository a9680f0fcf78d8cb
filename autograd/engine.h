#pragma once
// The backward engine (Note [The ready queue] in engine.cpp).
#include <functional>
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

// Queues fn to run once the backward now running on this thread has run all
// its nodes, before backward() (or grad()) returns; callbacks run in the order
// queued, and one may queue another. PyTorch's Engine::queue_callback: DDP
// waits for its last gradient reductions here. Outside a backward: an Error.
void queue_callback(std::function<void()> fn);

}  // namespace ember::autograd
