// The class-index losses: nll_loss (composed of gather and ember ops) and
// cross_entropy, fused on CPU (kernels/cpu/cross_entropy.h) and on CUDA
// (kernels/cuda/cross_entropy.h, over rows with the class dim innermost): the forward
// computes each line's logsumexp and loss without materializing log_softmax,
// the backward is softmax - (smoothed, weighted) one-hot in one pass. Under
// create_graph the backward is written with ember ops instead, so the
// gradient can be differentiated again. A bad CUDA target is reported by a
// kernel and raised by a later CUDA call (kernels/cuda/cross_entropy.h).
#include "ember/autograd/function.h"
#include "ember/core/ops/binary.h"
#include "ember/core/ops/compare.h"
#include "ember/core/ops/elementwise_helpers.h"
#include "ember/core/ops/factory.h"
#include "ember/core/ops/indexing.h"
#include "ember/core/ops/reduce.h"
#include "ember/core/ops/softmax.h"
#include "ember/core/ops/reduce_helpers.h"
#include "ember/core/ops/unary.h"
#include "ember/core/ops/views.h"
#include "ember/kernels/cpu/cross_entropy.h"
#include "ember/kernels/cuda/cross_entropy.h"
#include "ember/nn/functional/loss.h"
#include "ember/nn/functional/loss_helpers.h"

namespace ember::nn::functional {

using autograd::Node;
using namespace detail;

namespace {

// The target with ignored entries replaced by class 0 (safe to gather with),
// and the weight of each target: weight[t] (1 without weight), 0 where ignored.
struct TargetWeights {
  Tensor counted;  // bool, target's shape: not ignore_index
  Tensor safe_target;
  Tensor weight;  // target's shape, input's dtype, no grad
};

TargetWeights target_weights(const Tensor& target, const Tensor& class_weight,
                             int64_t ignore_index, const TensorOptions& options) {
  NoGradGuard guard;
  TargetWeights t;
  t.counted = target != ignore_index;
  t.safe_target = where(t.counted, target, zeros({}, target.options()));
  if (class_weight.defined())
    t.weight = class_weight.detach().index_select(0, t.safe_target.flatten())
                   .view(target.sizes()) * t.counted;
  else
    t.weight = t.counted.to(options.dtype());
  return t;
}

// loss (per target) reduced; kMean divides by the summed target weights.
Tensor reduce_weighted(const Tensor& loss, const Tensor& target_weight, Reduction reduction) {
  if (reduction == Reduction::Mean) return loss.sum() / target_weight.sum();
  return apply_reduction(loss, reduction);
}

// Class weight viewed to broadcast along the class dim of an input of `ndim` dims.
Tensor class_weight_view(const Tensor& weight, int64_t class_dim, int64_t ndim) {
  DimVector shape(ndim - class_dim, 1);
  shape[0] = weight.size(0);
  return weight.detach().view(shape);
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

// What the cross-entropy backward needs besides the saved tensors.
struct CrossEntropyBackwardArgs {
  ClassLayout layout;
  cpu::CrossEntropyParams params;  // target: null until the kernel call sets it
  Reduction reduction = Reduction::Mean;
  double scale = 1;  // 1 / summed target weights for kMean, else 1
};

// The gradient with ember ops (differentiable in x and g): (p * a - q) * g,
// p = softmax(x), a = (1 - e) w[t] + e / C * sum(w), q = (1 - e) w[t] onehot(t) + e / C * w.
Tensor cross_entropy_backward_composed(const Tensor& g, const Tensor& x, const Tensor& target,
                                       const Tensor& class_weight,
                                       const CrossEntropyBackwardArgs& args) {
  const int64_t cd = args.layout.class_dim, classes = args.layout.classes;
  const double e = args.params.label_smoothing, keep = 1 - e, e_c = e / classes;
  Tensor a, q;
  {
    NoGradGuard guard;
    const TargetWeights tw = target_weights(target, class_weight, args.params.ignore_index,
                                            x.options());
    const Tensor counted = (target != args.params.ignore_index).to(x.scalar_type());
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
  const Tensor g_line = args.reduction == Reduction::None ? g.unsqueeze(cd) : g;
  return (softmax(x, cd) * a - q) * (g_line * args.scale);
}

// The fused backward: one pass over x.
Tensor cross_entropy_backward_fused(const Tensor& g, const Tensor& x, const Tensor& target,
                                    const Tensor& class_weight, const Tensor& lse,
                                    CrossEntropyBackwardArgs args) {
  const Tensor xc = ember::detail::contiguous_for_kernel(x);
  const Tensor gc = ember::detail::contiguous_for_kernel(g.to(x.scalar_type()));
  Tensor dx = empty(x.sizes(), x.options());
  args.params.target = target.data_ptr<int64_t>();
  const cpu::CrossEntropyShape shape{args.layout.outer, args.layout.classes, args.layout.inner};
  dispatch_floating(x.scalar_type(), "cross_entropy", [&]<typename T>() {
    cpu::cross_entropy_backward<T>(xc.data_ptr<T>(),
                                   class_weight.defined() ? class_weight.data_ptr<T>() : nullptr,
                                   lse.data_ptr<T>(), gc.data_ptr<T>(),
                                   args.reduction == Reduction::None ? 1 : 0, args.scale, shape,
                                   args.params, dx.data_ptr<T>());
  });
  return dx;
}

// ---- CUDA ----

// The scores as contiguous (lines, C) rows: x (outer, C, inner) with the class
// dim moved innermost (a transposing copy when inner > 1). No grad.
Tensor class_rows(const Tensor& x, const ClassLayout& l) {
  NoGradGuard guard;
  const Tensor x3 = x.reshape({l.outer, l.classes, l.inner});
  return (l.inner == 1 ? x3 : x3.transpose(1, 2)).contiguous().view({l.outer * l.inner, l.classes});
}

// The device arguments of the CUDA kernels.
cuda::CrossEntropyArgs cuda_args(const Tensor& target, const Tensor& weight,
                                 const CrossEntropyBackwardArgs& args) {
  cuda::CrossEntropyArgs a;
  a.target = target;
  a.weight = weight;
  if (weight.defined()) {
    NoGradGuard guard;
    a.weight_total = weight.to(kDouble).sum();
  }
  a.ignore_index = args.params.ignore_index;
  a.label_smoothing = args.params.label_smoothing;
  return a;
}

// The fused backward on CUDA; scale: kMean's 1 / summed target weights (0-d
// double on the device) or undefined.
Tensor cross_entropy_backward_cuda(const Tensor& g, const Tensor& x, const Tensor& target,
                                   const Tensor& weight, const Tensor& lse, const Tensor& scale,
                                   const CrossEntropyBackwardArgs& args) {
  NoGradGuard guard;
  const ClassLayout& l = args.layout;
  const Tensor rows = class_rows(x, l);
  const Tensor gc = g.to(x.scalar_type()).contiguous();
  Tensor dx = empty(rows.sizes(), rows.options());
  cuda::cross_entropy_backward(rows, cuda_args(target, weight, args), lse, gc,
                               args.reduction == Reduction::None ? 1 : 0, scale, dx);
  if (l.inner == 1) return dx.view(x.sizes());
  return dx.view({l.outer, l.inner, l.classes}).transpose(1, 2).reshape(x.sizes());
}

// cross_entropy on CUDA tensors: the fused kernels, the reductions on the
// device (no host sync; kMean's divisor stays a device tensor).
Tensor cross_entropy_cuda(const Tensor& input, const Tensor& target, const Tensor& class_weight,
                          CrossEntropyBackwardArgs args) {
  const ClassLayout& l = args.layout;
  const Tensor tc = target.contiguous();
  const Tensor weight = class_weight.defined() ? class_weight.detach().contiguous() : Tensor();
  const int64_t lines = l.outer * l.inner;
  Tensor lse = empty({lines}, input.options());
  Tensor loss = empty(target.sizes(), input.options());  // written as (lines)
  Tensor line_weight = empty({lines}, input.options());
  Tensor out, scale;
  {
    NoGradGuard guard;
    cuda::cross_entropy_forward(class_rows(input, l), cuda_args(tc, weight, args), lse, loss,
                                line_weight);
    // Sums in double, as the CPU: the loss over lines, and kMean's summed weights.
    if (args.reduction == Reduction::None) {
      out = loss;
    } else {
      Tensor total = sum(loss, {}, false, kDouble);
      if (args.reduction == Reduction::Mean) {  // over no counted target: 0 / 0 = NaN
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
              cross_entropy_backward_cuda(g[0], x, target, weight, n.saved(3), scale, args)};
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

}  // namespace

Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options) {
  const ClassLayout l =
      check_class_targets("nll_loss", input, target, options.weight(), options.ignore_index());
  // Checked on the device, ahead of the gathers that read the targets (their
  // reports of a bad one are then silenced by this one's claim).
  if (target.is_cuda())
    cuda::check_class_targets("nll_loss", target, l.classes, options.ignore_index());
  const TargetWeights tw =
      target_weights(target, options.weight(), options.ignore_index(), input.options());
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
  const char* op = "cross_entropy";
  const double e = options.label_smoothing();
  EMBER_CHECK(e >= 0 && e <= 1, op, ": label_smoothing must be in [0, 1], got ", e);
  if (target.defined() && target.is_floating_point())
    return cross_entropy_probabilities(input, target, options);
  CrossEntropyBackwardArgs args;
  args.layout = check_class_targets(op, input, target, options.weight(), options.ignore_index());
  args.params.ignore_index = options.ignore_index();
  args.params.label_smoothing = e;
  args.reduction = options.reduction();
  if (input.is_cuda()) return cross_entropy_cuda(input, target, options.weight(), args);

  const Tensor xc = ember::detail::contiguous_for_kernel(input);
  const Tensor tc = target.contiguous();
  const Tensor weight =
      options.weight().defined() ? options.weight().detach().contiguous() : Tensor();
  const cpu::CrossEntropyShape shape{args.layout.outer, args.layout.classes, args.layout.inner};
  cpu::CrossEntropyParams params = args.params;
  params.target = tc.data_ptr<int64_t>();
  Tensor lse = empty({shape.lines()}, input.options());
  Tensor loss = empty(target.sizes(), input.options());
  // Sums in double: the loss over lines, and the weights of counted targets (kMean's divisor).
  double loss_sum = 0, weight_sum = 0;
  dispatch_floating(input.scalar_type(), op, [&]<typename T>() {
    const T* w = weight.defined() ? weight.data_ptr<T>() : nullptr;
    cpu::cross_entropy_forward<T>(xc.data_ptr<T>(), w, shape, params, lse.data_ptr<T>(),
                                  loss.data_ptr<T>());
    if (args.reduction == Reduction::None) return;
    const T* lp = loss.data_ptr<T>();
    for (int64_t l = 0; l < shape.lines(); ++l) {
      loss_sum += lp[l];
      const int64_t t = params.target[l];
      if (t != params.ignore_index) weight_sum += w ? static_cast<double>(w[t]) : 1.0;
    }
  });
  Tensor out = loss;
  if (args.reduction != Reduction::None) {
    // kMean over no counted target is 0 / 0 = NaN, as PyTorch.
    args.scale = args.reduction == Reduction::Mean ? 1.0 / weight_sum : 1.0;
    out = full({}, loss_sum * args.scale, input.options());
  }
  if (autograd::needs_grad(input)) {
    // derivative of cross_entropy: d/dinput = g·weight[t]·(softmax(x) - one_hot(t)) per line, times the reduction's scale (cross_entropy_backward_composed; label smoothing mixes in the uniform target)
    auto node = autograd::make_node("CrossEntropyBackward", {input},
        [args](Node& n, const tensor_list& g) {
          const Tensor x = n.saved(0), target = n.saved(1), weight = n.saved(2);
          if (GradMode::is_enabled())  // create_graph: a differentiable gradient
            return tensor_list{cross_entropy_backward_composed(g[0], x, target, weight, args)};
          return tensor_list{
              cross_entropy_backward_fused(g[0], x, target, weight, n.saved(3), args)};
        });
    node->save(input);
    node->save(tc);
    node->save(weight);
    node->save(lse);
    autograd::set_history(out, node);
  }
  return out;
}

}  // namespace ember::nn::functional
