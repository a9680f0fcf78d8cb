#include "ember/autograd/function.h"

#include "ember/autograd/accumulate_grad.h"
#include "ember/core/autograd_meta.h"

namespace ember::autograd {

tensor_list FunctionNode::apply(tensor_list&& grads) { return fn_(*this, grads); }

bool needs_grad_list(TensorList inputs) {
  if (!GradMode::is_enabled()) return false;
  for (const Tensor& t : inputs)
    if (t.defined() && t.requires_grad()) return true;
  return false;
}

std::shared_ptr<Node> make_node(const char* name, TensorList inputs, BackwardFn fn) {
  auto node = std::make_shared<FunctionNode>(name, std::move(fn));
  node->reserve_inputs(inputs.size());
  for (const Tensor& t : inputs) node->add_input(t);
  return node;
}

std::shared_ptr<Node> make_node(const char* name, std::initializer_list<Tensor> inputs,
                                BackwardFn fn) {
  return make_node(name, TensorList(inputs.begin(), inputs.size()), std::move(fn));
}

void set_history(const Tensor& output, const std::shared_ptr<Node>& node) {
  AutogradMeta& meta = output.impl()->ensure_autograd_meta();
  meta.output_nr = static_cast<uint32_t>(node->num_outputs());
  meta.grad_fn = node;
  meta.requires_grad = false;
  node->add_output(output);
}

void check_inplace(const Tensor& self, const char* op, TensorList sources) {
  if (!GradMode::is_enabled()) return;
  EMBER_CHECK(!(self.is_leaf() && self.requires_grad()), op,
              ": a leaf tensor that requires grad is being used in an in-place operation; "
              "wrap the update in ember::NoGradGuard (as optimizers do) or use an "
              "out-of-place op");
  EMBER_CHECK(!(self.impl()->is_view() && (self.requires_grad() || needs_grad_list(sources))), op,
              ": in-place operations on a view whose result requires grad are not supported by "
              "ember (the base tensor would not see the change); use an out-of-place op");
}

void rebase_history(const Tensor& self, const std::shared_ptr<Node>& node) {
  EMBER_INTERNAL_ASSERT(!self.impl()->is_view(), node->name(),
                        " rebased a view: the op must call check_inplace with its sources first");
  // retain_grad() is about the tensor's current value: its .grad moves to the
  // new node. Hooks stay where they were registered (on the old value), as PyTorch.
  const std::shared_ptr<Node> old = self.grad_fn();
  const bool retains = self.retains_grad();
  if (old && retains) old->clear_retain_grad_hook(self.impl().get());
  set_history(self, node);
  if (retains) node->set_retain_grad_hook(self.output_nr(), self.impl());
}

}  // namespace ember::autograd
