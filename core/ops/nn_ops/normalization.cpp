// batch_norm and layer_norm: checks, fused kernels (the normalization table,
// kernels/common/normalization_kernels.h) for the forward and for backward,
// and a backward composed of ember ops that runs instead when backward itself
// is recorded (create_graph), so that double backward works: Note [Fused or
// composed backward].
#include "ember/core/ops/nn_ops/normalization.h"

#include "ember/autograd/function.h"
#include "ember/core/autocast.h"
#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/elementwise/elementwise_helpers.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/reduction/reduce.h"
#include "ember/core/ops/reduction/reduce_helpers.h"
#include "ember/core/ops/elementwise/unary.h"
#include "ember/core/shape.h"
#include "ember/kernels/common/kernel_registry.h"

namespace ember {

using autograd::Node;

// Note [Fused or composed backward]: the fused kernels compute all gradients
// in one or two passes but record nothing. When grad mode is on during
// backward (create_graph=true), the gradients are instead written with ember
// ops from x itself (the statistics recomputed from x, so their dependence on
// x is recorded too), which makes them differentiable.

namespace {

// Whether batch_norm of x goes to cuDNN (only a CUDA build registers it).
bool uses_cudnn(const Tensor& x, double eps, const Tensor& running_mean,
                const Tensor& running_var) {
  const auto& applies = kernels().normalization.cudnn_batch_norm_applies;
  return applies.has(x.device().type()) &&
         applies.on(x.device(), "batch_norm")(x, eps, running_mean, running_var);
}

// The statistics of a 16-bit float input (mean, variance, inverse std) are
// float32, as their accumulation is: the running statistics are updated from
// them unrounded.
TensorOptions stats_options(const Tensor& x) {
  return x.options().dtype(is_reduced_floating_point(x.scalar_type()) ? kFloat : x.scalar_type());
}

// A parameter's gradient in the parameter's dtype (float32 next to a 16-bit input).
TensorOptions param_options(const Tensor& param, const Tensor& x) {
  return param.defined() ? x.options().dtype(param.scalar_type()) : x.options();
}

Tensor contiguous_or_undefined(const Tensor& t) {
  return t.defined() ? detail::contiguous_for_kernel(t) : Tensor();
}

void check_param(const char* op, const char* name, const Tensor& p, IntArrayRef want,
                 const Tensor& x, const char* what) {
  if (!p.defined()) return;
  EMBER_CHECK(p.sizes() == want, op, ": ", name, " should have shape ", want, " (", what,
              " of the input ", x.sizes(), "), got ", p.sizes());
  // A bfloat16 or float16 input may have float32 parameters and statistics
  // (mixed precision: autocast leaves the module's own in float32), as in PyTorch.
  const bool mixed = is_reduced_floating_point(x.scalar_type()) && p.scalar_type() == kFloat;
  EMBER_CHECK(p.scalar_type() == x.scalar_type() || mixed, op, ": ", name, " has dtype ",
              p.scalar_type(), " but the input is ", x.scalar_type());
  EMBER_CHECK(p.device() == x.device(), op, ": ", name, " is on ", p.device(),
              " but the input is on ", x.device());
}

// ---- batch norm ----

// Every dim of x but the channels (1).
DimVector non_channel_dims(const Tensor& x) {
  DimVector dims{0};
  for (int64_t d = 2; d < x.dim(); ++d) dims.push_back(d);
  return dims;
}

// (1, C, 1, ...): a per-channel tensor broadcast against x.
DimVector channel_shape(const Tensor& x) {
  DimVector shape(static_cast<size_t>(x.dim()), 1);
  shape[1] = x.size(1);
  return shape;
}

tensor_list batch_norm_backward_composed(const Tensor& g, const Tensor& x, const Tensor& weight,
                                         const Tensor& saved_mean, const Tensor& saved_invstd,
                                         bool training, double eps, Node& n) {
  const DimVector dims = non_channel_dims(x), cshape = channel_shape(x);
  Tensor mean, invstd;
  if (training) {
    mean = x.mean(dims, true);
    invstd = rsqrt((x - mean).square().mean(dims, true) + eps);
  } else {
    mean = saved_mean.view(cshape);
    invstd = saved_invstd.view(cshape);
  }
  const Tensor xhat = (x - mean) * invstd;
  Tensor gx, gw, gb;
  if (n.needs_input_grad(0)) {
    gx = training ? (g - g.mean(dims, true) - xhat * (g * xhat).mean(dims, true)) * invstd
                  : g * invstd;
    if (weight.defined()) gx = gx * weight.view(cshape);
  }
  if (n.needs_input_grad(1)) gw = (g * xhat).sum(dims);
  if (n.needs_input_grad(2)) gb = g.sum(dims);
  return {gx, gw, gb};
}

tensor_list batch_norm_backward_fused(const Tensor& g, const Tensor& x, const Tensor& weight,
                                      const Tensor& mean, const Tensor& invstd, bool training,
                                      double eps, Node& n) {
  const int64_t c = x.size(1);
  if (x.numel() == 0) {  // an empty batch: sums over nothing
    const auto zeros_if = [&](size_t i) {
      return n.needs_input_grad(i) ? zeros({c}, x.options()) : Tensor();
    };
    return {n.needs_input_grad(0) ? empty(x.sizes(), x.options()) : Tensor(), zeros_if(1),
            zeros_if(2)};
  }
  const Tensor dx = n.needs_input_grad(0) ? empty(x.sizes(), x.options()) : Tensor();
  const Tensor dw = n.needs_input_grad(1) ? empty({c}, param_options(weight, x)) : Tensor();
  const Tensor db = n.needs_input_grad(2) ? empty({c}, param_options(weight, x)) : Tensor();
  const Tensor xc = detail::contiguous_for_kernel(x), gc = detail::contiguous_for_kernel(g);
  const Tensor wc = contiguous_or_undefined(weight);
  const NormalizationKernels& k = kernels().normalization;
  if (training && uses_cudnn(x, eps, {}, {}))
    k.cudnn_batch_norm_backward.on(x.device(), "batch_norm_backward")(xc, gc, mean, invstd, wc,
                                                                      eps, dx, dw, db);
  else
    k.batch_norm_backward.on(x.device(), "batch_norm_backward")(xc, gc, mean, invstd, wc,
                                                                training, dx, dw, db);
  return {dx, dw, db};
}

// running = (1 - momentum) * running + momentum * batch, with the batch's unbiased
// variance; nothing without running statistics.
void update_running_stats(const Tensor& x, const Tensor& running_mean,
                          const Tensor& running_var, const Tensor& mean, const Tensor& var,
                          double momentum) {
  if (!running_mean.defined()) return;
  NoGradGuard guard;
  const double count = static_cast<double>(x.numel() / x.size(1));
  Tensor rm = running_mean, rv = running_var;
  rm.mul_(1 - momentum).add_(mean, momentum);
  rv.mul_(1 - momentum).add_(var, momentum * count / (count - 1));
}

// batch_norm_relu's backward: relu's mask from z = (x - mean) * invstd * weight + bias,
// then batch norm's training-mode gradients. With create_graph, composed of ops.
tensor_list batch_norm_relu_backward(const Tensor& g, const Tensor& x, const Tensor& weight,
                                     const Tensor& bias, const Tensor& mean,
                                     const Tensor& invstd, double eps, Node& n) {
  if (GradMode::is_enabled()) {
    const DimVector cshape = channel_shape(x);
    Tensor scale = invstd.view(cshape);
    if (weight.defined()) scale = scale * weight.view(cshape);
    Tensor z = (x.detach() - mean.view(cshape)) * scale.detach();
    if (bias.defined()) z = z + bias.detach().view(cshape);
    const Tensor masked = where(z <= 0, zeros({}, g.options()), g);
    return batch_norm_backward_composed(masked, x, weight, mean, invstd, true, eps, n);
  }
  const int64_t c = x.size(1);
  const Tensor dx = n.needs_input_grad(0) ? empty(x.sizes(), x.options()) : Tensor();
  const Tensor dw = n.needs_input_grad(1) ? empty({c}, param_options(weight, x)) : Tensor();
  const Tensor db = n.needs_input_grad(2) ? empty({c}, param_options(weight, x)) : Tensor();
  kernels().normalization.batch_norm_relu_backward.on(x.device(), "batch_norm_relu_backward")(
      detail::contiguous_for_kernel(x), detail::contiguous_for_kernel(g), mean, invstd,
      contiguous_or_undefined(weight), contiguous_or_undefined(bias), dx, dw, db);
  return {dx, dw, db};
}

void check_batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias,
                      const Tensor& running_mean, const Tensor& running_var, bool training) {
  EMBER_CHECK(x.dim() >= 2, "batch_norm: expected an input of shape (N, C) or (N, C, *), got ",
              x.sizes());
  EMBER_CHECK(x.is_floating_point(), "batch_norm: expected a floating point input, got ",
              x.scalar_type());
  const DimVector c{x.size(1)};
  check_param("batch_norm", "weight", weight, c, x, "the channels, dim 1");
  check_param("batch_norm", "bias", bias, c, x, "the channels, dim 1");
  check_param("batch_norm", "running_mean", running_mean, c, x, "the channels, dim 1");
  check_param("batch_norm", "running_var", running_var, c, x, "the channels, dim 1");
  EMBER_CHECK(running_mean.defined() == running_var.defined(),
              "batch_norm: give both running_mean and running_var, or neither");
  EMBER_CHECK(training || running_mean.defined(),
              "batch_norm: running_mean and running_var are needed when not training");
  // As PyTorch: exactly one value per channel has no variance to normalize
  // by; an empty batch is allowed (an empty output, statistics unchanged).
  EMBER_CHECK(!training || x.size(0) * compute_numel(x.sizes().slice(2, x.dim() - 2)) != 1,
              "batch_norm: expected more than 1 value per channel when training, got input of "
              "shape ",
              x.sizes());
}

// ---- layer norm ----

tensor_list layer_norm_backward_composed(const Tensor& g, const Tensor& x, const Tensor& weight,
                                         int64_t norm_dims, double eps, Node& n) {
  DimVector dims;
  for (int64_t d = x.dim() - norm_dims; d < x.dim(); ++d) dims.push_back(d);
  const Tensor mean = x.mean(dims, true);
  const Tensor rstd = rsqrt((x - mean).square().mean(dims, true) + eps);
  const Tensor xhat = (x - mean) * rstd;
  Tensor gx, gw, gb;
  if (n.needs_input_grad(0)) {
    const Tensor gxhat = weight.defined() ? g * weight : g;
    gx = (gxhat - gxhat.mean(dims, true) - xhat * (gxhat * xhat).mean(dims, true)) * rstd;
  }
  if (n.needs_input_grad(1)) gw = sum_to(g * xhat, weight.sizes());
  if (n.needs_input_grad(2)) gb = sum_to(g, n.input_meta()[2].sizes);  // bias: normalized_shape
  return {gx, gw, gb};
}

tensor_list layer_norm_backward_fused(const Tensor& g, const Tensor& x, const Tensor& weight,
                                      const Tensor& mean, const Tensor& rstd,
                                      IntArrayRef normalized_shape, Node& n) {
  const Tensor dx = n.needs_input_grad(0) ? empty(x.sizes(), x.options()) : Tensor();
  const Tensor dw = n.needs_input_grad(1) ? empty(normalized_shape, param_options(weight, x)) : Tensor();
  const Tensor db = n.needs_input_grad(2) ? empty(normalized_shape, param_options(weight, x)) : Tensor();
  const Tensor xc = detail::contiguous_for_kernel(x), gc = detail::contiguous_for_kernel(g);
  const Tensor wc = contiguous_or_undefined(weight);
  kernels().normalization.layer_norm_backward.on(x.device(), "layer_norm_backward")(
      xc, gc, mean, rstd, wc, dx, dw, db);
  return {dx, dw, db};
}

void check_layer_norm(const Tensor& x, IntArrayRef normalized_shape, const Tensor& weight,
                      const Tensor& bias) {
  EMBER_CHECK(!normalized_shape.empty(),
              "layer_norm: normalized_shape must name at least one dim, got []");
  const int64_t lead = x.dim() - static_cast<int64_t>(normalized_shape.size());
  EMBER_CHECK(lead >= 0 && x.sizes().slice(lead, normalized_shape.size()) == normalized_shape,
              "layer_norm: normalized_shape ", normalized_shape,
              " does not match the last dims of the input ", x.sizes());
  EMBER_CHECK(x.is_floating_point(), "layer_norm: expected a floating point input, got ",
              x.scalar_type());
  check_param("layer_norm", "weight", weight, normalized_shape, x,
              "normalized_shape, the last dims");
  check_param("layer_norm", "bias", bias, normalized_shape, x, "normalized_shape, the last dims");
}

}  // namespace

Tensor batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias,
                  const Tensor& running_mean, const Tensor& running_var, bool training,
                  double momentum, double eps, bool /*cudnn_enabled*/) {
  check_batch_norm(x, weight, bias, running_mean, running_var, training);
  const int64_t c = x.size(1);
  const Tensor xc = detail::contiguous_for_kernel(x);
  const Tensor w = contiguous_or_undefined(weight), b = contiguous_or_undefined(bias);
  Tensor y = empty(x.sizes(), x.options());
  Tensor mean, invstd;
  if (training && x.numel() == 0) {  // nothing to normalize; the running statistics stay
    mean = zeros({c}, stats_options(x));
    invstd = zeros({c}, stats_options(x));
  } else if (training) {
    mean = empty({c}, stats_options(x));
    invstd = empty({c}, stats_options(x));
    if (uses_cudnn(x, eps, running_mean, running_var)) {
      // cuDNN updates the running statistics itself, in place.
      kernels().normalization.cudnn_batch_norm_train_forward.on(x.device(), "batch_norm")(
          xc, w, b, eps, momentum, running_mean, running_var, y, mean, invstd);
      if (running_mean.defined()) {
        running_mean.impl()->bump_version();
        running_var.impl()->bump_version();
      }
    } else {
      const Tensor var = empty({c}, stats_options(x));
      kernels().normalization.batch_norm_train_forward.on(x.device(), "batch_norm")(
          xc, w, b, eps, y, mean, var, invstd);
      update_running_stats(x, running_mean, running_var, mean, var, momentum);
    }
  } else {
    NoGradGuard guard;
    // Copies: backward must not see later updates of the running statistics.
    mean = running_mean.contiguous().clone();
    invstd = rsqrt(running_var + eps).contiguous();
    if (x.numel() > 0) {
      kernels().normalization.batch_norm_apply.on(x.device(), "batch_norm")(xc, mean, invstd, w,
                                                                            b, y);
    }
  }
  if (autograd::needs_grad(x, weight, bias)) {
    auto node = autograd::make_node(
        // derivative of batch_norm: d/dx = w·invstd·(g - mean(g) - x̂·mean(g·x̂)) in training (w·invstd·g in eval), d/dw = sum(g·x̂), d/dbias = sum(g), x̂ = (x - mean)·invstd
        "BatchNormBackward", {x, weight, bias}, [training, eps](Node& n, const tensor_list& g) {
          const Tensor x = n.saved(0), w = n.saved(1), mean = n.saved(2), invstd = n.saved(3);
          if (GradMode::is_enabled())
            return batch_norm_backward_composed(g[0], x, w, mean, invstd, training, eps, n);
          return batch_norm_backward_fused(g[0], x, w, mean, invstd, training, eps, n);
        });
    node->save(x);
    node->save(weight);
    node->save(mean);
    node->save(invstd);
    autograd::set_history(y, node);
  }
  return y;
}

Tensor batch_norm_relu(const Tensor& x, const Tensor& weight, const Tensor& bias,
                       const Tensor& running_mean, const Tensor& running_var, bool training,
                       double momentum, double eps) {
  check_batch_norm(x, weight, bias, running_mean, running_var, training);
  const NormalizationKernels& k = kernels().normalization;
  if (!training || x.numel() == 0 || !k.batch_norm_relu_train_forward.has(x.device().type()) ||
      uses_cudnn(x, eps, running_mean, running_var))
    return relu(batch_norm(x, weight, bias, running_mean, running_var, training, momentum, eps));
  const int64_t c = x.size(1);
  const Tensor w = contiguous_or_undefined(weight), b = contiguous_or_undefined(bias);
  Tensor y = empty(x.sizes(), x.options());
  const Tensor mean = empty({c}, stats_options(x)), var = empty({c}, stats_options(x)),
               invstd = empty({c}, stats_options(x));
  k.batch_norm_relu_train_forward.on(x.device(), "batch_norm")(detail::contiguous_for_kernel(x),
                                                              w, b, eps, y, mean, var, invstd);
  update_running_stats(x, running_mean, running_var, mean, var, momentum);
  if (autograd::needs_grad(x, weight, bias)) {
    auto node = autograd::make_node(
        // derivative of batch_norm_relu: batch_norm's (training) of g where z = batch_norm(x) > 0, else 0
        "BatchNormReluBackward", {x, weight, bias}, [eps](Node& n, const tensor_list& g) {
          return batch_norm_relu_backward(g[0], n.saved(0), n.saved(1), n.saved(2), n.saved(3),
                                          n.saved(4), eps, n);
        });
    node->save(x);
    node->save(weight);
    node->save(bias);
    node->save(mean);
    node->save(invstd);
    autograd::set_history(y, node);
  }
  return y;
}

Tensor layer_norm(const Tensor& x, IntArrayRef normalized_shape, const Tensor& weight,
                  const Tensor& bias, double eps) {
  if (const auto to = autocast::cast_dtype(autocast::kCudaFloat32Op, {&x, &weight, &bias}))
    return layer_norm(autocast::cast(x, *to), normalized_shape, autocast::cast(weight, *to), autocast::cast(bias, *to), eps);
  check_layer_norm(x, normalized_shape, weight, bias);
  const int64_t norm_dims = static_cast<int64_t>(normalized_shape.size());
  const int64_t k = compute_numel(normalized_shape);
  const int64_t rows = compute_numel(x.sizes().slice(0, x.dim() - norm_dims));
  Tensor y = empty(x.sizes(), x.options());
  const Tensor mean = empty({rows}, stats_options(x)), rstd = empty({rows}, stats_options(x));
  if (rows * k > 0) {
    const Tensor xc = detail::contiguous_for_kernel(x);
    const Tensor w = contiguous_or_undefined(weight), b = contiguous_or_undefined(bias);
    kernels().normalization.layer_norm_forward.on(x.device(), "layer_norm")(xc, w, b, eps, y,
                                                                            mean, rstd);
  }
  if (autograd::needs_grad(x, weight, bias)) {
    const DimVector shape(normalized_shape);
    auto node = autograd::make_node(
        // derivative of layer_norm, group_norm: d/dx = rstd·(ĝ - mean(ĝ) - x̂·mean(ĝ·x̂)), ĝ = g·w, over the normalized dims; d/dw = sum(g·x̂), d/dbias = sum(g)
        "LayerNormBackward", {x, weight, bias},
        [norm_dims, shape, eps](Node& n, const tensor_list& g) {
          const Tensor x = n.saved(0), w = n.saved(1);
          if (GradMode::is_enabled())
            return layer_norm_backward_composed(g[0], x, w, norm_dims, eps, n);
          return layer_norm_backward_fused(g[0], x, w, n.saved(2), n.saved(3), shape, n);
        });
    node->save(x);
    node->save(weight);
    node->save(mean);
    node->save(rstd);
    autograd::set_history(y, node);
  }
  return y;
}

Tensor group_norm(const Tensor& x, int64_t num_groups, const Tensor& weight, const Tensor& bias,
                  double eps) {
  if (const auto to = autocast::cast_dtype(autocast::kCudaFloat32Op, {&x, &weight, &bias}))
    return group_norm(autocast::cast(x, *to), num_groups, autocast::cast(weight, *to), autocast::cast(bias, *to), eps);
  EMBER_CHECK(x.dim() >= 2, "group_norm: expected an input of shape (N, C, *), got ", x.sizes());
  const int64_t n = x.size(0), c = x.size(1);
  EMBER_CHECK(num_groups > 0 && c % num_groups == 0, "group_norm: expected the ", c,
              " channels of input of shape ", x.sizes(), " to be divisible by num_groups, got ",
              num_groups);
  check_param("group_norm", "weight", weight, c, x, "the channels, dim 1");
  check_param("group_norm", "bias", bias, c, x, "the channels, dim 1");
  // Each (sample, group) is a row of layer_norm over its channels' elements.
  const int64_t per_group = c / num_groups * compute_numel(x.sizes().slice(2, x.dim() - 2));
  Tensor y = layer_norm(x.reshape({n, num_groups, per_group}), {per_group}, {}, {}, eps)
                 .view(x.sizes());
  DimVector channel_shape(x.dim(), 1);  // (1, C, 1, ..., 1)
  channel_shape[1] = c;
  if (weight.defined()) y = y * weight.view(channel_shape);
  if (bias.defined()) y = y + bias.view(channel_shape);
  return y;
}

}  // namespace ember
