// Tensor::index and index_put_ with libtorch's index lists (core/tensor_index.h),
// and the ops they build on: nonzero, masked_select, masked_fill_.
//
// An index list is applied in two steps. First the integers, slices, None,
// bools and Ellipsis, left to right: each is a view op (select, slice,
// unsqueeze), so the result so far is a view of x. Tensor indices are set
// aside with the dim they index (a bool mask of k dims becomes k int64
// indices, the columns of its nonzero()). Then, if there were any, the
// indexed dims are gathered: the int64 indices broadcast together to a shape
// B, the indexed dims move to the front and merge into one, and index_select
// picks the linear positions; B takes the place of the indexed dims when they
// were adjacent, and comes first otherwise (PyTorch's rule). The gather is
// made of differentiable ops, so the result has a gradient.
//
// index_put_ runs the same plan backwards: the values, broadcast to the shape
// index would return, are written (index_copy_, or index_add_ when
// accumulating) at the linear positions of the merged indexed dims. Under
// grad it is computed out of place (IndexPutBackward) and copied in.
#include <algorithm>
#include <numeric>

#include "ember/core/autocast.h"
#include "ember/autograd/function.h"
#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/elementwise/compare.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/indexing/index_ops.h"
#include "ember/core/ops/indexing/indexing.h"
#include "ember/core/ops/reduction/reduce.h"
#include "ember/core/ops/shape/views.h"
#include "ember/core/shape.h"
#include "ember/core/tensor_index.h"

namespace ember {

using indexing::TensorIndex;
using Kind = TensorIndex::Kind;

indexing::TensorIndex::TensorIndex(const char* s) : kind_(Kind::kEllipsis) {
  EMBER_CHECK(std::string_view(s) == "...", "TensorIndex: the only string index is \"...\", got \"",
              s, "\"");
}

namespace {

struct IndexedDim {
  int64_t dim;   // in the view
  Tensor index;  // int64
};

struct Indexed {
  Tensor view;                       // x after the non-tensor indices
  std::vector<IndexedDim> tensors;   // in dim order
};

bool is_mask(const Tensor& t) { return t.scalar_type() == kBool; }

// How many of x's dims an index uses up (None, bools and Ellipsis use none).
int64_t dims_used(const TensorIndex& i) {
  switch (i.kind()) {
    case Kind::kInteger:
    case Kind::kSlice:
      return 1;
    case Kind::kTensor:
      return is_mask(i.tensor()) ? i.tensor().dim() : 1;
    default:
      return 0;
  }
}

Indexed apply_view_indices(const char* op, const Tensor& x, ArrayRef<TensorIndex> indices) {
  int64_t used = 0, ellipses = 0;
  for (const TensorIndex& i : indices) {
    used += dims_used(i);
    ellipses += i.kind() == Kind::kEllipsis;
  }
  EMBER_CHECK(ellipses <= 1, op, ": an index list may hold one Ellipsis, got ", ellipses);
  EMBER_CHECK(used <= x.dim(), op, ": too many indices for a tensor of shape ", x.sizes(), " (",
              used, " dims indexed)");
  Indexed r{x, {}};
  int64_t d = 0, used_so_far = 0;
  for (const TensorIndex& i : indices) {
    switch (i.kind()) {
      case Kind::kNone:
        r.view = r.view.unsqueeze(d++);
        break;
      case Kind::kBoolean:  // true: a new dim of size 1; false: of size 0
        r.view = r.view.unsqueeze(d);
        if (!i.boolean()) r.view = r.view.slice(d, 0, 0);
        ++d;
        break;
      case Kind::kEllipsis:
        d = r.view.dim() - (used - used_so_far);
        break;
      case Kind::kInteger:
        r.view = r.view.select(d, i.integer());
        break;
      case Kind::kSlice: {
        const indexing::Slice& s = i.slice();
        EMBER_CHECK(s.step() > 0, op, ": slice step must be positive, got ", s.step());
        r.view = r.view.slice(d++, s.start(), s.stop(), s.step());
        break;
      }
      case Kind::kTensor: {
        const Tensor& t = i.tensor();
        EMBER_CHECK(t.defined(), op, ": an index tensor is undefined");
        if (is_mask(t)) {
          EMBER_CHECK(t.dim() > 0, op, ": a 0-d bool index is not supported");
          for (int64_t k = 0; k < t.dim(); ++k)
            EMBER_CHECK(t.size(k) == r.view.size(d + k), op, ": the mask of shape ", t.sizes(),
                        " does not match the indexed shape ", r.view.sizes(), " at dim ", d + k);
          const Tensor nz = nonzero(t);
          for (int64_t k = 0; k < t.dim(); ++k) r.tensors.push_back({d + k, nz.select(1, k)});
          d += t.dim();
        } else {
          EMBER_CHECK(t.scalar_type() == kLong, op, ": tensors used as indices must be int64 "
                      "or bool, got ", t.scalar_type());
          r.tensors.push_back({d++, t});
        }
        break;
      }
    }
    used_so_far += dims_used(i);
  }
  return r;
}

// i with negative positions counted from the end of a dim of size n; a
// position outside [-n, n) is an error (read on the host: one wait on CUDA).
Tensor wrapped_index(const char* op, const Tensor& i, int64_t n, int64_t dim) {
  if (i.numel() == 0) return i;
  const int64_t lo = amin(i).item<int64_t>(), hi = amax(i).item<int64_t>();
  EMBER_CHECK(lo >= -n && hi < n, op, ": index ", lo < -n ? lo : hi,
              " is out of bounds for dimension ", dim, " with size ", n);
  return lo < 0 ? where(i < 0, i + n, i) : i;
}

// Where the tensor indices of an Indexed land (see the note at the top).
struct Gathering {
  DimVector perm;        // indexed dims first, then the others in order
  DimVector merged;      // the permuted view's shape with the indexed dims merged into one
  Tensor linear;         // the row-major position over the indexed dims, of shape B, flat
  DimVector out_sizes;   // B then the other dims
  DimVector back;        // out_sizes' order to the result's; empty: the same
};

Gathering plan_gathering(const char* op, const Indexed& ix) {
  const Tensor& v = ix.view;
  const int64_t m = static_cast<int64_t>(ix.tensors.size());
  DimVector b(ix.tensors[0].index.sizes());
  for (const IndexedDim& t : ix.tensors) b = broadcast_shapes(b, t.index.sizes(), op);
  bool adjacent = true;
  for (int64_t k = 1; k < m; ++k) adjacent = adjacent && ix.tensors[k].dim == ix.tensors[k - 1].dim + 1;

  Gathering p;
  DimVector rest_sizes;
  std::vector<bool> indexed(static_cast<size_t>(v.dim()), false);
  for (const IndexedDim& t : ix.tensors) {
    p.perm.push_back(t.dim);
    indexed[t.dim] = true;
  }
  for (int64_t d = 0; d < v.dim(); ++d)
    if (!indexed[d]) {
      p.perm.push_back(d);
      rest_sizes.push_back(v.size(d));
    }

  Tensor linear;
  int64_t span = 1;
  for (int64_t k = m - 1; k >= 0; --k) {
    const int64_t d = ix.tensors[k].dim, n = v.size(d);
    const Tensor i = wrapped_index(op, ix.tensors[k].index, n, d);
    linear = linear.defined() ? linear + i * span : i * span;
    span *= n;
  }
  p.linear = linear.expand(b).reshape({-1});
  p.merged = {span};
  for (int64_t s : rest_sizes) p.merged.push_back(s);
  p.out_sizes = b;
  for (int64_t s : rest_sizes) p.out_sizes.push_back(s);
  const int64_t first = ix.tensors[0].dim;
  if (!adjacent || first == 0) return p;
  // B's dims go back to where the indexed dims were.
  const int64_t nb = static_cast<int64_t>(b.size());
  for (int64_t k = 0; k < first; ++k) p.back.push_back(nb + k);
  for (int64_t k = 0; k < nb; ++k) p.back.push_back(k);
  for (int64_t k = nb + first; k < static_cast<int64_t>(p.out_sizes.size()); ++k) p.back.push_back(k);
  return p;
}

// The view's elements at the tensor indices.
Tensor gather_indexed(const char* op, const Indexed& ix) {
  const Gathering p = plan_gathering(op, ix);
  const Tensor picked =
      ix.view.permute(p.perm).reshape(p.merged).index_select(0, p.linear).view(p.out_sizes);
  return p.back.empty() ? picked : picked.permute(p.back);
}

// Writes values (broadcast to the shape index would return) into the view at
// the tensor indices: the gather above run backwards, an index_copy_ (or
// index_add_ when accumulating) along the merged dim. No gradient recorded.
void put_indexed(const char* op, const Indexed& ix, const Tensor& values, bool accumulate) {
  const Gathering p = plan_gathering(op, ix);
  DimVector result_sizes(p.out_sizes);
  for (size_t j = 0; j < p.back.size(); ++j) result_sizes[j] = p.out_sizes[p.back[j]];
  EMBER_CHECK(is_expandable_to(values.sizes(), result_sizes), op, ": shape mismatch: value "
              "tensor of shape ", values.sizes(), " cannot be broadcast to indexing result of "
              "shape ", result_sizes);
  Tensor vals = values.to(ix.view.device(), ix.view.scalar_type()).expand(result_sizes);
  if (!p.back.empty()) {
    DimVector to_out(p.back.size());
    for (size_t j = 0; j < p.back.size(); ++j) to_out[p.back[j]] = static_cast<int64_t>(j);
    vals = vals.permute(to_out);
  }
  DimVector rows{p.linear.numel()};
  for (size_t k = 1; k < p.merged.size(); ++k) rows.push_back(p.merged[k]);
  vals = vals.reshape(rows);
  const Tensor target = ix.view.permute(p.perm);
  // Written in place when the permuted view merges; else through a copy.
  const Tensor flat = (target.is_contiguous() ? target : target.contiguous()).view(p.merged);
  if (accumulate)
    flat.index_add_(0, p.linear, vals);
  else
    flat.index_copy_(0, p.linear, vals);
  if (!flat.is_alias_of(target)) target.copy_(flat.view(target.sizes()));
}

// Writes values into self (no gradient recorded).
void put(const char* op, const Tensor& self, ArrayRef<TensorIndex> indices, const Tensor& values,
         bool accumulate) {
  const Indexed ix = apply_view_indices(op, self, indices);
  if (!ix.tensors.empty()) return put_indexed(op, ix, values, accumulate);
  if (accumulate)
    ix.view.add_(values);
  else
    ix.view.copy_(values);
}

// indices with each tensor replaced by an undefined one: what a backward
// keeps (the tensors themselves are saved), and rebuilds with `saved`.
std::vector<TensorIndex> without_tensors(ArrayRef<TensorIndex> indices) {
  std::vector<TensorIndex> kept(indices.begin(), indices.end());
  for (TensorIndex& i : kept)
    if (i.kind() == Kind::kTensor) i = TensorIndex(Tensor());
  return kept;
}

Tensor index_put_recorded(const Tensor& self, ArrayRef<TensorIndex> indices, const Tensor& values,
                          bool accumulate) {
  Tensor out;
  {
    NoGradGuard no_grad;
    out = self.clone();
    put("index_put", out, indices, values, accumulate);
  }
  if (!autograd::needs_grad(self, values)) return out;
  // derivative of index_put, index_put_: d/dvalues = g at the written places (summed to their shape), d/dself = g with those places zeroed (g when accumulating)
  auto node = autograd::make_node("IndexPutBackward", {self, values},
      [kept = without_tensors(indices), accumulate](autograd::Node& n, const tensor_list& g) {
        std::vector<TensorIndex> idx = kept;
        size_t k = 0;
        for (TensorIndex& i : idx)
          if (i.kind() == Kind::kTensor) i = TensorIndex(n.saved(k++));
        Tensor g_self;
        if (n.needs_input_grad(0))
          g_self = accumulate ? g[0] : g[0].index_put(idx, zeros({}, g[0].options()));
        return tensor_list{g_self, n.needs_input_grad(1) ? g[0].index(idx) : Tensor()};
      });
  for (const TensorIndex& i : indices)
    if (i.kind() == Kind::kTensor) node->save(i.tensor());
  autograd::set_history(out, node);
  return out;
}

std::vector<TensorIndex> as_index_list(const std::vector<std::optional<Tensor>>& indices) {
  std::vector<TensorIndex> list;
  for (const std::optional<Tensor>& i : indices)
    list.emplace_back(i ? TensorIndex(*i) : TensorIndex(indexing::Slice()));
  return list;
}

}  // namespace

Tensor Tensor::index(ArrayRef<TensorIndex> indices) const {
  const Indexed ix = apply_view_indices("index", *this, indices);
  return ix.tensors.empty() ? ix.view : gather_indexed("index", ix);
}
Tensor Tensor::index(std::initializer_list<TensorIndex> indices) const {
  return index(ArrayRef<TensorIndex>(indices.begin(), indices.size()));
}
Tensor Tensor::operator[](const Tensor& index) const { return this->index({index}); }

// Under grad, computed out of place and copied in (the copy gives self the
// result's history, as masked_fill_); else written directly.
Tensor& Tensor::index_put_(ArrayRef<TensorIndex> indices, const Tensor& value,
                           bool accumulate) const {
  if (autograd::needs_grad(*this, value)) {
    autograd::check_inplace(*this, "index_put_", {value});
    return copy_(index_put_recorded(*this, indices, value, accumulate));
  }
  put("index_put_", *this, indices, value, accumulate);
  return const_cast<Tensor&>(*this);
}
Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Tensor& value,
                           bool accumulate) const {
  return index_put_(ArrayRef<TensorIndex>(indices.begin(), indices.size()), value, accumulate);
}
Tensor Tensor::index_put(ArrayRef<TensorIndex> indices, const Tensor& values,
                         bool accumulate) const {
  return index_put_recorded(*this, indices, values, accumulate);
}
Tensor Tensor::index_put(std::initializer_list<TensorIndex> indices, const Tensor& values,
                         bool accumulate) const {
  return index_put(ArrayRef<TensorIndex>(indices.begin(), indices.size()), values, accumulate);
}
Tensor& Tensor::index_put_(const std::vector<std::optional<Tensor>>& indices,
                           const Tensor& values, bool accumulate) const {
  const std::vector<TensorIndex> list = as_index_list(indices);
  return index_put_(ArrayRef<TensorIndex>(list.data(), list.size()), values, accumulate);
}
Tensor Tensor::index_put(const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                         bool accumulate) const {
  const std::vector<TensorIndex> list = as_index_list(indices);
  return index_put(ArrayRef<TensorIndex>(list.data(), list.size()), values, accumulate);
}
Tensor index_put(const Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                 const Tensor& values, bool accumulate) {
  if (const auto to = autocast::cast_dtype(autocast::kCudaPromoteOp, {&self, &values}))
    return index_put(autocast::cast(self, *to), indices, autocast::cast(values, *to), accumulate);
  return self.index_put(indices, values, accumulate);
}
Tensor& index_put_(Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                   const Tensor& values, bool accumulate) {
  return self.index_put_(indices, values, accumulate);
}
Tensor& Tensor::index_put_(ArrayRef<TensorIndex> indices, const Scalar& value) const {
  return index_put_(indices, scalar_tensor(value, options().device(kCPU).requires_grad(false)));
}
Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Scalar& value) const {
  return index_put_(ArrayRef<TensorIndex>(indices.begin(), indices.size()), value);
}

Tensor nonzero(const Tensor& x) {
  const Tensor host = (x.is_cuda() ? x.cpu() : x).ne(0).contiguous();
  const bool* p = host.data_ptr<bool>();
  const int64_t nd = x.dim(), n = host.numel();
  const int64_t count = std::count(p, p + n, true);
  Tensor out = empty({count, nd}, TensorOptions(kLong));
  int64_t* o = out.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    if (!p[i]) continue;
    for (int64_t d = nd - 1, rem = i; d >= 0; --d) {
      o[d] = rem % x.size(d);
      rem /= x.size(d);
    }
    o += nd;
  }
  return x.is_cuda() ? out.to(x.device()) : out;
}
Tensor Tensor::nonzero() const { return ember::nonzero(*this); }

Tensor masked_select(const Tensor& x, const Tensor& mask) {
  EMBER_CHECK(mask.scalar_type() == kBool, "masked_select: expected a bool mask, got ",
              mask.scalar_type());
  const DimVector shape = broadcast_shapes(x.sizes(), mask.sizes(), "masked_select");
  if (shape.empty()) return x.expand(shape).reshape({1}).index({mask.reshape({1})});
  return x.expand(shape).index({mask.expand(shape)});
}
Tensor Tensor::masked_select(const Tensor& mask) const { return ember::masked_select(*this, mask); }

Tensor& Tensor::masked_fill_(const Tensor& mask, const Scalar& value) const {
  return copy_(ember::masked_fill(*this, mask, value));
}

}  // namespace ember
