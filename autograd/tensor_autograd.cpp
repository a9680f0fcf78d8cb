// The autograd methods of Tensor.
#include <atomic>

#include "ember/autograd/accumulate_grad.h"
#include "ember/autograd/engine.h"
#include "ember/autograd/grad_mode.h"
#include "ember/autograd/view_history.h"
#include "ember/core/autograd_meta.h"

namespace ember {

bool Tensor::requires_grad() const {
  if (!defined()) return false;
  if (impl()->is_view()) autograd::refresh_view_history(*this);
  const AutogradMeta* m = impl()->autograd_meta();
  return m != nullptr && (m->requires_grad || m->grad_fn != nullptr);
}

Tensor& Tensor::requires_grad_(bool requires_grad) const {
  if (requires_grad && !is_leaf()) return const_cast<Tensor&>(*this);  // it already does, through its grad_fn
  EMBER_CHECK(is_leaf(), "requires_grad_: only leaf tensors can change requires_grad; this "
              "tensor was computed by ", grad_fn()->name(), " (use detach() to get a leaf)");
  EMBER_CHECK(!requires_grad || is_floating_point(), "requires_grad_: only floating point "
              "tensors can require gradients, this one is ", scalar_type());
  impl()->ensure_autograd_meta().requires_grad = requires_grad;
  return const_cast<Tensor&>(*this);
}

bool Tensor::is_leaf() const {
  if (!defined()) return true;
  if (impl()->is_view()) autograd::refresh_view_history(*this);
  const AutogradMeta* m = impl()->autograd_meta();
  return m == nullptr || m->grad_fn == nullptr;
}

const Tensor& Tensor::grad() const {
  static const Tensor undefined;
  if (!defined()) return undefined;
  const AutogradMeta* m = impl()->autograd_meta();
  return m ? m->grad : undefined;
}

Tensor& Tensor::mutable_grad() { return impl()->ensure_autograd_meta().grad; }

void Tensor::set_grad(const Tensor& grad) {
  EMBER_CHECK(!grad.defined() || grad.sizes() == sizes(), "set_grad: gradient of shape ",
              grad.sizes(), " for a tensor of shape ", sizes());
  impl()->ensure_autograd_meta().grad = grad;
}

std::shared_ptr<autograd::Node> Tensor::grad_fn() const {
  if (!defined()) return nullptr;
  if (impl()->is_view()) autograd::refresh_view_history(*this);
  const AutogradMeta* m = impl()->autograd_meta();
  return m ? m->grad_fn : nullptr;
}

uint32_t Tensor::output_nr() const {
  if (!defined()) return 0;
  if (impl()->is_view()) autograd::refresh_view_history(*this);
  const AutogradMeta* m = impl()->autograd_meta();
  return m ? m->output_nr : 0;
}

void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph,
                      bool create_graph) const {
  autograd::backward({*this}, gradient.defined() ? tensor_list{gradient} : tensor_list{},
                     retain_graph, create_graph);
}

void Tensor::retain_grad() const {
  EMBER_CHECK(requires_grad(), "retain_grad: the tensor does not require grad");
  if (is_leaf()) return;  // leaves keep .grad anyway
  impl()->ensure_autograd_meta().retains_grad = true;
  grad_fn()->set_retain_grad_hook(output_nr(), impl());
}

bool Tensor::retains_grad() const {
  const AutogradMeta* m = impl()->autograd_meta();
  return m != nullptr && m->retains_grad;
}

namespace {
// Handles of hooks kept on a leaf: disjoint from those a Node hands out.
unsigned next_leaf_hook_handle() {
  static std::atomic<unsigned> next{1u << 31};
  return next++;
}
}  // namespace

unsigned Tensor::register_gradient_hook(std::function<Tensor(const Tensor&)> fn) const {
  EMBER_CHECK(requires_grad(), "register_hook: cannot register a hook on a tensor that does "
              "not require grad");
  if (auto fn_node = grad_fn()) {
    const unsigned handle = fn_node->add_tensor_pre_hook(output_nr(), std::move(fn));
    impl()->ensure_autograd_meta().hook_nodes.emplace_back(handle, fn_node);
    return handle;
  }
  const unsigned handle = next_leaf_hook_handle();
  impl()->ensure_autograd_meta().leaf_hooks.emplace_back(handle, std::move(fn));
  return handle;
}

unsigned Tensor::register_post_accumulate_grad_hook(std::function<void(const Tensor&)> fn) const {
  EMBER_CHECK(requires_grad() && is_leaf(), "register_post_accumulate_grad_hook: only a leaf "
              "tensor that requires grad accumulates a gradient; this one ",
              requires_grad() ? "is not a leaf" : "does not require grad");
  const unsigned handle = next_leaf_hook_handle();
  impl()->ensure_autograd_meta().post_accumulate_hooks.emplace_back(handle, std::move(fn));
  return handle;
}

unsigned Tensor::register_observer_hook(std::function<void(const Tensor&)> fn) const {
  return register_gradient_hook(std::function<Tensor(const Tensor&)>([fn = std::move(fn)](const Tensor& g) {
    fn(g);
    return Tensor();
  }));
}

void Tensor::remove_hook(unsigned handle) const {
  AutogradMeta* m = impl()->autograd_meta();
  if (m == nullptr) return;
  std::erase_if(m->leaf_hooks, [&](const auto& h) { return h.first == handle; });
  std::erase_if(m->post_accumulate_hooks, [&](const auto& h) { return h.first == handle; });
  std::erase_if(m->hook_nodes, [&](const auto& h) {
    if (h.first != handle) return false;
    if (auto node = h.second.lock()) node->remove_tensor_pre_hook(handle);
    return true;
  });
}

Tensor Tensor::detach() const {
  const TensorImpl& src = *impl();
  return Tensor(std::make_shared<TensorImpl>(src.storage(), src.storage_offset(),
                                             DimVector(src.sizes()), DimVector(src.strides()),
                                             src.dtype()));
}

Tensor& Tensor::detach_() const {
  EMBER_CHECK(!impl()->is_view(), "detach_: cannot detach a view in place (its base would "
              "keep the history); use detach() instead");
  if (AutogradMeta* m = impl()->autograd_meta()) {
    m->grad_fn = nullptr;
    m->requires_grad = false;
  }
  return const_cast<Tensor&>(*this);
}

}  // namespace ember
