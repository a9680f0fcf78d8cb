// The elementwise losses: mse, l1, smooth_l1 (composed of ember ops, so their
// derivatives come for free), and the binary cross-entropies, whose per-element
// forward and derivative are core/ops/nn_ops/binary_cross_entropy.h's.
// The class-index losses (nll_loss, cross_entropy) are in loss_classification.cpp.
#include "ember/nn/functional/loss.h"

#include "ember/core/autocast.h"
#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/elementwise/elementwise_helpers.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/reduction/reduce.h"
#include "ember/core/ops/elementwise/unary.h"
#include "ember/core/ops/nn_ops/binary_cross_entropy.h"
#include "ember/core/ops/shape/views.h"
#include "ember/nn/functional/loss_helpers.h"

namespace ember::nn::functional {

using autograd::Node;
using namespace detail;

namespace {

// input - target, broadcast as PyTorch's regression losses do.
Tensor difference(const char* op, const Tensor& input, const Tensor& target) {
  check_loss_inputs(op, input, target);
  broadcast_shapes(input.sizes(), target.sizes(), op);
  return input - target;
}

}  // namespace

Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options) {
  if (const auto to = autocast::cast_dtype(autocast::kFloat32Op, {&input, &target}))
    return mse_loss(autocast::cast(input, *to), autocast::cast(target, *to), options);
  return apply_reduction(square(difference("mse_loss", input, target)), options.reduction());
}

Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options) {
  if (const auto to = autocast::cast_dtype(autocast::kFloat32Op, {&input, &target}))
    return l1_loss(autocast::cast(input, *to), autocast::cast(target, *to), options);
  return apply_reduction(abs(difference("l1_loss", input, target)), options.reduction());
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                      const SmoothL1LossFuncOptions& options) {
  if (const auto to = autocast::cast_dtype(autocast::kFloat32Op, {&input, &target}))
    return smooth_l1_loss(autocast::cast(input, *to), autocast::cast(target, *to), options);
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
  if (const auto to = autocast::cast_dtype(autocast::kFloat32Op, {&input, &target}))
    return binary_cross_entropy(autocast::cast(input, *to), autocast::cast(target, *to), options);
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
  if (const auto to = autocast::cast_dtype(autocast::kFloat32Op, {&input, &target}))
    return binary_cross_entropy_with_logits(autocast::cast(input, *to), autocast::cast(target, *to), options);
  const char* op = "binary_cross_entropy_with_logits";
  check_binary_inputs(op, input, target, options.weight());
  check_weight(op, "pos_weight", options.pos_weight(), input);
  Tensor loss = binary_cross_entropy_with_logits_elements(input, target, options.pos_weight());
  if (options.weight().defined()) loss = loss * options.weight();
  return apply_reduction(loss, options.reduction());
}

}  // namespace ember::nn::functional
