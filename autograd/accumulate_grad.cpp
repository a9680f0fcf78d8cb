#include "ember/autograd/accumulate_grad.h"

#include "ember/autograd/grad_mode.h"
#include "ember/core/autograd_meta.h"

namespace ember::autograd {

AccumulateGrad::AccumulateGrad(Tensor variable)
    : Node("AccumulateGrad", /*is_accumulate_grad=*/true), variable_(std::move(variable)) {
  add_output(variable_);
}

Tensor AccumulateGrad::run_leaf_hooks(Tensor grad) const {
  AutogradMeta* meta = variable_.impl()->autograd_meta();
  if (meta == nullptr) return grad;
  for (auto& [handle, hook] : meta->leaf_hooks) {
    Tensor replaced = hook(grad);
    if (replaced.defined()) grad = std::move(replaced);
  }
  return grad;
}

namespace {
// A gradient can become .grad without a copy only if nothing else sees its
// memory and it is laid out densely (not an expand()'s stride-0 view).
bool can_steal(const Tensor& g) {
  return g.use_count() == 1 && g.impl()->storage().use_count() == 1 && g.is_contiguous() &&
         g.storage_offset() == 0 && g.nbytes() == g.impl()->storage()->nbytes();
}
}  // namespace

tensor_list AccumulateGrad::apply(tensor_list&& grads) {
  AutogradMeta& meta = variable_.impl()->ensure_autograd_meta();
  // requires_grad_(false) since the graph was recorded: no .grad, as PyTorch.
  if (!meta.requires_grad) return {};
  Tensor new_grad = run_leaf_hooks(std::move(grads.at(0)));
  if (!new_grad.defined()) return {};
  if (GradMode::is_enabled()) {  // create_graph: keep the gradient's own graph
    meta.grad = meta.grad.defined() ? meta.grad + new_grad : new_grad;
  } else if (!meta.grad.defined()) {
    meta.grad = can_steal(new_grad) ? new_grad.detach() : new_grad.detach().clone();
  } else {
    meta.grad.add_(new_grad);
  }
  for (auto& [handle, hook] : meta.post_accumulate_hooks) hook(variable_);
  return {};
}

std::shared_ptr<Node> grad_accumulator(const Tensor& leaf) {
  AutogradMeta& meta = leaf.impl()->ensure_autograd_meta();
  if (auto existing = meta.grad_accumulator.lock()) return existing;
  auto acc = std::make_shared<AccumulateGrad>(leaf);
  meta.grad_accumulator = acc;
  return acc;
}

}  // namespace ember::autograd
