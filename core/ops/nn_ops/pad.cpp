// pad and constant_pad_nd: one axis at a time, each a linear map along its dim
// (the pad table, kernels/common/pad_kernels.h) whose derivative is its
// adjoint and the adjoint's derivative the map again, as Note [Plane maps] in
// plane_map.h: gradients of every order with two kernels.
#include "ember/core/autocast.h"
#include "ember/core/ops/nn_ops/pad.h"

#include <string>

#include "ember/autograd/function.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/reduction/reduce_helpers.h"
#include "ember/kernels/common/kernel_registry.h"

namespace ember {

std::ostream& operator<<(std::ostream& os, PadMode mode) {
  switch (mode) {
    case PadMode::Constant: return os << "kConstant";
    case PadMode::Reflect: return os << "kReflect";
    case PadMode::Replicate: return os << "kReplicate";
    case PadMode::Circular: return os << "kCircular";
  }
  return os << "PadMode(" << static_cast<int>(mode) << ")";
}

namespace {

using functors::PadAxis;

// The map along `dim` (x has a.in elements there; with `value` where the
// source is -1) or, with `adjoint`, its adjoint (x has a.out elements there).
Tensor apply_axis(const Tensor& x, const PadAxis& a, int64_t dim, double value, bool adjoint) {
  DimVector sizes(x.sizes());
  sizes[dim] = adjoint ? a.in : a.out;
  Tensor out = empty(sizes, x.options());
  if (out.numel() > 0) {
    const Tensor xc = detail::contiguous_for_kernel(x);
    int64_t inner = 1;
    for (int64_t d = dim + 1; d < x.dim(); ++d) inner *= x.size(d);
    if (adjoint)
      kernels().pad.axis_backward.on(x.device(), "pad_backward")(xc, a, inner, out);
    else
      kernels().pad.axis.on(x.device(), "pad")(xc, a, inner, value, out);
  }
  if (autograd::needs_grad(x)) {
    // derivative of pad: PadBackward: d/dx = g with each padded element's gradient summed back onto the element it copies (constant padding: dropped); PadBackwardBackward: d/dg = pad(gg) again
    auto node = autograd::make_node(adjoint ? "PadBackwardBackward" : "PadBackward", {x},
                                    [a, dim, adjoint](autograd::Node&, const tensor_list& g) {
                                      return tensor_list{apply_axis(g[0], a, dim, 0.0, !adjoint)};
                                    });
    autograd::set_history(out, node);
  }
  return out;
}

void check_pad(const Tensor& x, IntArrayRef pad, PadMode mode, double value) {
  const int64_t dims = static_cast<int64_t>(pad.size()) / 2;
  EMBER_CHECK(pad.size() % 2 == 0 && dims <= x.dim(), "pad: expected an even number of pads, "
              "two per padded dim and at most ", 2 * x.dim(), " for an input of shape ",
              x.sizes(), ", got ", pad);
  EMBER_CHECK(x.is_floating_point(), "pad: expected a floating point input, got ",
              x.scalar_type());
  if (mode != kConstant) {
    EMBER_CHECK(dims >= 1 && dims <= 3 && (x.dim() == dims + 1 || x.dim() == dims + 2), "pad: ",
                mode, " pads 1, 2 or 3 dims of an input with one or two dims more (channels, "
                "and a batch or not), got ", pad.size(), " pads for an input of shape ",
                x.sizes());
    EMBER_CHECK(value == 0.0, "pad: ", mode, " takes no value, got ", value);
  }
  for (int64_t k = 0; k < dims; ++k) {
    const int64_t dim = x.dim() - 1 - k, size = x.size(dim);
    const int64_t before = pad[2 * k], after = pad[2 * k + 1];
    EMBER_CHECK(size + before + after >= 0, "pad: dim ", dim, " of size ", size, " padded by (",
                before, ", ", after, ") of shape ", x.sizes(), " would have a negative size");
    if (mode == kReflect)
      EMBER_CHECK(before < size && after < size, "pad: kReflect needs pads below the size of "
                  "the dim they pad, got (", before, ", ", after, ") for dim ", dim,
                  " of shape ", x.sizes());
    if (mode == kCircular || mode == kReplicate)
      EMBER_CHECK(size > 0 && (mode == kReplicate || (before <= size && after <= size)), "pad: ",
                  mode, " needs a non-empty dim", mode == kCircular ? " and pads at most its size"
                  : "", ", got (", before, ", ", after, ") for dim ", dim, " of shape ",
                  x.sizes());
  }
}

}  // namespace

Tensor pad(const Tensor& input, IntArrayRef pad, PadMode mode, double value) {
  // Autocast: reflection and replication padding are on the CPU's float32 list.
  if (mode == PadMode::Reflect || mode == PadMode::Replicate)
    if (const auto to = autocast::cast_dtype(autocast::kCpuFloat32Op, {&input})) {
      const autocast::Suspend as_listed(DeviceType::CPU);  // its inner ops as called
      return ember::pad(autocast::cast(input, *to), pad, mode, value);
    }
  check_pad(input, pad, mode, value);
  Tensor y = input;
  for (size_t k = 0; 2 * k < pad.size(); ++k) {
    const int64_t dim = input.dim() - 1 - static_cast<int64_t>(k), size = input.size(dim);
    const int64_t before = pad[2 * k], after = pad[2 * k + 1];
    if (before == 0 && after == 0) continue;
    y = apply_axis(y, PadAxis{size, size + before + after, before, mode}, dim, value, false);
  }
  // All pads zero: a copy all the same, as PyTorch's result never aliases its input.
  return y.is_same(input) ? input.clone() : y;
}

Tensor constant_pad_nd(const Tensor& input, IntArrayRef pad, const Scalar& value) {
  return ember::pad(input, pad, kConstant, value.to<double>());
}

}  // namespace ember
