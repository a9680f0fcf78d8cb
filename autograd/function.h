#pragma once
// What an op uses to record itself. The pattern (see docs/adding-an-op.md):
//
//   Tensor out = ...forward...;
//   if (autograd::needs_grad(a, b)) {
//     auto node = autograd::make_node("MulBackward", {a, b},
//         [](autograd::Node& n, const tensor_list& g) -> tensor_list {
//           Tensor a = n.saved(0), b = n.saved(1);
//           return {n.needs_input_grad(0) ? g[0] * b : Tensor(),
//                   n.needs_input_grad(1) ? g[0] * a : Tensor()};
//         });
//     node->save(a);
//     node->save(b);
//     autograd::set_history(out, node);
//   }
//
// The backward lambda must not capture tensors (save them instead, so the
// version check and release after backward apply); capturing sizes or
// scalars is fine. An op that differentiates from its result saves it with
// node->save(out, /*is_output=*/true), before or after set_history.
// Gradients may keep a broadcast shape: the engine sums them to each input's
// shape.
#include <functional>
#include <initializer_list>
#include <memory>

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"

namespace ember::autograd {

using BackwardFn = std::function<tensor_list(Node& self, const tensor_list& grads)>;

class FunctionNode final : public Node {
 public:
  FunctionNode(const char* name, BackwardFn fn) : Node(name), fn_(std::move(fn)) {}
  tensor_list apply(tensor_list&& grads) override;

 private:
  BackwardFn fn_;
};

// True when grad mode is on and some input requires grad.
template <typename... Ts>
bool needs_grad(const Ts&... inputs) {
  return GradMode::is_enabled() && (inputs.requires_grad() || ...);
}
bool needs_grad_list(TensorList inputs);

// A node with one edge per input (in order).
std::shared_ptr<Node> make_node(const char* name, TensorList inputs, BackwardFn fn);
std::shared_ptr<Node> make_node(const char* name, std::initializer_list<Tensor> inputs, BackwardFn fn);

// Makes `node` the grad_fn of `output` (its next output number).
void set_history(const Tensor& output, const std::shared_ptr<Node>& node);

// Before an in-place op writes `self` (from `sources`, its other inputs):
// errors for a leaf that requires grad (under grad mode), and for a view whose
// result would require grad, which ember does not track (its base would not
// see the change). Checked before the write, so a refused op changes nothing.
void check_inplace(const Tensor& self, const char* op, TensorList sources = {});
// After an in-place op on `self` recorded `node`: `self` now comes from node.
void rebase_history(const Tensor& self, const std::shared_ptr<Node>& node);

}  // namespace ember::autograd
