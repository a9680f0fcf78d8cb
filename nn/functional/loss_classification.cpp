// The class-index losses: nll_loss (composed of gather and ember ops) and
// cross_entropy, whose class-index form is the fused op of
// core/ops/nn_ops/cross_entropy.h (its probability form is composed here). A bad
// CUDA target is reported by a kernel and raised by a later CUDA call
// (kernels/common/cross_entropy_kernels.h).
#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/autocast.h"
#include "ember/core/ops/nn_ops/cross_entropy.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/reduction/reduce.h"
#include "ember/core/ops/nn_ops/softmax.h"
#include "ember/nn/functional/loss.h"
#include "ember/nn/functional/loss_helpers.h"

namespace ember::nn::functional {

using namespace detail;

namespace {

// loss (per target) reduced; kMean divides by the summed target weights.
Tensor reduce_weighted(const Tensor& loss, const Tensor& target_weight, Reduction reduction) {
  if (reduction == Reduction::Mean) return loss.sum() / target_weight.sum();
  return apply_reduction(loss, reduction);
}

// cross_entropy with class probabilities as the target (input's shape).
Tensor cross_entropy_probabilities(const Tensor& input, const Tensor& target,
                                   const CrossEntropyFuncOptions& options) {
  const char* op = "cross_entropy";
  check_loss_inputs(op, input, target);
  EMBER_CHECK(input.dim() >= 1, op,
              ": expected class scores of shape (C), (N, C) or (N, C, d1, ...), got shape ",
              input.sizes());
  check_same_shape(op, input, target);
  EMBER_CHECK(target.scalar_type() == input.scalar_type(), op,
              ": expected a probability target of the input's dtype ", input.scalar_type(),
              ", got ", target.scalar_type());
  const int64_t class_dim = input.dim() == 1 ? 0 : 1, classes = input.size(class_dim);
  const double e = options.label_smoothing();
  Tensor t = e > 0 ? target * (1 - e) + e / classes : target;
  if (options.weight().defined()) {
    EMBER_CHECK(options.weight().dim() == 1 && options.weight().size(0) == classes, op,
                ": expected weight of shape [", classes, "] (one per class), got ",
                options.weight().sizes());
    check_weight(op, "weight", class_weight_view(options.weight(), class_dim, input.dim()), input);
    t = t * class_weight_view(options.weight(), class_dim, input.dim());
  }
  const Tensor loss = -(log_softmax(input, class_dim) * t).sum({class_dim});
  if (options.reduction() == Reduction::Mean)
    return loss.sum() / static_cast<double>(classes > 0 ? input.numel() / classes : 0);
  return apply_reduction(loss, options.reduction());
}

}  // namespace

Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options) {
  if (const auto to = autocast::cast_dtype(autocast::kFloat32Op, {&input, &target}))
    return nll_loss(autocast::cast(input, *to), autocast::cast(target, *to), options);
  const ClassLayout l =
      check_class_targets("nll_loss", input, target, options.weight());
  // Ahead of the gathers that read the targets (on CUDA, checked on the
  // device: the gathers' reports of a bad one are then silenced by this one's
  // claim).
  check_class_target_values("nll_loss", target, l.classes, options.ignore_index());
  const ClassTargetWeights tw =
      class_target_weights(target, options.weight(), options.ignore_index(), input.options());
  // input: (outer, C, inner), target: (outer, 1, inner)
  // An ignored target's row is cut out with where, not only weighted by 0:
  // its gradient is then 0 even when kMean divides by a total weight of 0
  // (0 / 0), and an infinite input there cannot make the loss NaN.
  const Tensor picked = where(tw.counted,
                              input.reshape({l.outer, l.classes, l.inner})
                                  .gather(1, tw.safe_target.reshape({l.outer, 1, l.inner}))
                                  .view(target.sizes()),
                              zeros({}, TensorOptions(input.scalar_type())));  // a CPU scalar
  return reduce_weighted(-picked * tw.weight, tw.weight, options.reduction());
}

Tensor cross_entropy(const Tensor& input, const Tensor& target,
                     const CrossEntropyFuncOptions& options) {
  if (const auto to = autocast::cast_dtype(autocast::kFloat32Op, {&input, &target}))
    return cross_entropy(autocast::cast(input, *to), autocast::cast(target, *to), options);
  const char* op = "cross_entropy";
  const double e = options.label_smoothing();
  EMBER_CHECK(e >= 0 && e <= 1, op, ": label_smoothing must be in [0, 1], got ", e);
  if (target.defined() && target.is_floating_point())
    return cross_entropy_probabilities(input, target, options);
  const ClassLayout layout = check_class_targets(op, input, target, options.weight());
  return cross_entropy_class_indices(input, target, options.weight(), layout,
                                     options.ignore_index(), e,
                                     loss_reduction(options.reduction()));
}

}  // namespace ember::nn::functional
