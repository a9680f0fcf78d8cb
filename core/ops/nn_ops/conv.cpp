// conv2d and conv_transpose2d (NCHW): argument checks, then three
// differentiable primitives that run the passes of the conv kernel table
// (kernels/common/conv_kernels.h: the CPU algorithms, or cuDNN for CUDA
// tensors) on contiguous operands.
//
// Note [Conv primitives]
// A problem p (x: (N, C, H, W) * w: (K, C/groups, R, S) -> y: (N, K, OH, OW))
// has three passes. Each is bilinear, and with T(x, w, gy) = <conv(x, w), gy>
// each is a partial derivative of T:
//   forward          y  = F(x, w)  = dT/dgy
//   backward-data    gx = D(gy, w) = dT/dx    (conv_transpose2d's forward)
//   backward-weight  gw = W(x, gy) = dT/dw
// So the derivative of each primitive is made of the other two:
//   F: dx = D(g, w),  dw = W(x, g)
//   D: dgy = F(g, w), dw = W(g, gy)
//   W: dx = D(gy, g), dgy = F(x, g)
// Every primitive records a node that calls primitives, so a graph built
// with create_graph=true differentiates again, to any order.
#include "ember/core/ops/nn_ops/conv.h"

#include <array>

#include "ember/autograd/function.h"
#include "ember/core/autocast.h"
#include "ember/core/ops/elementwise/elementwise_helpers.h"
#include "ember/core/ops/elementwise/unary.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/nn_ops/pad.h"
#include "ember/core/ops/reduction/reduce.h"
#include "ember/kernels/common/kernel_registry.h"

namespace ember {

using autograd::Node;

namespace {

// user_call: false for the forwards that backward passes run (their weights are gradients or
// change at every step), so they are never treated as inference (ConvParams::inference).
// relu: the output goes through relu, in the kernel's output pass when nothing records.
Tensor conv_forward(const Tensor& x, const Tensor& w, const Tensor& bias, const ConvParams& p,
                    bool user_call = true, bool relu = false);
Tensor conv_backward_data(const Tensor& gy, const Tensor& w, const Tensor& bias,
                          const ConvParams& p);
Tensor conv_backward_weight(const Tensor& x, const Tensor& gy, const ConvParams& p);

// The bias of either direction adds to every position of a channel.
Tensor bias_grad(const Tensor& g) { return g.sum({0, 2, 3}); }

Tensor contiguous_or_undefined(const Tensor& t) { return t.defined() ? t.contiguous() : t; }

// An output whose reduction is empty (no input channels, no output channels,
// or no images): the bias on each channel, or zeros.
Tensor bias_only(IntArrayRef shape, const Tensor& bias, const TensorOptions& options) {
  if (!bias.defined()) return zeros(shape, options);
  return bias.reshape({1, bias.size(0), 1, 1}).expand(shape).contiguous();
}

Tensor conv_forward(const Tensor& x, const Tensor& w, const Tensor& bias, const ConvParams& p,
                    bool user_call, bool relu) {
  Tensor y;
  const bool records = autograd::needs_grad_list({x, w, bias});
  if (relu && records) return ember::relu(conv_forward(x, w, bias, p, user_call));
  ConvParams pass_params = p;
  pass_params.inference = user_call && !records;
  pass_params.relu = relu;
  {
    NoGradGuard no_grad;
    const DimVector shape{p.n, p.k, p.out_h(), p.out_w()};
    if (p.n * p.k == 0 || p.c == 0) {
      y = bias_only(shape, bias, x.options());
      if (relu) y = ember::relu(y);
    } else {
      y = empty(shape, x.options());
      const Tensor xc = x.contiguous(), wc = w.contiguous(), bc = contiguous_or_undefined(bias);
      kernels().conv.forward.on(x.device(), "conv2d")(xc, wc, bc, y, pass_params);
    }
  }
  if (records) {
    // derivative of conv2d, conv1d: d/dx = conv_transpose(g, w), d/dw = correlation of x with g, d/dbias = g summed over N, H, W
    auto node = autograd::make_node("ConvolutionBackward", {x, w, bias},
        [p](Node& n, const tensor_list& g) {
          Tensor gx, gw, gb;
          if (n.needs_input_grad(0)) gx = conv_backward_data(g[0], n.saved(1), {}, p);
          if (n.needs_input_grad(1)) gw = conv_backward_weight(n.saved(0), g[0], p);
          if (n.needs_input_grad(2)) gb = bias_grad(g[0]);
          return tensor_list{gx, gw, gb};
        });
    node->save(node->needs_input_grad(1) ? x : Tensor());
    node->save(node->needs_input_grad(0) ? w : Tensor());
    autograd::set_history(y, node);
  }
  return y;
}

Tensor conv_backward_data(const Tensor& gy, const Tensor& w, const Tensor& bias,
                          const ConvParams& p) {
  Tensor gx;
  {
    NoGradGuard no_grad;
    const DimVector shape{p.n, p.c, p.h, p.w};
    if (p.n * p.c == 0 || p.k == 0) {
      gx = bias_only(shape, bias, gy.options());
    } else {
      gx = empty(shape, gy.options());
      const Tensor gyc = gy.contiguous(), wc = w.contiguous(), bc = contiguous_or_undefined(bias);
      kernels().conv.backward_data.on(gy.device(), "conv_transpose2d")(gyc, wc, bc, gx, p);
    }
  }
  if (autograd::needs_grad_list({gy, w, bias})) {
    // derivative of conv_transpose2d, conv2d: d/dgy = conv(g, w), d/dw = correlation of g with gy, d/dbias = g summed over N, H, W
    auto node = autograd::make_node("ConvolutionBackwardData", {gy, w, bias},
        [p](Node& n, const tensor_list& g) {
          Tensor ggy, gw, gb;
          if (n.needs_input_grad(0)) ggy = conv_forward(g[0], n.saved(1), {}, p, false);
          if (n.needs_input_grad(1)) gw = conv_backward_weight(g[0], n.saved(0), p);
          if (n.needs_input_grad(2)) gb = bias_grad(g[0]);
          return tensor_list{ggy, gw, gb};
        });
    node->save(node->needs_input_grad(1) ? gy : Tensor());
    node->save(node->needs_input_grad(0) ? w : Tensor());
    autograd::set_history(gx, node);
  }
  return gx;
}

Tensor conv_backward_weight(const Tensor& x, const Tensor& gy, const ConvParams& p) {
  Tensor gw;
  {
    NoGradGuard no_grad;
    const DimVector shape{p.k, p.c / p.groups, p.r, p.s};
    if (p.n == 0 || p.k * p.c == 0) {
      gw = zeros(shape, x.options());
    } else {
      gw = empty(shape, x.options());
      const Tensor xc = x.contiguous(), gyc = gy.contiguous();
      kernels().conv.backward_weight.on(x.device(), "conv2d")(xc, gyc, gw, p);
    }
  }
  if (autograd::needs_grad(x, gy)) {
    // derivative of conv2d: recorded by its backward, d/dx = conv_transpose(gy, g), d/dgy = conv(x, g)
    auto node = autograd::make_node("ConvolutionBackwardWeight", {x, gy},
        [p](Node& n, const tensor_list& g) {
          Tensor gx, ggy;
          if (n.needs_input_grad(0)) gx = conv_backward_data(n.saved(1), g[0], {}, p);
          if (n.needs_input_grad(1)) ggy = conv_forward(n.saved(0), g[0], {}, p, false);
          return tensor_list{gx, ggy};
        });
    node->save(node->needs_input_grad(1) ? x : Tensor());
    node->save(node->needs_input_grad(0) ? gy : Tensor());
    autograd::set_history(gw, node);
  }
  return gw;
}

// ---- argument checks ----

// A stride/padding/dilation argument: one value for both dims or {h, w}.
std::array<int64_t, 2> pair_arg(const char* op, const char* name, IntArrayRef v) {
  EMBER_CHECK(v.size() == 1 || v.size() == 2, op, ": ", name,
              " must have one value or two (h, w), got ", v);
  return {v[0], v[v.size() - 1]};
}

void check_tensors(const char* op, const Tensor& input, const Tensor& weight, const Tensor& bias) {
  EMBER_CHECK(input.defined() && weight.defined(), op, ": input and weight must be defined");
  detail::check_same_device(op, input, weight);
  if (bias.defined()) detail::check_same_device(op, input, bias);
  EMBER_CHECK(is_floating_point(input.scalar_type()), op, ": expected a float32 or float64 input, "
              "got ", input.scalar_type());
  const char* bias_dtype = bias.defined() ? dtype_name(bias.scalar_type()) : "";
  EMBER_CHECK(weight.scalar_type() == input.scalar_type() &&
                  (!bias.defined() || bias.scalar_type() == input.scalar_type()),
              op, ": input, weight and bias must have the same dtype, got input ",
              input.scalar_type(), ", weight ", weight.scalar_type(),
              bias.defined() ? ", bias " : "", bias_dtype);
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4, op, ": expected a 3-d (C, H, W) or 4-d "
              "(N, C, H, W) input, got input of shape ", input.sizes());
  EMBER_CHECK(weight.dim() == 4, op, ": expected a 4-d weight, got weight of shape ",
              weight.sizes());
}

// The geometry arguments shared by both ops; fills p's stride/padding/dilation/groups.
void check_geometry(const char* op, ConvParams& p, IntArrayRef stride, IntArrayRef padding,
                    IntArrayRef dilation, int64_t groups) {
  p.stride = pair_arg(op, "stride", stride);
  p.padding = pair_arg(op, "padding", padding);
  p.dilation = pair_arg(op, "dilation", dilation);
  p.groups = groups;
  EMBER_CHECK(p.stride[0] > 0 && p.stride[1] > 0, op, ": stride must be positive, got ", stride);
  EMBER_CHECK(p.padding[0] >= 0 && p.padding[1] >= 0, op, ": padding must be non-negative, got ",
              padding);
  EMBER_CHECK(p.dilation[0] > 0 && p.dilation[1] > 0, op, ": dilation must be positive, got ",
              dilation);
  EMBER_CHECK(groups > 0, op, ": groups must be positive, got ", groups);
}

// Runs `f` on a 4-d input; an unbatched (C, H, W) input gains and loses a batch dim of 1.
template <typename F>
Tensor with_batch_dim(const Tensor& input, const F& f) {
  if (input.dim() == 4) return f(input);
  return f(input.unsqueeze(0)).squeeze(0);
}

}  // namespace

namespace {

// x: (N, C, H, W), weight: (K, C/groups, R, S), bias: (K) -> (N, K, OH, OW); op names the
// errors.
Tensor conv2d_checked(const char* op, const Tensor& input, const Tensor& weight,
                      const Tensor& bias, IntArrayRef stride, IntArrayRef padding,
                      IntArrayRef dilation, int64_t groups, bool relu) {
  check_tensors(op, input, weight, bias);
  ConvParams p;
  check_geometry(op, p, stride, padding, dilation, groups);
  return with_batch_dim(input, [&](const Tensor& x) {
    p.n = x.size(0), p.c = x.size(1), p.h = x.size(2), p.w = x.size(3);
    p.k = weight.size(0), p.r = weight.size(2), p.s = weight.size(3);
    p.dtype = x.scalar_type();
    EMBER_CHECK(p.k % groups == 0, op, ": weight of shape ", weight.sizes(), ": out channels ",
                p.k, " are not divisible by groups ", groups);
    EMBER_CHECK(p.c == weight.size(1) * groups, op, ": input of shape ", input.sizes(), " has ",
                p.c, " channels, but weight of shape ", weight.sizes(), " with groups ", groups,
                " expects ", weight.size(1) * groups);
    EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == p.k), op,
                ": expected a bias of shape [", p.k, "] for weight of shape ", weight.sizes(),
                ", got bias of shape ", bias.sizes());
    // Checked on the sizes, not on out_h(): with a stride, a padded input a
    // little smaller than the kernel would still round to one output.
    const int64_t padded_h = p.h + 2 * p.padding[0], padded_w = p.w + 2 * p.padding[1];
    const int64_t span_h = p.dilation[0] * (p.r - 1) + 1, span_w = p.dilation[1] * (p.s - 1) + 1;
    EMBER_CHECK(padded_h >= span_h && padded_w >= span_w, op, ": input of shape ", input.sizes(),
                " padded by ", padding, " is [", padded_h, ", ", padded_w,
                "], smaller than the kernel of weight ", weight.sizes(), " with dilation ",
                dilation, ", which spans [", span_h, ", ", span_w, "]");
    return conv_forward(x, weight, bias, p, true, relu);
  });
}

}  // namespace

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  if (const auto to = autocast::cast_dtype(autocast::kLowerPrecisionOp, {&input, &weight, &bias}))
    return conv2d(autocast::cast(input, *to), autocast::cast(weight, *to), autocast::cast(bias, *to), stride, padding, dilation, groups);
  return conv2d_checked("conv2d", input, weight, bias, stride, padding, dilation, groups, false);
}

Tensor conv2d_relu(const Tensor& input, const Tensor& weight, const Tensor& bias,
                   IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  // A conv2d to autocast (Sequential's fused blocks keep their precision).
  if (const auto to = autocast::cast_dtype(autocast::kLowerPrecisionOp, {&input, &weight, &bias}))
    return conv2d_relu(autocast::cast(input, *to), autocast::cast(weight, *to),
                       autocast::cast(bias, *to), stride, padding, dilation, groups);
  return conv2d_checked("conv2d", input, weight, bias, stride, padding, dilation, groups, true);
}

// x: (N, C_in, H, W), weight: (C_in, C_out/groups, R, S), bias: (C_out) -> (N, C_out, H', W')
// with H' = (H - 1) * stride - 2 * padding + dilation * (R - 1) + output_padding + 1. It is the
// backward-data pass of the conv from (N, C_out, H', W') to x's shape with the same weight.
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding,
                        int64_t groups, IntArrayRef dilation) {
  if (const auto to = autocast::cast_dtype(autocast::kCudaLowerPrecisionOp, {&input, &weight, &bias}))
    return conv_transpose2d(autocast::cast(input, *to), autocast::cast(weight, *to), autocast::cast(bias, *to), stride, padding, output_padding, groups, dilation);
  constexpr const char* op = "conv_transpose2d";
  check_tensors(op, input, weight, bias);
  ConvParams p;
  check_geometry(op, p, stride, padding, dilation, groups);
  const std::array<int64_t, 2> out_pad = pair_arg(op, "output_padding", output_padding);
  for (int d = 0; d < 2; ++d)
    EMBER_CHECK(out_pad[d] >= 0 && (out_pad[d] < p.stride[d] || out_pad[d] < p.dilation[d]), op,
                ": output_padding must be non-negative and smaller than the stride ", stride,
                " or the dilation ", dilation, ", got ", output_padding);
  return with_batch_dim(input, [&](const Tensor& x) {
    const int64_t c_in = x.size(1), h_in = x.size(2), w_in = x.size(3);
    EMBER_CHECK(weight.size(0) == c_in, op, ": input of shape ", input.sizes(), " has ", c_in,
                " channels, but weight of shape ", weight.sizes(), " expects ", weight.size(0));
    EMBER_CHECK(c_in % groups == 0, op, ": weight of shape ", weight.sizes(), ": in channels ",
                c_in, " are not divisible by groups ", groups);
    p.n = x.size(0), p.k = c_in, p.c = weight.size(1) * groups;
    p.r = weight.size(2), p.s = weight.size(3);
    p.h = (h_in - 1) * p.stride[0] - 2 * p.padding[0] + p.dilation[0] * (p.r - 1) + out_pad[0] + 1;
    p.w = (w_in - 1) * p.stride[1] - 2 * p.padding[1] + p.dilation[1] * (p.s - 1) + out_pad[1] + 1;
    p.dtype = x.scalar_type();
    EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == p.c), op,
                ": expected a bias of shape [", p.c, "] for weight of shape ", weight.sizes(),
                ", got bias of shape ", bias.sizes());
    EMBER_CHECK(h_in > 0 && w_in > 0 && p.h > 0 && p.w > 0, op, ": input of shape ",
                input.sizes(), " with weight of shape ", weight.sizes(), ", padding ", padding,
                ", dilation ", dilation, " and stride ", stride, " gives an output of size [", p.h,
                ", ", p.w, "]: the output is too small");
    if (out_pad[0] >= p.stride[0] || out_pad[1] >= p.stride[1]) {
      // output_padding at or past the stride (allowed below the dilation): the
      // conv of the result would not come back to x's size, so the kernels
      // cannot run it as their backward-data pass. The unpadded transposed
      // conv is cut by `padding` at the start and cut or zero-extended at the
      // end to the size, then the bias added: ember ops, derived by autograd.
      const Tensor full = conv_transpose2d(x, weight, {}, stride, 0, 0, groups, dilation);
      const Tensor out =
          constant_pad_nd(full, {-p.padding[1], out_pad[1] - p.padding[1], -p.padding[0],
                                 out_pad[0] - p.padding[0]});
      return bias.defined() ? out + bias.view({1, -1, 1, 1}) : out;
    }
    return conv_backward_data(x, weight, bias, p);
  });
}

}  // namespace ember
