// cumsum and cumprod: a running sum or product along one dim (the scan
// family's kernels, kernels/common/scan_kernels.h), derivatives written with
// ember ops.
#include "ember/core/ops/reduction/scan.h"

#include "ember/autograd/function.h"
#include "ember/autograd/grad_mode.h"
#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/elementwise/compare.h"
#include "ember/core/ops/elementwise/logical.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/reduction/reduce_helpers.h"
#include "ember/core/ops/shape/shape_ops.h"
#include "ember/kernels/common/kernel_registry.h"

namespace ember {

using autograd::Node;

namespace {

// Sums g from the end of dim d back to each position: the adjoint of cumsum.
Tensor reverse_cumsum(const Tensor& g, int64_t d) {
  return g.dim() == 0 ? g : flip(cumsum(flip(g, {d}), d), {d});
}

// The adjoint of out = cumprod(x) along d, zeros included:
//   grad_i = sum_{j >= i} g_j * prod_{k <= j, k != i} x_k.
// Both forms below use ember ops only (no host check of the values, so no
// device sync).
//
// O(n) per line, for a first-order backward. Where x_i != 0 the sum is
// reverse_cumsum(g * out)_i / x_i. Past a line's first zero z every product
// contains x_z, so grad_i = 0 for i > z; at z it is sum_{j >= z} g_j * out'_j,
// where out' is the cumprod with x_z replaced by 1.
Tensor cumprod_backward_linear(const Tensor& g, const Tensor& x, const Tensor& out, int64_t d) {
  const Tensor is_zero = x == 0;
  const Tensor zeros_so_far = cumsum(is_zero, d);  // int64
  const Tensor first_zero = is_zero.logical_and(zeros_so_far == 1);
  const Tensor from_first_zero = zeros_so_far >= 1;
  const Tensor nonzero_part = reverse_cumsum(g * out, d) / where(is_zero, 1.0, x);
  const Tensor out_without_z = cumprod(where(first_zero, 1.0, x), d);
  const Tensor at_first_zero = reverse_cumsum(where(from_first_zero, g * out_without_z, 0.0), d);
  return where(is_zero, where(first_zero, at_first_zero, 0.0), nonzero_part);
}

// O(n^2) per line, for a backward that is itself differentiated (create_graph):
// the linear form's "0 past the first zero" is right in value, but drops those
// entries' dependence on x_z. Here every product is formed: row i of
// `partial` is the cumprod of x with x_i replaced by 1.
Tensor cumprod_backward_quadratic(const Tensor& g, const Tensor& x, int64_t d) {
  const int64_t n = x.size(d);
  const Tensor row = x.movedim(d, -1).unsqueeze(-2);  // [..., 1, n]
  DimVector square(row.sizes());
  square[square.size() - 2] = n;
  const Tensor diagonal = eye(n, x.options()) != 0;
  const Tensor partial = cumprod(where(diagonal, 1.0, row.expand(square)), -1);  // [..., i, j]
  const Tensor j_from_i = triu(ones({n, n}, x.options())) != 0;
  const Tensor terms = where(j_from_i, partial * g.movedim(d, -1).unsqueeze(-2), 0.0);
  return terms.sum({-1}).movedim(-1, d);
}

Tensor cumprod_backward(const Tensor& g, const Tensor& x, const Tensor& out, int64_t d) {
  if (x.dim() == 0) return g;
  return GradMode::is_enabled() ? cumprod_backward_quadratic(g, x, d)
                                : cumprod_backward_linear(g, x, out, d);
}

Tensor scan(const char* name, bool is_prod, const Tensor& input, int64_t dim,
            std::optional<ScalarType> dtype) {
  const int64_t d = detail::wrap_reduction_dim(name, input, dim);
  EMBER_CHECK(dtype != kBool, name, ": dtype bool is not supported");
  // Integer and bool inputs accumulate in int64, as PyTorch.
  const ScalarType t = dtype ? *dtype : (input.is_floating_point() ? input.scalar_type() : kLong);
  const Tensor x = input.to(t);
  const Tensor xc = detail::contiguous_for_kernel(x);
  Tensor out = empty(x.sizes(), x.options());
  const detail::LineShape l = detail::line_shape(x, d);
  kernels().scan.scan.on(x.device(), name)(name, is_prod, out, xc, l.outer, l.n, l.inner);
  if (autograd::needs_grad(x)) {
    // derivative of cumsum, cumprod: cumsum: d/dx = reversed cumsum of g along dim; cumprod: d/dx_j = sum over i >= j of g_i·y_i/x_j (cumprod_backward: exact with zeros)
    auto node = autograd::make_node(is_prod ? "CumprodBackward" : "CumsumBackward", {x},
                                    [d, is_prod](Node& n, const tensor_list& g) {
      if (!is_prod) return tensor_list{reverse_cumsum(g[0], d)};
      return tensor_list{cumprod_backward(g[0], n.saved(0), n.saved(1), d)};
    });
    autograd::set_history(out, node);
    if (is_prod) {
      node->save(x);
      node->save(out, /*is_output=*/true);
    }
  }
  return out;
}

}  // namespace

Tensor cumsum(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  return scan("cumsum", false, x, dim, dtype);
}
Tensor cumprod(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  return scan("cumprod", true, x, dim, dtype);
}

Tensor Tensor::cumsum(int64_t dim, std::optional<ScalarType> dtype) const {
  return ember::cumsum(*this, dim, dtype);
}
Tensor Tensor::cumprod(int64_t dim, std::optional<ScalarType> dtype) const {
  return ember::cumprod(*this, dim, dtype);
}

}  // namespace ember
