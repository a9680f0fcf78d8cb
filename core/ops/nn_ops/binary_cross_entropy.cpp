#include "ember/core/ops/nn_ops/binary_cross_entropy.h"

#include "ember/autograd/function.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/elementwise/activation.h"
#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/elementwise/unary.h"
#include "ember/kernels/common/kernel_registry.h"

namespace ember {

using autograd::Node;

// Per-element -(y log(x) + (1 - y) log(1 - x)), before weight and reduction.
Tensor binary_cross_entropy_elements(const Tensor& x, const Tensor& y) {
  Tensor out = empty(x.sizes(), x.options());
  kernels().elementwise.loss.on(x.device(), "binary_cross_entropy")(
      "binary_cross_entropy", LossOp::kBinaryCrossEntropy, out, {&x, &y});
  if (autograd::needs_grad(x, y)) {
    // derivative of binary_cross_entropy: d/dx = g·(x - y)/(x(1 - x)), d/dy = g·(log(1 - x) - log(x)) (logs clamped at -100)
    auto node = autograd::make_node("BinaryCrossEntropyBackward", {x, y},
        [](Node& n, const tensor_list& g) {
          const Tensor x = n.saved(0), y = n.saved(1);
          Tensor dx, dy;
          if (n.needs_input_grad(0)) dx = g[0] * (x - y) / clamp_min(x * (1 - x), 1e-12);
          if (n.needs_input_grad(1))
            dy = g[0] * (clamp_min(log(1 - x), -100) - clamp_min(log(x), -100));
          return tensor_list{dx, dy};
        });
    node->save(x);
    node->save(y);
    autograd::set_history(out, node);
  }
  return out;
}

// Per-element loss of logits x, before weight and reduction. pos_weight may
// be undefined (then 1).
Tensor binary_cross_entropy_with_logits_elements(const Tensor& x, const Tensor& y, const Tensor& pos_weight) {
  const Tensor pw = pos_weight.defined() ? pos_weight : ones({}, x.options());
  Tensor out = empty(x.sizes(), x.options());
  kernels().elementwise.loss.on(x.device(), "binary_cross_entropy_with_logits")(
      "binary_cross_entropy_with_logits", LossOp::kBinaryCrossEntropyWithLogits, out,
      {&x, &y, &pw});
  if (autograd::needs_grad(x, y, pw)) {
    // derivative of binary_cross_entropy_with_logits: d/dx = g·(sigmoid(x)·(pw·y + 1 - y) - pw·y), d/dy = -g·((pw - 1)·log_sigmoid(x) + x), d/dpw = -g·y·log_sigmoid(x)
    auto node = autograd::make_node("BinaryCrossEntropyWithLogitsBackward", {x, y, pw},
        [](Node& n, const tensor_list& g) {
          // pw undefined: no pos_weight, the formulas with pw = 1.
          const Tensor x = n.saved(0), y = n.saved(1), pw = n.saved(2);
          Tensor dx, dy, dpw;
          if (n.needs_input_grad(0))
            dx = g[0] * (pw.defined() ? sigmoid(x) * (pw * y + 1 - y) - pw * y : sigmoid(x) - y);
          if (n.needs_input_grad(1))
            dy = pw.defined() ? -g[0] * ((pw - 1) * log_sigmoid(x) + x) : -g[0] * x;
          if (n.needs_input_grad(2)) dpw = -g[0] * y * log_sigmoid(x);
          return tensor_list{dx, dy, dpw};
        });
    node->save(x);
    node->save(y);
    node->save(pos_weight);
    autograd::set_history(out, node);
  }
  return out;
}

}  // namespace ember
