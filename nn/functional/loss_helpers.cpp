#include "ember/nn/functional/loss_helpers.h"

#include "ember/core/error.h"
#include "ember/core/ops/reduction/reduce.h"
#include "ember/core/shape.h"

namespace ember::nn::functional::detail {

Tensor apply_reduction(const Tensor& loss, Reduction reduction) {
  switch (reduction) {
    case Reduction::None: return loss;
    case Reduction::Mean: return loss.mean();
    case Reduction::Sum: return loss.sum();
  }
  EMBER_ERROR("loss: unknown reduction ", static_cast<int>(reduction));
}

void check_loss_inputs(const char* op, const Tensor& input, const Tensor& target) {
  EMBER_CHECK(input.defined() && target.defined(), op, ": input and target must be defined");
  EMBER_CHECK(input.device() == target.device(), op,
              ": expected input and target on the same device, got ", input.toString(), " and ",
              target.toString());
  EMBER_CHECK(input.is_floating_point(), op, ": expected a floating point input, got ",
              input.scalar_type());
}

void check_same_shape(const char* op, const Tensor& input, const Tensor& target) {
  EMBER_CHECK(input.sizes() == target.sizes(), op, ": expected a target of the input's shape ",
              input.sizes(), ", got ", target.sizes());
}

namespace {

void check_weight_type(const char* op, const char* name, const Tensor& weight,
                       const Tensor& input) {
  EMBER_CHECK(weight.device() == input.device(), op, ": expected ", name,
              " on the input's device, got ", weight.toString(), " and ", input.toString());
  EMBER_CHECK(weight.scalar_type() == input.scalar_type(), op, ": expected ", name,
              " of the input's dtype ", input.scalar_type(), ", got ", weight.scalar_type());
}

}  // namespace

void check_weight(const char* op, const char* name, const Tensor& weight, const Tensor& input) {
  if (!weight.defined()) return;
  check_weight_type(op, name, weight, input);
  EMBER_CHECK(is_expandable_to(weight.sizes(), input.sizes()), op, ": ", name, " of shape ",
              weight.sizes(), " does not broadcast to the input's shape ", input.sizes());
}

ClassLayout check_class_targets(const char* op, const Tensor& input, const Tensor& target,
                                const Tensor& weight) {
  check_loss_inputs(op, input, target);
  EMBER_CHECK(target.scalar_type() == kLong, op,
              ": expected an int64 target of class indices, got ", target.scalar_type());
  EMBER_CHECK(input.dim() >= 1, op,
              ": expected class scores of shape (C), (N, C) or (N, C, d1, ...), got shape ",
              input.sizes());
  ClassLayout l;
  l.class_dim = input.dim() == 1 ? 0 : 1;
  l.classes = input.size(l.class_dim);
  DimVector want;  // input's shape without the class dim
  for (int64_t d = 0; d < input.dim(); ++d) {
    if (d == l.class_dim) continue;
    want.push_back(input.size(d));
    (d < l.class_dim ? l.outer : l.inner) *= input.size(d);
  }
  EMBER_CHECK(target.sizes() == want.ref(), op, ": expected a target of shape ", want.ref(),
              " for input ", input.sizes(), ", got ", target.sizes());
  if (weight.defined()) {
    EMBER_CHECK(weight.dim() == 1 && weight.size(0) == l.classes, op,
                ": expected weight of shape [", l.classes, "] (one per class), got ",
                weight.sizes());
    check_weight_type(op, "weight", weight, input);
  }
  return l;
}

LossReduction loss_reduction(Reduction reduction) {
  switch (reduction) {
    case Reduction::None: return LossReduction::kNone;
    case Reduction::Mean: return LossReduction::kMean;
    case Reduction::Sum: return LossReduction::kSum;
  }
  EMBER_ERROR("loss: unknown reduction ", static_cast<int>(reduction));
}

}  // namespace ember::nn::functional::detail
