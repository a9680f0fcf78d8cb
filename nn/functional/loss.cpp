// The elementwise losses: mse, l1, smooth_l1 (composed of ember ops, so their
// derivatives come for free), and the binary cross-entropies, whose forward is
// one fused elementwise kernel (kernels/common/loss_functors.h) and whose
// derivatives are written with ember ops (so they can be differentiated again):
//   bce:            dx = g (x - y) / max(x (1 - x), 1e-12)   (PyTorch's guard at 0 and 1)
//                   dy = g (log(1 - x) - log(x))              (logs clamped to >= -100)
//   bce_with_logits dx = g (sigmoid(x) (pw y + 1 - y) - pw y)
//                   dy = -g ((pw - 1) log_sigmoid(x) + x)
//                   dpw = -g y log_sigmoid(x)
// The class-index losses (nll_loss, cross_entropy) are in loss_classification.cpp.
#include "ember/nn/functional/loss.h"

#include "ember/autograd/function.h"
#include "ember/core/ops/elementwise/activation.h"
#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/elementwise/elementwise_helpers.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/reduction/reduce.h"
#include "ember/core/ops/elementwise/unary.h"
#include "ember/core/ops/shape/views.h"
#include "ember/kernels/common/kernel_registry.h"
#include "ember/nn/functional/loss_helpers.h"

namespace ember::nn::functional {

using autograd::Node;
using namespace detail;

namespace {

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
Tensor bce_with_logits_elements(const Tensor& x, const Tensor& y, const Tensor& pos_weight) {
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

// input - target, broadcast as PyTorch's regression losses do.
Tensor difference(const char* op, const Tensor& input, const Tensor& target) {
  check_loss_inputs(op, input, target);
  broadcast_shapes(input.sizes(), target.sizes(), op);
  return input - target;
}

}  // namespace

Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options) {
  return apply_reduction(square(difference("mse_loss", input, target)), options.reduction());
}

Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options) {
  return apply_reduction(abs(difference("l1_loss", input, target)), options.reduction());
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                      const SmoothL1LossFuncOptions& options) {
  const double beta = options.beta();
  EMBER_CHECK(beta >= 0, "smooth_l1_loss: beta must be >= 0, got ", beta);
  const Tensor d = difference("smooth_l1_loss", input, target);
  const Tensor ad = abs(d);
  if (beta == 0) return apply_reduction(ad, options.reduction());
  return apply_reduction(where(ad < beta, square(d) * (0.5 / beta), ad - 0.5 * beta),
                         options.reduction());
}

namespace {

// The checks both binary cross-entropies make: same shape and dtype, a
// broadcastable weight.
void check_binary_inputs(const char* op, const Tensor& input, const Tensor& target,
                         const Tensor& weight) {
  check_loss_inputs(op, input, target);
  check_same_shape(op, input, target);
  EMBER_CHECK(target.scalar_type() == input.scalar_type(), op,
              ": expected a target of the input's dtype ", input.scalar_type(), ", got ",
              target.scalar_type());
  check_weight(op, "weight", weight, input);
}

}  // namespace

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            const BinaryCrossEntropyFuncOptions& options) {
  const char* op = "binary_cross_entropy";
  check_binary_inputs(op, input, target, options.weight());
  if (input.numel() > 0) {
    // One copy of both bounds to the host (on CUDA, one counted synchronization).
    const Tensor bounds = stack({input.min(), input.max()}).to(kCPU, kDouble);
    const double lo = bounds[0].item<double>(), hi = bounds[1].item<double>();
    EMBER_CHECK(lo >= 0 && hi <= 1, op,
                ": every input value must be a probability in [0, 1], got values in [", lo, ", ",
                hi, "] (for logits use binary_cross_entropy_with_logits)");
  }
  Tensor loss = binary_cross_entropy_elements(input, target);
  if (options.weight().defined()) loss = loss * options.weight();
  return apply_reduction(loss, options.reduction());
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const BinaryCrossEntropyWithLogitsFuncOptions& options) {
  const char* op = "binary_cross_entropy_with_logits";
  check_binary_inputs(op, input, target, options.weight());
  check_weight(op, "pos_weight", options.pos_weight(), input);
  Tensor loss = bce_with_logits_elements(input, target, options.pos_weight());
  if (options.weight().defined()) loss = loss * options.weight();
  return apply_reduction(loss, options.reduction());
}

}  // namespace ember::nn::functional
