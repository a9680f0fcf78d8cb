// cumsum and cumprod: a running sum or product along one dim (kernels in
// kernels/common/scan_functors.h, kernels/cuda/scan_kernels.cu), derivatives
// written with ember ops.
#include "ember/core/ops/scan.h"

#include "ember/autograd/function.h"
#include "ember/core/ops/binary.h"
#include "ember/core/ops/factory.h"
#include "ember/core/ops/reduce_helpers.h"
#include "ember/core/ops/shape_ops.h"
#include "ember/kernels/common/scan_functors.h"
#include "ember/kernels/cuda/scan.h"

namespace ember {

using autograd::Node;

namespace {

// Sums g from the end of dim d back to each position: the adjoint of cumsum.
Tensor reverse_cumsum(const Tensor& g, int64_t d) {
  return g.dim() == 0 ? g : flip(cumsum(flip(g, {d}), d), {d});
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
  if (x.is_cuda()) {
    cuda::scan_kernel(name, is_prod, out, xc, l.outer, l.n, l.inner);
  } else {
    dispatch_numeric(t, name, [&]<typename T>() {
      const T* in = xc.data_ptr<T>();
      T* o = out.data_ptr<T>();
      for (int64_t line = 0; line < l.outer * l.inner; ++line) {
        const int64_t offset = line / l.inner * l.n * l.inner + line % l.inner;
        if (is_prod)
          functors::scan_line<T, true>(in + offset, o + offset, l.n, l.inner);
        else
          functors::scan_line<T, false>(in + offset, o + offset, l.n, l.inner);
      }
    });
  }
  if (autograd::needs_grad(x)) {
    auto node = autograd::make_node(is_prod ? "CumprodBackward" : "CumsumBackward", {x},
                                    [d, is_prod](Node& n, const tensor_list& g) {
      if (!is_prod) return tensor_list{reverse_cumsum(g[0], d)};
      // d out_j / d x_i = out_j / x_i for j >= i: exact when x has no zeros.
      return tensor_list{reverse_cumsum(g[0] * n.saved(1), d) / n.saved(0)};
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
