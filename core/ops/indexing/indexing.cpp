// Indexing by int64 index tensors: index_select, gather, scatter_add (and its
// in-place form), masked_fill, embedding built on them, and one_hot. Indices
// do not wrap: a negative or too-large value is an error naming the op, the
// value and the valid range, as PyTorch. On the CPU the op checks the values
// before it runs; on CUDA the kernel checks them and the Error comes at the
// next CUDA indexing call or cuda::check_index_errors() (core/cuda/runtime.h),
// so no op waits for the device. Each derivative is another op of this family
// (gather <-> scatter_add), so double backward works on both devices.
#include "ember/core/autocast.h"
#include "ember/core/ops/indexing/indexing.h"

#include <algorithm>

#include "ember/autograd/function.h"
#include "ember/core/memory_overlap.h"
#include "ember/core/ops/elementwise/elementwise_helpers.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/indexing/indexing_helpers.h"
#include "ember/kernels/common/kernel_registry.h"

namespace ember {

using autograd::Node;

namespace detail {

void check_index_dtype(const char* op, const Tensor& index) {
  EMBER_CHECK(index.scalar_type() == kLong, op, ": expected an int64 index tensor, got ",
              index.scalar_type());
}

void check_index_values(const char* op, const Tensor& index, int64_t dim, int64_t size) {
  // On CUDA there is no value to see here: the kernel checks (indexing_kernels.h).
  const std::optional<int64_t> bad =
      kernels().indexing.find_out_of_range.on(index.device(), op)(index, 0, size);
  if (!bad) return;
  if (size == 0)
    EMBER_ERROR(op, ": index ", *bad, " is out of bounds for dimension ", dim,
                " with size 0 (no valid index)");
  EMBER_ERROR(op, ": index ", *bad, " is out of bounds for dimension ", dim, " with size ", size,
              " (valid range [0, ", size - 1, "])");
}

void check_index_shape(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                       const Tensor* src) {
  const int64_t nd = std::max<int64_t>(self.dim(), 1);
  EMBER_CHECK(std::max<int64_t>(index.dim(), 1) == nd, op, ": index ", index.sizes(),
              " must have as many dimensions as self ", self.sizes());
  if (src)
    EMBER_CHECK(std::max<int64_t>(src->dim(), 1) == nd, op, ": src ", src->sizes(),
                " must have as many dimensions as self ", self.sizes());
  auto size_at = [](const Tensor& t, int64_t d) { return t.dim() == 0 ? 1 : t.size(d); };
  for (int64_t d = 0; d < nd; ++d) {
    const int64_t n = size_at(index, d);
    EMBER_CHECK(d == dim || n <= size_at(self, d), op, ": index ", index.sizes(),
                " is larger than self ", self.sizes(), " in dimension ", d, " (", n, " > ",
                size_at(self, d), "); only dimension ", dim, " may be larger");
    if (src)
      EMBER_CHECK(n <= size_at(*src, d), op, ": index ", index.sizes(), " is larger than src ",
                  src->sizes(), " in dimension ", d, " (", n, " > ", size_at(*src, d), ")");
  }
}

Tensor pad_to(const Tensor& g, IntArrayRef sizes, int64_t dim) {
  if (g.sizes() == sizes) return g;
  DimVector line(g.dim(), 1);
  line[dim] = g.size(dim);
  const Tensor positions = arange(g.size(dim), g.options().dtype(kLong)).view(line).expand(g.sizes());
  return scatter_add(zeros(sizes, g.options()), dim, positions, g);
}

Tensor scatter_grad_src(const Tensor& g, int64_t dim, const Tensor& index, IntArrayRef src_sizes) {
  return pad_to(g.gather(dim, index), src_sizes, dim);
}

}  // namespace detail

namespace {

using detail::at_least_1d;
using detail::check_index_dtype;
using detail::check_index_shape;
using detail::check_index_values;

// derivative of scatter_add, scatter_add_: d/dself = g, d/dsrc = gather(g, dim, index)
std::shared_ptr<Node> scatter_add_node(const Tensor& self, int64_t dim, const Tensor& index,
                                       const Tensor& src) {
  const DimVector src_sizes(src.sizes());
  auto node = autograd::make_node("ScatterAddBackward", {self, src},
      [dim, src_sizes](Node& n, const tensor_list& g) {
        Tensor g_src;
        if (n.needs_input_grad(1)) g_src = detail::scatter_grad_src(g[0], dim, n.saved(0), src_sizes);
        return tensor_list{n.needs_input_grad(0) ? g[0] : Tensor(), g_src};
      });
  node->save(index);
  return node;
}

// Checks for scatter_add(_); returns the wrapped dim.
int64_t check_scatter_add(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                          const Tensor& src) {
  detail::check_same_device(op, self, index);
  detail::check_same_device(op, self, src);
  check_index_dtype(op, index);
  EMBER_CHECK(src.scalar_type() == self.scalar_type(), op, ": expected src to have self's dtype ",
              self.scalar_type(), ", got ", src.scalar_type());
  dim = wrap_dim(dim, std::max<int64_t>(self.dim(), 1), op);
  check_index_shape(op, self, dim, index, &src);
  check_index_values(op, index, dim, at_least_1d(self).size(dim));
  return dim;
}

void scatter_add_into(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                      const Tensor& src) {
  kernels().indexing.scatter_add.on(self.device(), op)(op, at_least_1d(self), dim,
                                                      at_least_1d(index), at_least_1d(src));
}

Tensor index_select_impl(const char* op, const Tensor& x, int64_t dim, const Tensor& index) {
  detail::check_same_device(op, x, index);
  check_index_dtype(op, index);
  EMBER_CHECK(index.dim() <= 1, op, ": index must be 0-d or 1-d, got shape ", index.sizes());
  const Tensor xs = at_least_1d(x);
  dim = wrap_dim(dim, xs.dim(), op);
  const Tensor idx = at_least_1d(index);
  EMBER_CHECK(x.dim() > 0 || idx.numel() == 1, op, ": a 0-d input takes exactly one index, got ",
              idx.numel());
  check_index_values(op, idx, dim, xs.size(dim));
  DimVector out_sizes(xs.sizes());
  out_sizes[dim] = idx.numel();
  Tensor out = empty(x.dim() > 0 ? out_sizes.ref() : IntArrayRef(), x.options());
  kernels().indexing.index_select.on(x.device(), op)(op, at_least_1d(out), xs, dim, idx);
  if (autograd::needs_grad(x)) {
    // derivative of index_select, embedding: d/dx = zeros of x's shape with g's slices added at their indices (repeats sum)
    const DimVector x_sizes(x.sizes()), xs_sizes(xs.sizes());
    auto node = autograd::make_node("IndexSelectBackward", {x},
        [dim, x_sizes, xs_sizes](Node& n, const tensor_list& g) {
          const Tensor gs = at_least_1d(g[0]);
          DimVector line(gs.dim(), 1);
          line[dim] = gs.size(dim);
          const Tensor index = n.saved(0).view(line).expand(gs.sizes());
          const Tensor dx = scatter_add(zeros(xs_sizes, gs.options()), dim, index, gs);
          return tensor_list{dx.view(x_sizes)};
        });
    node->save(idx);
    autograd::set_history(out, node);
  }
  return out;
}

// The largest value + 1 of a contiguous int64 CPU tensor: one_hot's class
// count. At least 0, so that all-negative values reach the kernel's check
// (which names the bad value) rather than a negative size.
int64_t inferred_num_classes(const Tensor& flat) {
  EMBER_CHECK(flat.numel() > 0,
              "one_hot: cannot infer num_classes from an empty tensor; pass num_classes");
  const int64_t* v = flat.data_ptr<int64_t>();
  return std::max<int64_t>(*std::max_element(v, v + flat.numel()) + 1, 0);
}

}  // namespace

Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index) {
  return index_select_impl("index_select", x, dim, index);
}

// out[p] = x[p with p[dim] = index[p]], out of index's shape.
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index) {
  detail::check_same_device("gather", x, index);
  check_index_dtype("gather", index);
  dim = wrap_dim(dim, std::max<int64_t>(x.dim(), 1), "gather");
  check_index_shape("gather", x, dim, index, nullptr);
  check_index_values("gather", index, dim, at_least_1d(x).size(dim));
  Tensor out = empty(index.sizes(), x.options());
  kernels().indexing.gather.on(x.device(), "gather")("gather", at_least_1d(out), at_least_1d(x),
                                                     dim, at_least_1d(index));
  if (autograd::needs_grad(x)) {
    const DimVector x_sizes(x.sizes());
    // derivative: d/dx = scatter_add(zeros of x's shape, dim, index, g)
    auto node = autograd::make_node("GatherBackward", {x},
        [dim, x_sizes](Node& n, const tensor_list& g) {
          return tensor_list{scatter_add(zeros(x_sizes, g[0].options()), dim, n.saved(0), g[0])};
        });
    node->save(index);
    autograd::set_history(out, node);
  }
  return out;
}

Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
  if (const auto to = autocast::cast_dtype(autocast::kCudaPromoteOp, {&x, &src}))
    return scatter_add(autocast::cast(x, *to), dim, index, autocast::cast(src, *to));
  dim = check_scatter_add("scatter_add", x, dim, index, src);
  Tensor out = x.detach().clone();
  scatter_add_into("scatter_add", out, dim, index, src);
  if (autograd::needs_grad(x, src))
    autograd::set_history(out, scatter_add_node(x, dim, index, src));
  return out;
}

Tensor masked_fill(const Tensor& x, const Tensor& mask, const Scalar& value) {
  EMBER_CHECK(mask.scalar_type() == kBool, "masked_fill: expected a bool mask, got ",
              mask.scalar_type());
  EMBER_CHECK(converts_without_overflow(value, x.scalar_type()), "masked_fill: value ", value,
              " cannot be converted to type ", x.scalar_type(), " without overflow");
  detail::check_same_device("masked_fill", x, mask);
  Tensor out = empty(broadcast_shapes(x.sizes(), mask.sizes(), "masked_fill"), x.options());
  // out = mask ? value : x, the value a 0-dim CPU tensor (a CUDA kernel takes it by value).
  const Tensor fill = full({}, value, TensorOptions(x.scalar_type()));
  kernels().elementwise.where.on(x.device(), "masked_fill")(out, mask, fill, x);
  if (autograd::needs_grad(x)) {
    // derivative: d/dx = g, 0 where mask
    auto node = autograd::make_node("MaskedFillBackward", {x}, [](Node& n, const tensor_list& g) {
      return tensor_list{masked_fill(g[0], n.saved(0), 0)};  // the engine sums to x's shape
    });
    node->save(mask);
    autograd::set_history(out, node);
  }
  return out;
}

// weight: (V, D), indices: any shape S -> (S..., D)
Tensor embedding(const Tensor& weight, const Tensor& indices) {
  EMBER_CHECK(weight.dim() == 2,
              "embedding: weight must be 2-d (num_embeddings, embedding_dim), got ",
              weight.sizes());
  check_index_dtype("embedding", indices);
  DimVector out_sizes(indices.sizes());
  out_sizes.push_back(weight.size(1));
  const Tensor flat = indices.reshape({indices.numel()});
  return index_select_impl("embedding", weight, 0, flat).view(out_sizes);
}

// indices: int64, any shape S -> int64 (S..., num_classes) of zeros with a 1 at each value.
Tensor one_hot(const Tensor& indices, int64_t num_classes) {
  check_index_dtype("one_hot", indices);
  EMBER_CHECK(num_classes >= -1, "one_hot: num_classes must be -1 (infer) or >= 0, got ",
              num_classes);
  // The values as one column (a view where the layout allows); inferring the
  // class count needs the largest on the host, which on CUDA waits for the device.
  const int64_t n = indices.numel();
  const Tensor column = indices.reshape({n, 1});
  if (num_classes == -1) num_classes = inferred_num_classes(column.cpu().contiguous());
  DimVector out_sizes(indices.sizes());
  out_sizes.push_back(num_classes);
  Tensor out = zeros(out_sizes, indices.options().requires_grad(false));
  if (n == 0) return out;
  // The kernel checks the values (the CPU first, CUDA as it writes).
  kernels().indexing.one_hot.on(indices.device(), "one_hot")(out.view({n, num_classes}), column);
  return out;
}

Tensor Tensor::index_select(int64_t dim, const Tensor& index) const {
  return ember::index_select(*this, dim, index);
}
Tensor Tensor::gather(int64_t dim, const Tensor& index) const {
  return ember::gather(*this, dim, index);
}
Tensor Tensor::scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const {
  return ember::scatter_add(*this, dim, index, src);
}
Tensor& Tensor::scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) const {
  autograd::check_inplace(*this, "scatter_add_", {src});
  dim = check_scatter_add("scatter_add_", *this, dim, index, src);
  assert_no_internal_overlap("scatter_add_", *this);
  assert_no_overlap("scatter_add_", *this, src);
  assert_no_overlap("scatter_add_", *this, index);
  auto node = autograd::needs_grad(*this, src) ? scatter_add_node(*this, dim, index, src) : nullptr;
  scatter_add_into("scatter_add_", *this, dim, index, src);
  impl()->bump_version();
  if (node) autograd::rebase_history(*this, node);
  return const_cast<Tensor&>(*this);
}
Tensor Tensor::masked_fill(const Tensor& mask, const Scalar& value) const {
  return ember::masked_fill(*this, mask, value);
}

}  // namespace ember
