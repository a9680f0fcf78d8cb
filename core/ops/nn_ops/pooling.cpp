// max_pool2d (with indices), avg_pool2d and adaptive_avg_pool2d: argument
// checks and output sizes as PyTorch; the kernels through the pooling table
// (kernels/common/pooling_kernels.h). Derivatives: max pooling scatters
// the gradient to the argmax with scatter_add (whose derivative is a gather;
// a fused kernel on CUDA when backward is not recorded); the average poolings
// are plane maps (Note [Plane maps] in plane_map.h). Both can be
// differentiated again.
#include "ember/core/ops/nn_ops/pooling.h"

#include "ember/autograd/function.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/indexing/indexing.h"
#include "ember/core/ops/nn_ops/plane_map.h"
#include "ember/core/ops/reduction/reduce_helpers.h"
#include "ember/core/shape.h"
#include "ember/kernels/common/kernel_registry.h"
#include "ember/kernels/common/pooling_functors.h"

namespace ember {

using autograd::Node;
using detail::Pair;
using detail::PlaneMap;
using functors::PoolWindow;

namespace {

int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

// PyTorch's pooling_output_shape: with ceil_mode, the last window must start
// inside the input or its left padding.
int64_t pooled_size(int64_t in, int64_t kernel, int64_t pad, int64_t stride, int64_t dilation,
                    bool ceil_mode) {
  const int64_t span = in + 2 * pad - dilation * (kernel - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = floor_div(span, stride) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

// Whether some output's window reads padding only (taps of a dilated kernel
// stepping over the input).
bool has_empty_window(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t pad,
                      int64_t dilation) {
  for (int64_t o = 0; o < out; ++o) {
    const functors::PoolSpan taps = functors::max_pool_span(o, in, kernel, stride, pad, dilation);
    if (taps.begin >= taps.end) return true;
  }
  return false;
}

struct PoolGeometry {
  PoolWindow window;
  int64_t out_h, out_w;
};

PoolGeometry pool_geometry(const char* op, const Tensor& x, IntArrayRef kernel_size,
                           IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                           bool ceil_mode) {
  detail::check_planes_input(op, x);
  const Pair k = detail::expand_pair(op, "kernel_size", kernel_size);
  const Pair s = stride.empty() ? k : detail::expand_pair(op, "stride", stride);
  const Pair p = detail::expand_pair(op, "padding", padding);
  const Pair d = detail::expand_pair(op, "dilation", dilation);
  EMBER_CHECK(k.h > 0 && k.w > 0, op, ": kernel_size must be positive, got ", kernel_size);
  EMBER_CHECK(s.h > 0 && s.w > 0, op, ": stride must be positive, got ", stride);
  EMBER_CHECK(d.h > 0 && d.w > 0, op, ": dilation must be positive, got ", dilation);
  EMBER_CHECK(p.h >= 0 && p.w >= 0, op, ": padding must be non-negative, got ", padding);
  EMBER_CHECK(p.h <= k.h / 2 && p.w <= k.w / 2, op,
              ": padding should be at most half of the kernel size, got padding (", p.h, ", ", p.w,
              ") and kernel_size (", k.h, ", ", k.w, ")");
  const int64_t in_h = x.size(-2), in_w = x.size(-1);
  const int64_t out_h = pooled_size(in_h, k.h, p.h, s.h, d.h, ceil_mode);
  const int64_t out_w = pooled_size(in_w, k.w, p.w, s.w, d.w, ceil_mode);
  EMBER_CHECK(out_h > 0 && out_w > 0, op, ": the kernel (", k.h, ", ", k.w, ") with dilation (",
              d.h, ", ", d.w, ") is larger than the padded input ", x.sizes(), " (padding (", p.h,
              ", ", p.w, ")): the output would be ", out_h, "x", out_w);
  // A dilated window can fall between input elements, all its taps in the
  // padding: it would have no maximum and no index to send a gradient to.
  EMBER_CHECK(!has_empty_window(in_h, out_h, k.h, s.h, p.h, d.h) &&
                  !has_empty_window(in_w, out_w, k.w, s.w, p.w, d.w),
              op, ": with kernel_size (", k.h, ", ", k.w, "), stride (", s.h, ", ", s.w,
              "), padding (", p.h, ", ", p.w, ") and dilation (", d.h, ", ", d.w,
              ") a window over input ", x.sizes(), " holds no input element, only padding");
  return {{k.h, k.w, s.h, s.w, p.h, p.w, d.h, d.w}, out_h, out_w};
}

DimVector with_planes(IntArrayRef sizes, int64_t h, int64_t w) {
  DimVector out(sizes);
  out[out.size() - 2] = h;
  out[out.size() - 1] = w;
  return out;
}

// dx (x_sizes) = g added at the argmax positions (indices: flat positions in
// each plane) with scatter_add, which records its own derivative.
Tensor scatter_to_argmax(const Tensor& g, const Tensor& indices, IntArrayRef x_sizes) {
  const int64_t plane = x_sizes[x_sizes.size() - 2] * x_sizes[x_sizes.size() - 1];
  const int64_t planes = compute_numel(x_sizes) / plane;
  const int64_t out_plane = g.size(-2) * g.size(-1);
  const Tensor flat_g = g.reshape({planes, out_plane});
  const Tensor flat_indices = indices.reshape({planes, out_plane});
  return scatter_add(zeros({planes, plane}, g.options()), 1, flat_indices, flat_g).view(x_sizes);
}

// max_pool2d's dx: the fused gather kernel where the device has one (CUDA),
// unless backward is recorded (create_graph); else scatter_to_argmax.
Tensor max_pool2d_backward(const Tensor& g, const Tensor& indices, IntArrayRef x_sizes,
                           const PoolWindow& w) {
  const auto& fused = kernels().pooling.max_pool2d_backward;
  if (fused.has(g.device().type()) && !GradMode::is_enabled()) {
    Tensor dx = empty(x_sizes, g.options());
    if (dx.numel() > 0)
      fused.on(g.device(), "max_pool2d_backward")(detail::contiguous_for_kernel(g), indices, dx,
                                                  w);
    return dx;
  }
  return scatter_to_argmax(g, indices, x_sizes);
}

// The kernels of a plane map (plane_map.h) through the pooling table, on the
// input's device.
PlaneMap::Kernel avg_pool2d_kernel(const PoolWindow& w, bool count_include_pad) {
  return [w, count_include_pad](const Tensor& in, const Tensor& out) {
    kernels().pooling.avg_pool2d.on(in.device(), "avg_pool2d")(in, out, w, count_include_pad);
  };
}
PlaneMap::Kernel avg_pool2d_backward_kernel(const PoolWindow& w, bool count_include_pad) {
  return [w, count_include_pad](const Tensor& in, const Tensor& out) {
    kernels().pooling.avg_pool2d_backward.on(in.device(), "avg_pool2d_backward")(
        in, out, w, count_include_pad);
  };
}
void adaptive_avg_pool2d_kernel(const Tensor& in, const Tensor& out) {
  kernels().pooling.adaptive_avg_pool2d.on(in.device(), "adaptive_avg_pool2d")(in, out);
}
void adaptive_avg_pool2d_backward_kernel(const Tensor& in, const Tensor& out) {
  kernels().pooling.adaptive_avg_pool2d_backward.on(in.device(), "adaptive_avg_pool2d_backward")(
      in, out);
}

}  // namespace

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& x, IntArrayRef kernel_size,
                                                   IntArrayRef stride, IntArrayRef padding,
                                                   IntArrayRef dilation, bool ceil_mode) {
  const PoolGeometry geo =
      pool_geometry("max_pool2d", x, kernel_size, stride, padding, dilation, ceil_mode);
  const DimVector out_sizes = with_planes(x.sizes(), geo.out_h, geo.out_w);
  Tensor out = empty(out_sizes, x.options());
  Tensor indices = empty(out_sizes, x.options().dtype(kLong));
  if (out.numel() > 0) {
    kernels().pooling.max_pool2d.on(x.device(), "max_pool2d")(detail::contiguous_for_kernel(x),
                                                              out, indices, geo.window);
  }
  if (autograd::needs_grad(x)) {
    const DimVector x_sizes(x.sizes());
    const PoolWindow w = geo.window;
    auto node = autograd::make_node(
        // derivative of max_pool2d_with_indices, max_pool2d: d/dx = g added at each window's argmax (scatter_add by indices)
        "MaxPool2dWithIndicesBackward", {x}, [x_sizes, w](Node& n, const tensor_list& g) {
          return tensor_list{max_pool2d_backward(g[0], n.saved(0), x_sizes, w)};
        });
    node->save(indices);
    autograd::set_history(out, node);
  }
  return {out, indices};
}

Tensor max_pool2d(const Tensor& x, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(max_pool2d_with_indices(x, kernel_size, stride, padding, dilation, ceil_mode));
}

Tensor avg_pool2d(const Tensor& x, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  bool ceil_mode, bool count_include_pad) {
  const PoolGeometry geo =
      pool_geometry("avg_pool2d", x, kernel_size, stride, padding, 1, ceil_mode);
  // derivative: AvgPool2dBackward: d/dx = g spread evenly over each window (the adjoint map); AvgPool2dBackwardBackward: d/dg = avg_pool2d(gg)
  auto map = std::make_shared<const detail::PlaneMap>(detail::PlaneMap{
      "AvgPool2dBackward", "AvgPool2dBackwardBackward", x.size(-2), x.size(-1), geo.out_h,
      geo.out_w, avg_pool2d_kernel(geo.window, count_include_pad),
      avg_pool2d_backward_kernel(geo.window, count_include_pad)});
  return detail::apply_plane_map(x, map, /*adjoint=*/false);
}

Tensor adaptive_avg_pool2d(const Tensor& x, IntArrayRef output_size) {
  detail::check_planes_input("adaptive_avg_pool2d", x);
  EMBER_CHECK(output_size.size() == 2 && output_size[0] > 0 && output_size[1] > 0,
              "adaptive_avg_pool2d: output_size must be two positive values (height, width), got ",
              output_size);
  // derivative: AdaptiveAvgPool2dBackward: d/dx = g spread evenly over each window (the adjoint map); AdaptiveAvgPool2dBackwardBackward: d/dg = adaptive_avg_pool2d(gg)
  auto map = std::make_shared<const detail::PlaneMap>(detail::PlaneMap{
      "AdaptiveAvgPool2dBackward", "AdaptiveAvgPool2dBackwardBackward", x.size(-2), x.size(-1),
      output_size[0], output_size[1],
      adaptive_avg_pool2d_kernel, adaptive_avg_pool2d_backward_kernel});
  return detail::apply_plane_map(x, map, /*adjoint=*/false);
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& x, IntArrayRef output_size) {
  detail::check_planes_input("adaptive_max_pool2d", x);
  EMBER_CHECK(output_size.size() == 2 && output_size[0] > 0 && output_size[1] > 0,
              "adaptive_max_pool2d: output_size must be two positive values (height, width), got ",
              output_size);
  const DimVector out_sizes = with_planes(x.sizes(), output_size[0], output_size[1]);
  Tensor out = empty(out_sizes, x.options());
  Tensor indices = empty(out_sizes, x.options().dtype(kLong));
  if (out.numel() > 0) {
    kernels().pooling.adaptive_max_pool2d.on(x.device(), "adaptive_max_pool2d")(
        detail::contiguous_for_kernel(x), out, indices);
  }
  if (autograd::needs_grad(x)) {
    const DimVector x_sizes(x.sizes());
    auto node = autograd::make_node(
        // derivative: d/dx = g added at each window's argmax (scatter_add by indices)
        "AdaptiveMaxPool2dBackward", {x}, [x_sizes](Node& n, const tensor_list& g) {
          return tensor_list{scatter_to_argmax(g[0], n.saved(0), x_sizes)};
        });
    node->save(indices);
    autograd::set_history(out, node);
  }
  return {out, indices};
}

}  // namespace ember
