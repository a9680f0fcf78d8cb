// softmax, log_softmax and logsumexp: forward through the numerically stable
// kernels of the softmax table (kernels/common/softmax_kernels.h: by columns,
// or by rows with the softmax dim transposed innermost, as the device's
// kernels want it), derivatives written with ember ops (so they can be
// differentiated again, on either device):
//   softmax:     dx = y * (g - sum(g * y, dim))
//   log_softmax: dx = g - exp(y) * sum(g, dim)
//   logsumexp:   dx = g * exp(x - y)
#include "ember/autograd/function.h"
#include "ember/core/autocast.h"
#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/elementwise/elementwise_helpers.h"
#include "ember/core/ops/reduction/reduce.h"
#include "ember/core/ops/nn_ops/softmax.h"
#include "ember/core/ops/reduction/reduce_helpers.h"
#include "ember/core/ops/elementwise/unary.h"
#include "ember/core/ops/shape/views.h"
#include "ember/kernels/common/kernel_registry.h"

namespace ember {

using autograd::Node;

namespace {

// x in the requested dtype (recording the cast), which must be floating.
Tensor floating_input(const char* op, const Tensor& input, std::optional<ScalarType> dtype) {
  const Tensor x = dtype ? input.to(*dtype) : input;
  EMBER_CHECK(x.is_floating_point(), op, ": expected a floating point tensor, got ",
              x.scalar_type(), " (pass a floating dtype to convert it)");
  return x;
}

// The derivative of softmax (log_softmax when Log) along d, from its output y.
template <bool Log>
Tensor softmax_backward(const Tensor& g, const Tensor& y, int64_t d) {
  if constexpr (Log)
    return g - exp(y) * g.sum({d}, true);
  else
    return y * (g - (g * y).sum({d}, true));
}

// softmax along d: in place by columns where the device's kernels take it so
// (always on the CPU; on CUDA when many lines run along a wide inner dim);
// else the row kernel on x with d moved innermost (a transposing copy when it
// is not), the result transposed back.
template <bool Log>
Tensor softmax_kernel(const char* op, const Tensor& x, int64_t d) {
  NoGradGuard guard;
  const SoftmaxKernels& k = kernels().softmax;
  const detail::LineShape l = detail::line_shape(x, d);
  if (k.by_columns.on(x.device(), op)(l.outer, l.inner)) {
    const Tensor xc = x.contiguous();
    Tensor y = empty(xc.sizes(), xc.options());
    k.columns.on(x.device(), op)(op, Log, y, xc, l.outer, l.n, l.inner);
    return y;
  }
  const int64_t last = x.dim() - 1;
  const bool innermost = d == last || x.dim() == 0;
  const Tensor rows = (innermost ? x : x.transpose(d, last)).contiguous();
  Tensor y = empty(rows.sizes(), rows.options());
  const int64_t n = x.dim() == 0 ? 1 : x.size(d);
  k.rows.on(x.device(), op)(op, Log, y, rows, n == 0 ? 0 : rows.numel() / n, n);
  return innermost ? y : y.transpose(d, last).contiguous();
}

template <bool Log>
Tensor softmax_forward(const char* op, const Tensor& input, int64_t dim,
                       std::optional<ScalarType> dtype) {
  const Tensor x = floating_input(op, input, dtype);
  const int64_t d = detail::wrap_reduction_dim(op, x, dim);
  Tensor y = softmax_kernel<Log>(op, x, d);
  if (autograd::needs_grad(x)) {
    auto node = autograd::make_node(
        // derivative of softmax, log_softmax: softmax: d/dx = y·(g - sum(g·y)); log_softmax: d/dx = g - exp(y)·sum(g), sums along dim
        Log ? "LogSoftmaxBackward" : "SoftmaxBackward", {x}, [d](Node& n, const tensor_list& g) {
          return tensor_list{softmax_backward<Log>(g[0], n.saved(0), d)};
        });
    node->save(y, /*is_output=*/true);
    autograd::set_history(y, node);
  }
  return y;
}

}  // namespace

Tensor softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  if (const auto to = autocast::cast_dtype(autocast::kCudaFloat32Op, {&x}))
    return softmax(autocast::cast(x, *to), dim, dtype);
  return softmax_forward<false>("softmax", x, dim, dtype);
}
Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype) {
  if (const auto to = autocast::cast_dtype(autocast::kCudaFloat32Op, {&x}))
    return log_softmax(autocast::cast(x, *to), dim, dtype);
  return softmax_forward<true>("log_softmax", x, dim, dtype);
}

Tensor logsumexp(const Tensor& input, IntArrayRef dim, bool keepdim) {
  if (const auto to = autocast::cast_dtype(autocast::kCudaFloat32Op, {&input}))
    return logsumexp(autocast::cast(input, *to), dim, keepdim);
  // Integer inputs give float32, as PyTorch.
  const Tensor x = floating_input("logsumexp", input,
                                  input.is_floating_point() ? std::nullopt : std::optional(kFloat));
  const detail::DimMask mask = detail::reduction_mask("logsumexp", x, dim);
  const detail::ReduceShape rs = detail::reduce_shape(x, mask, keepdim);
  // Kept dims first, reduced dims last: each output reduces one contiguous line.
  DimVector order;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (!detail::is_reduced(mask, d)) order.push_back(d);
  for (int64_t d = 0; d < x.dim(); ++d)
    if (detail::is_reduced(mask, d)) order.push_back(d);
  Tensor lines;
  {
    NoGradGuard guard;
    lines = x.permute(order).contiguous();
  }
  Tensor out = empty(rs.out, x.options());
  const int64_t outputs = out.numel();
  kernels().softmax.logsumexp.on(x.device(), "logsumexp")(out, lines, outputs, rs.count);
  if (autograd::needs_grad(x)) {
    auto node = autograd::make_node(
        // derivative: d/dx = g·exp(x - y), g and y expanded over the reduced dims
        "LogsumexpBackward", {x}, [mask, keepdim](Node& n, const tensor_list& g) {
          const Tensor x = n.saved(0);
          const Tensor y = detail::restore_reduced_dims(n.saved(1), x.dim(), mask, keepdim);
          return tensor_list{detail::restore_reduced_dims(g[0], x.dim(), mask, keepdim) *
                             exp(x - y)};
        });
    node->save(x);
    node->save(out, /*is_output=*/true);
    autograd::set_history(out, node);
  }
  return out;
}

Tensor Tensor::softmax(int64_t dim, std::optional<ScalarType> dtype) const {
  return ember::softmax(*this, dim, dtype);
}
Tensor Tensor::log_softmax(int64_t dim, std::optional<ScalarType> dtype) const {
  return ember::log_softmax(*this, dim, dtype);
}

}  // namespace ember
