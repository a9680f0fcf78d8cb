// cross_entropy over class indices through the cross-entropy kernel table
// (kernels/common/cross_entropy_kernels.h): the forward computes each line's
// logsumexp and loss without materializing log_softmax, the backward is
// softmax - (smoothed, weighted) one-hot in one pass. The scores go to the
// kernels as the device takes them (by_columns): as they are on the CPU, as
// rows with the class dim innermost on CUDA. The reductions run on the
// tensor's device in double, and kMean's divisor stays a 0-d tensor there: the
// host never waits. Under create_graph the backward is written with ember ops
// instead, so the gradient can be differentiated again.
#include "ember/core/ops/nn_ops/cross_entropy.h"

#include "ember/autograd/function.h"
#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/elementwise/compare.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/indexing/indexing.h"
#include "ember/core/ops/reduction/reduce.h"
#include "ember/core/ops/nn_ops/softmax.h"
#include "ember/core/ops/elementwise/unary.h"
#include "ember/kernels/common/kernel_registry.h"

namespace ember {

using autograd::Node;

namespace {

constexpr const char* kOp = "cross_entropy";

// What the backward needs besides the saved tensors.
struct CrossEntropyBackwardArgs {
  ClassLayout layout;
  int64_t ignore_index = -100;
  double label_smoothing = 0;
  LossReduction reduction = LossReduction::kMean;
};

// The gradient with ember ops (differentiable in x and g): (p * a - q) * g,
// p = softmax(x), a = (1 - e) w[t] + e / C * sum(w), q = (1 - e) w[t] onehot(t) + e / C * w.
// g: the incoming gradient times kMean's scale.
Tensor cross_entropy_backward_composed(const Tensor& g, const Tensor& x, const Tensor& target,
                                       const Tensor& class_weight,
                                       const CrossEntropyBackwardArgs& args) {
  const int64_t cd = args.layout.class_dim, classes = args.layout.classes;
  const double e = args.label_smoothing, keep = 1 - e, e_c = e / classes;
  Tensor a, q;
  {
    NoGradGuard guard;
    const ClassTargetWeights tw =
        class_target_weights(target, class_weight, args.ignore_index, x.options());
    const Tensor counted = (target != args.ignore_index).to(x.scalar_type());
    const double weight_total =
        class_weight.defined() ? class_weight.sum().item<double>() : static_cast<double>(classes);
    a = (tw.weight * keep + counted * (e_c * weight_total)).unsqueeze(cd);
    q = scatter_add(zeros(x.sizes(), x.options()), cd, tw.safe_target.unsqueeze(cd),
                    (tw.weight * keep).unsqueeze(cd));
    if (e > 0) {
      const Tensor w = class_weight.defined() ? class_weight_view(class_weight, cd, x.dim())
                                              : ones({}, x.options());
      q = q + w * counted.unsqueeze(cd) * e_c;
    }
  }
  const Tensor g_line = args.reduction == LossReduction::kNone ? g.unsqueeze(cd) : g;
  return (softmax(x, cd) * a - q) * g_line;
}

// The scores as the device's kernels take them, and the kernel arguments:
// x contiguous as (outer, C, inner) where the device walks columns, else
// (lines, C) rows with the class dim moved innermost (a transposing copy when
// inner > 1). No grad.
struct KernelScores {
  Tensor x;
  CrossEntropyArgs args;
};

KernelScores kernel_scores(const Tensor& input, const Tensor& target, const Tensor& weight,
                           const CrossEntropyBackwardArgs& a) {
  NoGradGuard guard;
  const ClassLayout& l = a.layout;
  KernelScores k;
  k.args.classes = l.classes;
  k.args.target = target;
  k.args.weight = weight;
  k.args.ignore_index = a.ignore_index;
  k.args.label_smoothing = a.label_smoothing;
  if (kernels().cross_entropy.by_columns.on(input.device(), kOp)()) {
    k.x = input.contiguous();
    k.args.outer = l.outer;
    k.args.inner = l.inner;
  } else {
    const Tensor x3 = input.reshape({l.outer, l.classes, l.inner});
    k.x = (l.inner == 1 ? x3 : x3.transpose(1, 2)).contiguous().view(
        {l.outer * l.inner, l.classes});
    k.args.outer = l.outer * l.inner;
    k.args.inner = 1;
  }
  return k;
}

// The fused backward: one pass over x. scale: kMean's 1 / summed target
// weights (0-d double on x's device) or undefined.
Tensor cross_entropy_backward_fused(const Tensor& g, const Tensor& x, const Tensor& target,
                                    const Tensor& weight, const Tensor& lse, const Tensor& scale,
                                    const CrossEntropyBackwardArgs& args) {
  NoGradGuard guard;
  const KernelScores k = kernel_scores(x, target, weight, args);
  const Tensor gc = g.to(x.scalar_type()).contiguous();
  Tensor dx = empty(k.x.sizes(), k.x.options());
  kernels().cross_entropy.backward.on(x.device(), kOp)(
      k.x, k.args, lse, gc, args.reduction == LossReduction::kNone ? 1 : 0, scale, dx);
  const ClassLayout& l = args.layout;
  if (k.args.inner == l.inner) return dx.view(x.sizes());  // x's layout
  return dx.view({l.outer, l.inner, l.classes}).transpose(1, 2).reshape(x.sizes());
}

}  // namespace

ClassTargetWeights class_target_weights(const Tensor& target, const Tensor& class_weight,
                                        int64_t ignore_index, const TensorOptions& options) {
  NoGradGuard guard;
  ClassTargetWeights t;
  t.counted = target != ignore_index;
  t.safe_target = where(t.counted, target, zeros({}, target.options()));
  if (class_weight.defined())
    t.weight = class_weight.detach().index_select(0, t.safe_target.flatten())
                   .view(target.sizes()) * t.counted;
  else
    t.weight = t.counted.to(options.dtype());
  return t;
}

Tensor class_weight_view(const Tensor& weight, int64_t class_dim, int64_t ndim) {
  DimVector shape(ndim - class_dim, 1);
  shape[0] = weight.size(0);
  return weight.detach().view(shape);
}

void check_class_target_values(const char* op, const Tensor& target, int64_t classes,
                               int64_t ignore_index) {
  kernels().cross_entropy.check_targets.on(target.device(), op)(op, target, classes,
                                                                ignore_index);
}

Tensor cross_entropy_class_indices(const Tensor& input, const Tensor& target,
                                   const Tensor& class_weight, const ClassLayout& layout,
                                   int64_t ignore_index, double label_smoothing,
                                   LossReduction reduction) {
  CrossEntropyBackwardArgs args;
  args.layout = layout;
  args.ignore_index = ignore_index;
  args.label_smoothing = label_smoothing;
  args.reduction = reduction;
  const Tensor tc = target.contiguous();
  const Tensor weight = class_weight.defined() ? class_weight.detach().contiguous() : Tensor();
  const int64_t lines = layout.outer * layout.inner;
  Tensor lse = empty({lines}, input.options());
  Tensor loss = empty(target.sizes(), input.options());  // written as (lines)
  // kMean's divisor: the summed weights of the counted targets.
  Tensor line_weight =
      reduction == LossReduction::kMean ? empty({lines}, input.options()) : Tensor();
  Tensor out, scale;
  {
    NoGradGuard guard;
    const KernelScores k = kernel_scores(input, tc, weight, args);
    kernels().cross_entropy.forward.on(input.device(), kOp)(k.x, k.args, lse, loss, line_weight);
    // Sums in double: the loss over lines, and kMean's summed weights.
    if (reduction == LossReduction::kNone) {
      out = loss;
    } else {
      Tensor total = sum(loss, {}, false, kDouble);
      if (reduction == LossReduction::kMean) {  // over no counted target: 0 / 0 = NaN
        scale = reciprocal(sum(line_weight, {}, false, kDouble));
        total = total * scale;
      }
      out = total.to(input.scalar_type());
    }
  }
  if (autograd::needs_grad(input)) {
    // derivative of cross_entropy: d/dinput = g·weight[t]·(softmax(x) - one_hot(t)) per line, times the reduction's scale (cross_entropy_backward_composed; label smoothing mixes in the uniform target)
    auto node = autograd::make_node("CrossEntropyBackward", {input},
        [args](Node& n, const tensor_list& g) {
          const Tensor x = n.saved(0), target = n.saved(1), weight = n.saved(2);
          const Tensor scale = n.saved(4);
          if (GradMode::is_enabled()) {  // create_graph: a differentiable gradient
            const Tensor g_scaled = scale.defined() ? g[0] * scale.to(g[0].scalar_type()) : g[0];
            return tensor_list{
                cross_entropy_backward_composed(g_scaled, x, target, weight, args)};
          }
          return tensor_list{
              cross_entropy_backward_fused(g[0], x, target, weight, n.saved(3), scale, args)};
        });
    node->save(input);
    node->save(tc);
    node->save(weight);
    node->save(lse);
    node->save(scale);
    autograd::set_history(out, node);
  }
  return out;
}

}  // namespace ember
