// View ops (new TensorImpl, same storage) and the joins cat/stack.
// Note [View backward]: the gradient of a view is the gradient reshaped back
// (view, transpose, permute, squeeze), summed (expand), or placed into zeros
// of the input's shape (narrow, slice, select). The placing is its own op,
// slice_backward/select_backward, so double backward goes through it.
// Note [One node for unbind and split]: their parts share one node whose
// backward joins the parts' gradients (stack or cat, zeros for a part that got
// none), as PyTorch's UnbindBackward/SplitBackward. A node per part would
// place each part's gradient into zeros of the whole input: n parts would cost
// n input-sized tensors and their sum, quadratic for a sequence unbound by time.
#include "ember/core/ops/shape/views.h"

#include "ember/autograd/function.h"
#include "ember/core/autocast.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/reduction/reduce.h"
#include "ember/core/ops/shape/view_helpers.h"
#include "ember/core/shape.h"

namespace ember {

using autograd::Node;
using detail::make_view;
using detail::record_view;

namespace {

// Zeros of `input_sizes` with g written at x.slice(dim, start, end, step).
Tensor slice_backward(const Tensor& g, const DimVector& input_sizes, int64_t dim, int64_t start,
                      int64_t end, int64_t step) {
  Tensor out = zeros(input_sizes, g.options());
  {
    NoGradGuard guard;
    out.slice(dim, start, end, step).copy_(g);
  }
  if (autograd::needs_grad(g)) {
    // derivative of slice, narrow: d/dg = gg.slice(dim, start, end, step)
    autograd::set_history(out, autograd::make_node("SliceBackwardBackward", {g},
        [dim, start, end, step](Node&, const tensor_list& gg) {
          return tensor_list{gg[0].slice(dim, start, end, step)};
        }));
  }
  return out;
}

Tensor select_backward(const Tensor& g, const DimVector& input_sizes, int64_t dim, int64_t index) {
  Tensor out = zeros(input_sizes, g.options());
  {
    NoGradGuard guard;
    out.select(dim, index).copy_(g);
  }
  if (autograd::needs_grad(g)) {
    // derivative of select: d/dg = gg.select(dim, index)
    autograd::set_history(out, autograd::make_node("SelectBackwardBackward", {g},
        [dim, index](Node&, const tensor_list& gg) { return tensor_list{gg[0].select(dim, index)}; }));
  }
  return out;
}

// Makes `parts` (views of x made without history) the outputs of one node
// whose backward is join(the parts' gradients) (Note [One node for unbind and split]).
template <typename Join>
std::vector<Tensor> record_parts(const char* name, const Tensor& x, std::vector<Tensor> parts,
                                 Join join) {
  if (!autograd::needs_grad(x)) return parts;
  auto node = autograd::make_node(name, {x}, [join](Node& n, const tensor_list& g) {
    tensor_list grads(g.size());
    for (size_t i = 0; i < g.size(); ++i) {
      const autograd::TensorMeta& meta = n.output_meta()[i];
      grads[i] = g[i].defined() ? g[i] : zeros(meta.sizes, TensorOptions(meta.dtype).device(meta.device));
    }
    return tensor_list{join(grads)};
  });
  for (const Tensor& part : parts) autograd::set_history(part, node);
  return parts;
}

}  // namespace

Tensor Tensor::view(IntArrayRef size) const {
  const DimVector shape = infer_size(size, numel(), "view");
  auto strides = view_strides(sizes(), this->strides(), shape);
  EMBER_CHECK(strides.has_value(), "view: size ", size, " is not compatible with the input's size ",
              sizes(), " and stride ", this->strides(), " (at least one dimension spans across two "
              "contiguous subspaces); use reshape() instead");
  const DimVector in_sizes(sizes());
  // derivative of view, reshape: d/dx = g.reshape(x's shape)
  return record_view("ViewBackward", *this, make_view(*this, shape, std::move(*strides), storage_offset()),
                     [in_sizes](const Tensor& g) { return g.reshape(in_sizes); });
}

Tensor Tensor::view_as(const Tensor& other) const { return view(other.sizes()); }

Tensor Tensor::reshape(IntArrayRef shape) const {
  const DimVector target = infer_size(shape, numel(), "reshape");
  if (view_strides(sizes(), strides(), target)) return view(target);
  return clone().view(target);
}
Tensor reshape(const Tensor& x, IntArrayRef shape) { return x.reshape(shape); }
Tensor Tensor::reshape_as(const Tensor& other) const { return reshape(other.sizes()); }

Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const {
  const int64_t d0 = wrap_dim(dim0, dim(), "transpose"), d1 = wrap_dim(dim1, dim(), "transpose");
  DimVector sz(sizes()), st(strides());
  std::swap(sz[d0], sz[d1]);
  std::swap(st[d0], st[d1]);
  // derivative: d/dx = g.transpose(dim0, dim1)
  return record_view("TransposeBackward", *this, make_view(*this, sz, st, storage_offset()),
                     [d0, d1](const Tensor& g) { return g.transpose(d0, d1); });
}
Tensor transpose(const Tensor& x, int64_t d0, int64_t d1) { return x.transpose(d0, d1); }

Tensor Tensor::t() const {
  EMBER_CHECK(dim() <= 2, "t: expects a tensor with <= 2 dimensions, got ", dim(), " (shape ",
              sizes(), "); use transpose() or permute()");
  return dim() < 2 ? view(sizes()) : transpose(0, 1);
}

Tensor Tensor::permute(IntArrayRef dims) const {
  EMBER_CHECK(static_cast<int64_t>(dims.size()) == dim(), "permute: got ", dims.size(),
              " dims ", dims, " for a tensor of shape ", sizes());
  DimVector sz(dims.size()), st(dims.size()), inverse(dims.size());
  std::vector<bool> seen(dims.size(), false);
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = wrap_dim(dims[i], dim(), "permute");
    EMBER_CHECK(!seen[d], "permute: dim ", d, " repeats in ", dims);
    seen[d] = true;
    sz[i] = size(d);
    st[i] = stride(d);
    inverse[d] = static_cast<int64_t>(i);
  }
  // derivative: d/dx = g permuted by the inverse permutation
  return record_view("PermuteBackward", *this, make_view(*this, sz, st, storage_offset()),
                     [inverse](const Tensor& g) { return g.permute(inverse); });
}
Tensor permute(const Tensor& x, IntArrayRef dims) { return x.permute(dims); }

Tensor Tensor::slice(int64_t d, std::optional<int64_t> start_opt, std::optional<int64_t> end_opt,
                     int64_t step) const {
  EMBER_CHECK(dim() > 0, "slice: cannot slice a 0-d tensor");
  d = wrap_dim(d, dim(), "slice");
  EMBER_CHECK(step > 0, "slice: step must be positive, got ", step);
  const int64_t n = size(d);
  auto clamp_index = [n](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + n : i, 0, n); };
  const int64_t start = clamp_index(start_opt.value_or(0));
  const int64_t end = std::max(start, clamp_index(end_opt.value_or(n)));
  DimVector sz(sizes()), st(strides());
  sz[d] = (end - start + step - 1) / step;
  st[d] *= step;
  const DimVector in_sizes(sizes());
  // derivative of slice, narrow: d/dx = zeros of x's shape with g written at the slice
  return record_view("SliceBackward", *this, make_view(*this, sz, st, storage_offset() + start * stride(d)),
                     [in_sizes, d, start, end, step](const Tensor& g) {
                       return slice_backward(g, in_sizes, d, start, end, step);
                     });
}

Tensor Tensor::narrow(int64_t d, int64_t start, int64_t length) const {
  EMBER_CHECK(dim() > 0, "narrow: cannot narrow a 0-d tensor");
  d = wrap_dim(d, dim(), "narrow");
  const int64_t n = size(d);
  if (start < 0) start += n;
  EMBER_CHECK(start >= 0 && length >= 0 && start + length <= n, "narrow: start ", start,
              " + length ", length, " exceeds size ", n, " of dimension ", d, " (shape ", sizes(), ")");
  return slice(d, start, start + length);
}
Tensor narrow(const Tensor& x, int64_t d, int64_t s, int64_t l) { return x.narrow(d, s, l); }

Tensor Tensor::select(int64_t d, int64_t index) const {
  EMBER_CHECK(dim() > 0, "select: cannot index a 0-d tensor");
  d = wrap_dim(d, dim(), "select");
  const int64_t n = size(d);
  EMBER_CHECK(index >= -n && index < n, "select: index ", index, " is out of range for dimension ",
              d, " of size ", n, " (shape ", sizes(), ")");
  if (index < 0) index += n;
  DimVector sz(sizes()), st(strides());
  sz.erase(d);
  st.erase(d);
  const DimVector in_sizes(sizes());
  // derivative of select, operator[]: d/dx = zeros of x's shape with g written at the index
  return record_view("SelectBackward", *this, make_view(*this, sz, st, storage_offset() + index * stride(d)),
                     [in_sizes, d, index](const Tensor& g) { return select_backward(g, in_sizes, d, index); });
}
Tensor select(const Tensor& x, int64_t d, int64_t i) { return x.select(d, i); }
Tensor Tensor::operator[](int64_t index) const { return select(0, index); }


Tensor Tensor::expand(IntArrayRef size) const {
  EMBER_CHECK(size.size() >= static_cast<size_t>(dim()), "expand: the number of sizes (", size.size(),
              ") must be at least the tensor's dimension (", dim(), "), shape ", sizes());
  const size_t nd = size.size(), off = nd - static_cast<size_t>(dim());
  DimVector sz(nd), st(nd);
  for (size_t i = 0; i < nd; ++i) {
    if (i < off) {
      EMBER_CHECK(size[i] >= 0, "expand: size -1 is not allowed for a new leading dimension");
      sz[i] = size[i];
      st[i] = 0;
      continue;
    }
    const int64_t cur = sizes()[i - off];
    const int64_t want = size[i] == -1 ? cur : size[i];
    EMBER_CHECK(cur == want || cur == 1, "expand: the expanded size ", want, " must match the existing size ",
                cur, " at non-singleton dimension ", i, "; target ", size, ", tensor ", sizes());
    sz[i] = want;
    st[i] = cur == want ? strides()[i - off] : 0;
  }
  const DimVector in_sizes(sizes());
  // derivative of expand, expand_as: d/dx = g summed over the expanded dims
  return record_view("ExpandBackward", *this, make_view(*this, sz, st, storage_offset()),
                     [in_sizes](const Tensor& g) { return sum_to(g, in_sizes); });
}
Tensor Tensor::expand_as(const Tensor& other) const { return expand(other.sizes()); }

Tensor Tensor::squeeze() const {
  DimVector sz;
  for (int64_t s : sizes())
    if (s != 1) sz.push_back(s);
  return view(sz);  // dropping size-1 dims never needs a copy
}

Tensor Tensor::squeeze(int64_t d) const {
  if (dim() == 0) return view(sizes());
  d = wrap_dim(d, dim(), "squeeze");
  if (size(d) != 1) return view(sizes());
  DimVector sz(sizes()), st(strides());
  sz.erase(d);
  st.erase(d);
  const DimVector in_sizes(sizes());
  // derivative: d/dx = g.unsqueeze(dim)
  return record_view("SqueezeBackward", *this, make_view(*this, sz, st, storage_offset()),
                     [in_sizes](const Tensor& g) { return g.reshape(in_sizes); });
}
Tensor squeeze(const Tensor& x) { return x.squeeze(); }
Tensor squeeze(const Tensor& x, int64_t d) { return x.squeeze(d); }

Tensor Tensor::unsqueeze(int64_t d) const {
  d = wrap_dim(d, dim() + 1, "unsqueeze");
  DimVector sz(sizes()), st(strides());
  const int64_t new_stride = d < dim() ? stride(d) * size(d) : 1;
  sz.insert(d, 1);
  st.insert(d, new_stride);
  const DimVector in_sizes(sizes());
  // derivative: d/dx = g.squeeze(dim)
  return record_view("UnsqueezeBackward", *this, make_view(*this, sz, st, storage_offset()),
                     [in_sizes](const Tensor& g) { return g.reshape(in_sizes); });
}
Tensor unsqueeze(const Tensor& x, int64_t d) { return x.unsqueeze(d); }

Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  if (dim() == 0) return reshape({1});
  const int64_t s = wrap_dim(start_dim, dim(), "flatten"), e = wrap_dim(end_dim, dim(), "flatten");
  EMBER_CHECK(s <= e, "flatten: start_dim ", start_dim, " comes after end_dim ", end_dim);
  DimVector shape;
  for (int64_t i = 0; i < s; ++i) shape.push_back(size(i));
  int64_t flat = 1;
  for (int64_t i = s; i <= e; ++i) flat *= size(i);
  shape.push_back(flat);
  for (int64_t i = e + 1; i < dim(); ++i) shape.push_back(size(i));
  return reshape(shape);
}
Tensor flatten(const Tensor& x, int64_t s, int64_t e) { return x.flatten(s, e); }

Tensor Tensor::unflatten(int64_t d, IntArrayRef sizes_) const {
  d = wrap_dim(d, dim(), "unflatten");
  const DimVector inner = infer_size(sizes_, size(d), "unflatten");
  DimVector shape;
  for (int64_t i = 0; i < d; ++i) shape.push_back(size(i));
  for (int64_t s : inner) shape.push_back(s);
  for (int64_t i = d + 1; i < dim(); ++i) shape.push_back(size(i));
  return view(shape);
}

std::vector<Tensor> Tensor::split(int64_t split_size, int64_t d) const {
  d = wrap_dim(d, dim(), "split");
  EMBER_CHECK(split_size > 0 || (split_size == 0 && size(d) == 0),
              "split: split_size must be positive, got ", split_size, " for a dim of size ",
              size(d));
  // An empty dim splits into one empty part, as PyTorch.
  if (size(d) == 0) return {narrow(d, 0, 0)};
  std::vector<Tensor> parts;
  {
    NoGradGuard no_grad;
    for (int64_t start = 0; start < size(d); start += split_size)
      parts.push_back(narrow(d, start, std::min(split_size, size(d) - start)));
  }
  // derivative of split, chunk: d/dx = cat of the parts' gradients (zeros for a part without one)
  return record_parts("SplitBackward", *this, std::move(parts),
                      [d](const tensor_list& g) { return cat(g, d); });
}

std::vector<Tensor> Tensor::chunk(int64_t chunks, int64_t d) const {
  EMBER_CHECK(chunks > 0, "chunk: number of chunks must be positive, got ", chunks);
  d = wrap_dim(d, dim(), "chunk");
  // An empty dim gives `chunks` empty parts, as PyTorch.
  if (size(d) == 0) return std::vector<Tensor>(static_cast<size_t>(chunks), narrow(d, 0, 0));
  return split((size(d) + chunks - 1) / chunks, d);
}

std::vector<Tensor> Tensor::unbind(int64_t d) const {
  EMBER_CHECK(dim() > 0, "unbind: cannot unbind a 0-d tensor");
  d = wrap_dim(d, dim(), "unbind");
  std::vector<Tensor> parts;
  {
    NoGradGuard no_grad;
    for (int64_t i = 0; i < size(d); ++i) parts.push_back(select(d, i));
  }
  // derivative: d/dx = stack of the parts' gradients (zeros for a part without one)
  return record_parts("UnbindBackward", *this, std::move(parts),
                      [d](const tensor_list& g) { return stack(g, d); });
}
std::vector<Tensor> unbind(const Tensor& x, int64_t d) { return x.unbind(d); }

Tensor Tensor::movedim(IntArrayRef source, IntArrayRef destination) const {
  EMBER_CHECK(source.size() == destination.size(), "movedim: source ", source, " and destination ",
              destination, " must have the same number of dims");
  const int64_t n = dim();
  if (n == 0) {  // dims 0 and -1 name the scalar itself
    for (size_t i = 0; i < source.size(); ++i) {
      wrap_dim(source[i], n, "movedim");
      wrap_dim(destination[i], n, "movedim");
    }
    return view(sizes());
  }
  // perm[destination[i]] = source[i]; the dims not moved fill the free places in order.
  DimVector perm(static_cast<size_t>(n), -1);
  std::vector<bool> moved(static_cast<size_t>(n), false);
  for (size_t i = 0; i < source.size(); ++i) {
    const int64_t s = wrap_dim(source[i], n, "movedim"), t = wrap_dim(destination[i], n, "movedim");
    EMBER_CHECK(!moved[s], "movedim: repeated dim ", source[i], " in source ", source);
    EMBER_CHECK(perm[t] == -1, "movedim: repeated dim ", destination[i], " in destination ",
                destination);
    moved[s] = true;
    perm[t] = s;
  }
  int64_t next = 0;
  for (int64_t& p : perm) {
    if (p != -1) continue;
    while (moved[next]) ++next;
    p = next++;
  }
  return permute(perm);
}
Tensor Tensor::movedim(int64_t source, int64_t destination) const {
  return movedim(IntArrayRef{source}, IntArrayRef{destination});
}
Tensor movedim(const Tensor& x, IntArrayRef s, IntArrayRef d) { return x.movedim(s, d); }
Tensor movedim(const Tensor& x, int64_t s, int64_t d) { return x.movedim(s, d); }
Tensor Tensor::swapaxes(int64_t a0, int64_t a1) const { return transpose(a0, a1); }
Tensor Tensor::swapdims(int64_t d0, int64_t d1) const { return transpose(d0, d1); }
Tensor swapaxes(const Tensor& x, int64_t a0, int64_t a1) { return x.transpose(a0, a1); }
Tensor swapdims(const Tensor& x, int64_t d0, int64_t d1) { return x.transpose(d0, d1); }

Tensor cat(TensorList tensors, int64_t dim) {
  if (const auto to = autocast::cast_dtype(autocast::kPromoteOp, tensors))
    return cat(autocast::cast(tensors, *to), dim);
  EMBER_CHECK(!tensors.empty(), "cat: expected a non-empty list of tensors");
  const Tensor& first = tensors[0];
  const int64_t d = wrap_dim(dim, std::max<int64_t>(first.dim(), 1), "cat");
  EMBER_CHECK(first.dim() > 0, "cat: zero-dimensional tensors cannot be concatenated; use stack()");
  DimVector shape(first.sizes());
  ScalarType dtype = first.scalar_type();
  shape[d] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK(t.dim() == first.dim(), "cat: tensor ", i, " has ", t.dim(), " dims (shape ",
                t.sizes(), ") but tensor 0 has ", first.dim(), " (shape ", first.sizes(), ")");
    EMBER_CHECK(t.device() == first.device(), "cat: tensor ", i, " is on ", t.device(),
                " but tensor 0 is on ", first.device());
    for (int64_t j = 0; j < t.dim(); ++j)
      EMBER_CHECK(j == d || t.size(j) == first.size(j), "cat: sizes must match except in dimension ",
                  d, "; tensor ", i, " has shape ", t.sizes(), ", tensor 0 has shape ", first.sizes());
    shape[d] += t.size(d);
    dtype = promote_types(dtype, t.scalar_type());
  }
  Tensor out = empty(shape, first.options().dtype(dtype));
  DimVector offsets;
  {
    NoGradGuard guard;
    int64_t offset = 0;
    for (const Tensor& t : tensors) {
      offsets.push_back(offset);
      out.narrow(d, offset, t.size(d)).copy_(t);
      offset += t.size(d);
    }
  }
  if (autograd::needs_grad_list(tensors)) {
    DimVector lengths;
    for (const Tensor& t : tensors) lengths.push_back(t.size(d));
    // derivative of cat, stack: d/dtensors[i] = g.narrow(dim, offset_i, length_i)
    autograd::set_history(out, autograd::make_node("CatBackward", tensors,
        [d, offsets, lengths](Node& n, const tensor_list& g) {
          tensor_list grads(offsets.size());
          for (size_t i = 0; i < offsets.size(); ++i)
            if (n.needs_input_grad(i)) grads[i] = g[0].narrow(d, offsets[i], lengths[i]);
          return grads;
        }));
  }
  return out;
}

Tensor stack(TensorList tensors, int64_t dim) {
  if (const auto to = autocast::cast_dtype(autocast::kPromoteOp, tensors))
    return stack(autocast::cast(tensors, *to), dim);
  EMBER_CHECK(!tensors.empty(), "stack: expected a non-empty list of tensors");
  const int64_t d = wrap_dim(dim, tensors[0].dim() + 1, "stack");
  std::vector<Tensor> expanded;
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].sizes() == tensors[0].sizes(), "stack: all tensors must have one shape; tensor ",
                i, " has ", tensors[i].sizes(), ", tensor 0 has ", tensors[0].sizes());
    expanded.push_back(tensors[i].unsqueeze(d));
  }
  return cat(expanded, d);
}

std::vector<Tensor> broadcast_tensors(TensorList tensors) {
  DimVector shape;
  for (const Tensor& t : tensors) shape = broadcast_shapes(shape, t.sizes(), "broadcast_tensors");
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) out.push_back(t.expand(shape));
  return out;
}

}  // namespace ember
