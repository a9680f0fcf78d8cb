#pragma once
// AccumulateGrad: the node at a leaf that requires grad. It runs the leaf's
// hooks, then adds the incoming gradient into leaf.grad (in place when no
// graph is being built, so a training step does not allocate a new .grad),
// then runs its post-accumulate hooks (how DDP learns a gradient is ready).
#include "ember/autograd/node.h"

namespace ember::autograd {

class AccumulateGrad final : public Node {
 public:
  explicit AccumulateGrad(Tensor variable);
  tensor_list apply(tensor_list&& grads) override;
  const Tensor& variable() const { return variable_; }
  // Runs the leaf's hooks on `grad` and returns the (possibly replaced) gradient.
  Tensor run_leaf_hooks(Tensor grad) const;

 private:
  Tensor variable_;
};

// The leaf's accumulator, made on first use and cached (weakly) in the leaf.
std::shared_ptr<Node> grad_accumulator(const Tensor& leaf);

}  // namespace ember::autograd
