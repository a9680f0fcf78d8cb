// See Note [Plane maps] in plane_map.h.
#include "ember/core/ops/nn_ops/plane_map.h"

#include "ember/autograd/function.h"
#include "ember/core/ops/elementwise/elementwise_helpers.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/reduction/reduce_helpers.h"

namespace ember::detail {

Tensor apply_plane_map(const Tensor& x, const std::shared_ptr<const PlaneMap>& m, bool adjoint) {
  const int64_t in_h = adjoint ? m->out_h : m->in_h, in_w = adjoint ? m->out_w : m->in_w;
  const int64_t out_h = adjoint ? m->in_h : m->out_h, out_w = adjoint ? m->in_w : m->out_w;
  const int64_t nd = x.dim();
  EMBER_INTERNAL_ASSERT(nd >= 2 && x.size(-2) == in_h && x.size(-1) == in_w, m->name,
                        ": plane map applied to shape ", x.sizes());
  DimVector out_sizes(x.sizes());
  out_sizes[nd - 2] = out_h;
  out_sizes[nd - 1] = out_w;
  Tensor out = empty(out_sizes, x.options());
  if (out.numel() > 0) (adjoint ? m->adjoint : m->map)(contiguous_for_kernel(x), out);
  if (autograd::needs_grad(x)) {
    auto node = autograd::make_node(adjoint ? m->adjoint_name : m->name, {x},
                                    [m, adjoint](autograd::Node&, const tensor_list& g) {
                                      return tensor_list{apply_plane_map(g[0], m, !adjoint)};
                                    });
    autograd::set_history(out, node);
  }
  return out;
}

void check_planes_input(const char* op, const Tensor& x) {
  const bool shape_ok =
      (x.dim() == 3 || x.dim() == 4) && x.size(-1) > 0 && x.size(-2) > 0 && x.size(-3) > 0;
  EMBER_CHECK(shape_ok, op,
              ": expected a 3-d (C, H, W) or 4-d (N, C, H, W) input with non-zero "
              "C, H and W, got shape ",
              x.sizes());
  EMBER_CHECK(x.is_floating_point(), op, ": expected a floating point input, got ",
              x.scalar_type());
}

Pair expand_pair(const char* op, const char* what, IntArrayRef v) {
  EMBER_CHECK(v.size() == 1 || v.size() == 2, op, ": ", what,
              " must be one value or two (height, width), got ", v);
  return v.size() == 1 ? Pair{v[0], v[0]} : Pair{v[0], v[1]};
}

}  // namespace ember::detail
