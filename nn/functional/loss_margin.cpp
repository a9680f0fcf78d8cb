// The margin and embedding losses of loss_extra.h, composed of ember ops:
// soft_margin, margin_ranking, hinge_embedding, cosine_embedding,
// multilabel_soft_margin, multi_margin, multilabel_margin and the triplet losses.
#include <vector>

#include "ember/core/error.h"
#include "ember/core/autocast.h"
#include "ember/core/ops/elementwise/activation.h"
#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/elementwise/compare.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/indexing/indexing.h"
#include "ember/core/ops/elementwise/logical.h"
#include "ember/core/ops/reduction/reduce.h"
#include "ember/core/ops/reduction/scan.h"
#include "ember/core/ops/elementwise/unary.h"
#include "ember/core/ops/shape/views.h"
#include "ember/core/shape.h"
#include "ember/nn/functional/distance.h"
#include "ember/nn/functional/loss_checks.h"
#include "ember/nn/functional/loss_extra.h"
#include "ember/nn/functional/loss_helpers.h"

namespace ember::nn::functional {

using namespace detail;

Tensor soft_margin_loss(const Tensor& input, const Tensor& target,
                        const SoftMarginLossFuncOptions& options) {
  if (const auto to = autocast::cast_dtype(autocast::kFloat32Op, {&input, &target}))
    return soft_margin_loss(autocast::cast(input, *to), autocast::cast(target, *to), options);
  const char* op = "soft_margin_loss";
  check_loss_inputs(op, input, target);
  check_label_target(op, target);
  EMBER_CHECK(is_expandable_to(target.sizes(), input.sizes()), op, ": target of shape ",
              target.sizes(), " does not broadcast to the input's shape ", input.sizes());
  // log(1 + exp(-y x)) = -log(sigmoid(y x)), without overflow.
  return apply_reduction(-log_sigmoid(target * input), options.reduction());
}

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           const MarginRankingLossFuncOptions& options) {
  if (const auto to = autocast::cast_dtype(autocast::kFloat32Op, {&input1, &input2, &target}))
    return margin_ranking_loss(autocast::cast(input1, *to), autocast::cast(input2, *to), autocast::cast(target, *to), options);
  const char* op = "margin_ranking_loss";
  check_float_inputs(op, {&input1, &input2});
  check_loss_inputs(op, input1, target);
  check_label_target(op, target);
  EMBER_CHECK(input1.dim() == input2.dim() && input1.dim() == target.dim(), op,
              ": expected input1, input2 and target of one number of dims, got shapes ",
              input1.sizes(), ", ", input2.sizes(), " and ", target.sizes());
  check_broadcastable(op, "input1", input1, "input2", input2);
  const Tensor diff = input1 - input2;
  check_broadcastable(op, "input1 - input2", diff, "target", target);
  return apply_reduction(clamp_min(-target * diff + options.margin(), 0), options.reduction());
}

Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target,
                            const HingeEmbeddingLossFuncOptions& options) {
  if (const auto to = autocast::cast_dtype(autocast::kFloat32Op, {&input, &target}))
    return hinge_embedding_loss(autocast::cast(input, *to), autocast::cast(target, *to), options);
  const char* op = "hinge_embedding_loss";
  check_loss_inputs(op, input, target);
  check_label_target(op, target);
  check_broadcastable(op, "input", input, "target", target);
  const Tensor below_margin = where(target != 1, clamp_min(options.margin() - input, 0), 0.0);
  const Tensor itself = where(target != -1, input, 0.0);
  return apply_reduction(below_margin + itself, options.reduction());
}

Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             const CosineEmbeddingLossFuncOptions& options) {
  if (const auto to = autocast::cast_dtype(autocast::kFloat32Op, {&input1, &input2, &target}))
    return cosine_embedding_loss(autocast::cast(input1, *to), autocast::cast(input2, *to), autocast::cast(target, *to), options);
  const char* op = "cosine_embedding_loss";
  check_float_inputs(op, {&input1, &input2});
  check_loss_inputs(op, input1, target);
  check_label_target(op, target);
  EMBER_CHECK(target.dim() <= 1, op, ": expected a 0-d or 1-d target, got shape ", target.sizes());
  EMBER_CHECK(input1.dim() == target.dim() + 1 && input2.dim() == target.dim() + 1, op, ": a ",
              target.dim(), "-d target expects ", target.dim() + 1, "-d inputs, got shapes ",
              input1.sizes(), " and ", input2.sizes());
  check_broadcastable(op, "input1", input1, "input2", input2);
  const int64_t d = target.dim();  // the feature dim
  const double tiny = 1e-12;       // keeps a zero vector's cosine finite
  const Tensor dot = sum(input1 * input2, {d});
  const Tensor norms = sqrt((sum(square(input1), {d}) + tiny) * (sum(square(input2), {d}) + tiny));
  const Tensor cos = dot / norms;
  check_broadcastable(op, "cosines", cos, "target", target);
  const Tensor loss = where(target == 1, 1 - cos, 0.0) +
                      where(target == -1, clamp_min(cos - options.margin(), 0), 0.0);
  return apply_reduction(loss, options.reduction());
}

Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target,
                                   const MultilabelSoftMarginLossFuncOptions& options) {
  const char* op = "multilabel_soft_margin_loss";
  check_loss_inputs(op, input, target);
  check_floating_target(op, target);
  EMBER_CHECK(input.dim() >= 1, op, ": expected an input of shape (C) or (N, C), got a 0-d input");
  EMBER_CHECK(is_expandable_to(target.sizes(), input.sizes()), op, ": target of shape ",
              target.sizes(), " does not broadcast to the input's shape ", input.sizes());
  check_weight(op, "weight", options.weight(), input);
  Tensor loss = -(target * log_sigmoid(input) + (1 - target) * log_sigmoid(-input));
  if (options.weight().defined()) loss = loss * options.weight();
  const int64_t labels = input.size(-1);
  return apply_reduction(sum(loss, {-1}) / static_cast<double>(labels), options.reduction());
}

namespace {

// The (frames, classes) view of a (C) or (N, C) input of the two multi-class
// hinge losses (a 0-d input is one frame of one class, as libtorch).
struct Frames {
  int64_t frames = 1, classes = 1;
};

Frames check_frames(const char* op, const Tensor& input, const Tensor& target) {
  check_loss_inputs(op, input, target);
  EMBER_CHECK(target.scalar_type() == kLong, op,
              ": expected an int64 target of class indices, got ", target.scalar_type());
  EMBER_CHECK(input.dim() <= 2 && (input.dim() == 0 || input.size(-1) > 0), op,
              ": expected an input of shape (C) or (N, C) with C > 0, got shape ", input.sizes());
  Frames f;
  if (input.dim() == 2) f.frames = input.size(0);
  if (input.dim() >= 1) f.classes = input.size(-1);
  return f;
}

}  // namespace

Tensor multi_margin_loss(const Tensor& input, const Tensor& target,
                         const MultiMarginLossFuncOptions& options) {
  if (const auto to = autocast::cast_dtype(autocast::kFloat32Op, {&input, &target}))
    return multi_margin_loss(autocast::cast(input, *to), autocast::cast(target, *to), options);
  const char* op = "multi_margin_loss";
  const Frames f = check_frames(op, input, target);
  const int64_t p = options.p();
  EMBER_CHECK(p == 1 || p == 2, op, ": p must be 1 or 2, got ", p);
  EMBER_CHECK(target.dim() <= 1 && target.numel() == f.frames, op, ": expected a target of ",
              f.frames, " class indices for input of shape ", input.sizes(), ", got shape ",
              target.sizes());
  const Tensor& weight = options.weight();
  if (weight.defined()) {
    EMBER_CHECK(weight.dim() <= 1 && weight.numel() == f.classes, op, ": expected weight of ",
                f.classes, " elements (one per class), got shape ", weight.sizes());
    EMBER_CHECK(weight.device() == input.device() && weight.scalar_type() == input.scalar_type(),
                op, ": expected weight of the input's dtype and device, got ", weight.toString(),
                " and ", input.toString());
  }
  if (target.is_cpu()) {
    const Tensor t = target.contiguous();
    for (int64_t i = 0; i < t.numel(); ++i) {
      const int64_t v = t.data_ptr<int64_t>()[i];
      EMBER_CHECK(v >= 0 && v < f.classes, op, ": target ", v, " is out of bounds for ", f.classes,
                  " classes");
    }
  }
  const Tensor x = input.reshape({f.frames, f.classes});
  const Tensor y = target.reshape({f.frames, 1});
  // (N, C): margin - x[n, y] + x[n, i], the y column itself left out.
  Tensor h = clamp_min(options.margin() - gather(x, 1, y) + x, 0);
  if (p == 2) h = square(h);
  if (weight.defined())  // weight[y[n]] scales row n
    h = h * index_select(weight.reshape({f.classes}), 0, y.reshape({f.frames})).unsqueeze(1);
  h = where(arange(f.classes, target.options()) == y, 0.0, h);
  const Tensor loss = sum(h, {1}) / static_cast<double>(f.classes);
  return apply_reduction(loss.reshape(target.sizes()), options.reduction());
}

Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target,
                              const MultilabelMarginLossFuncOptions& options) {
  if (const auto to = autocast::cast_dtype(autocast::kFloat32Op, {&input, &target}))
    return multilabel_margin_loss(autocast::cast(input, *to), autocast::cast(target, *to), options);
  const char* op = "multilabel_margin_loss";
  const Frames f = check_frames(op, input, target);
  const bool shape_ok = input.dim() <= 1 ? target.dim() <= 1 && target.numel() == f.classes
                                         : target.sizes() == input.sizes();
  EMBER_CHECK(shape_ok, op, ": expected a target of the input's shape ", input.sizes(), ", got ",
              target.sizes());
  const Tensor y = target.reshape({f.frames, f.classes});
  // The targets that count: those before a row's first negative entry.
  const Tensor counted = cumsum(y < 0, 1, kLong) == 0;
  if (y.is_cpu()) {
    const Tensor yc = y.contiguous(), cc = counted.contiguous();
    for (int64_t i = 0; i < yc.numel(); ++i) {
      const int64_t v = yc.data_ptr<int64_t>()[i];
      EMBER_CHECK(!cc.data_ptr<bool>()[i] || v < f.classes, op, ": target ", v,
                  " is out of bounds for ", f.classes, " classes");
    }
  }
  const Tensor safe_y = where(counted, y, 0);
  // is_target[n, i]: class i is in row n's set.
  const Tensor is_target =
      scatter_add(zeros({f.frames, f.classes}, target.options()), 1, safe_y, counted.to(kLong)) > 0;
  const Tensor x = input.reshape({f.frames, f.classes});
  // (N, J, I): 1 - x[n, y[j]] + x[n, i] for counted j and non-target i.
  const Tensor h = clamp_min(1 - gather(x, 1, safe_y).unsqueeze(2) + x.unsqueeze(1), 0);
  const Tensor pairs = logical_and(counted.unsqueeze(2), logical_not(is_target).unsqueeze(1));
  Tensor loss = sum(where(pairs, h, 0.0), {1, 2}) / static_cast<double>(f.classes);
  if (input.dim() <= 1) loss = loss.reshape({});
  return apply_reduction(loss, options.reduction());
}

namespace {

using DistanceFn = TripletMarginWithDistanceLossOptions::distance_function_t;

Tensor triplet_loss(const char* op, const Tensor& anchor, const Tensor& positive,
                    const Tensor& negative, const DistanceFn& distance, double margin, bool swap,
                    Reduction reduction) {
  EMBER_CHECK(anchor.dim() == positive.dim() && anchor.dim() == negative.dim(), op,
              ": expected anchor, positive and negative of one number of dims, got shapes ",
              anchor.sizes(), ", ", positive.sizes(), " and ", negative.sizes());
  const Tensor d_pos = distance(anchor, positive);
  Tensor d_neg = distance(anchor, negative);
  if (swap) d_neg = minimum(d_neg, distance(positive, negative));
  return apply_reduction(clamp_min(margin + d_pos - d_neg, 0), reduction);
}

}  // namespace

Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           const TripletMarginLossFuncOptions& options) {
  if (const auto to = autocast::cast_dtype(autocast::kFloat32Op, {&anchor, &positive, &negative}))
    return triplet_margin_loss(autocast::cast(anchor, *to), autocast::cast(positive, *to), autocast::cast(negative, *to), options);
  const char* op = "triplet_margin_loss";
  check_float_inputs(op, {&anchor, &positive, &negative});
  const auto opts = PairwiseDistanceFuncOptions().p(options.p()).eps(options.eps());
  const DistanceFn distance = [opts](const Tensor& a, const Tensor& b) {
    return pairwise_distance(a, b, opts);
  };
  return triplet_loss(op, anchor, positive, negative, distance, options.margin(), options.swap(),
                      options.reduction());
}

Tensor triplet_margin_with_distance_loss(const Tensor& anchor, const Tensor& positive,
                                         const Tensor& negative,
                                         const TripletMarginWithDistanceLossFuncOptions& options) {
  const char* op = "triplet_margin_with_distance_loss";
  EMBER_CHECK(anchor.defined() && positive.defined() && negative.defined(), op,
              ": inputs must be defined");
  const DistanceFn distance = options.distance_function().value_or(
      [](const Tensor& a, const Tensor& b) { return pairwise_distance(a, b); });
  return triplet_loss(op, anchor, positive, negative, distance, options.margin(), options.swap(),
                      options.reduction());
}

}  // namespace ember::nn::functional
