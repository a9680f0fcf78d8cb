#pragma once
// The autograd slot of a TensorImpl (see autograd/node.h for the graph itself).
// A leaf that requires grad owns its .grad and (weakly) the AccumulateGrad node
// that writes it; a non-leaf points at the Node that made it (grad_fn) and is
// that node's output number output_nr.
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

struct AutogradMeta {
  bool requires_grad = false;  // meaningful for leaves; non-leaves require grad via grad_fn
  bool retains_grad = false;
  uint32_t output_nr = 0;
  Tensor grad;
  std::shared_ptr<autograd::Node> grad_fn;
  std::weak_ptr<autograd::Node> grad_accumulator;
  // Hooks on a leaf's gradient, run by AccumulateGrad before it accumulates.
  // Non-leaf hooks live on the grad_fn (Node::tensor_pre_hooks).
  std::vector<std::pair<unsigned, std::function<Tensor(const Tensor&)>>> leaf_hooks;
  // Hooks run by AccumulateGrad after it has updated the leaf's .grad; they
  // get the leaf itself (register_post_accumulate_grad_hook).
  std::vector<std::pair<unsigned, std::function<void(const Tensor&)>>> post_accumulate_hooks;
  // Where each non-leaf hook was registered: an in-place op may since have
  // given the tensor a new grad_fn, and remove_hook must still find it.
  std::vector<std::pair<unsigned, std::weak_ptr<autograd::Node>>> hook_nodes;
};

}  // namespace ember
