#pragma once
// Internal helpers shared by the reduction op files (reduce.cpp, softmax.cpp):
// which dims a dim list names, the shapes of a reduction, and putting the
// reduced dims back into a gradient.
#include <cstdint>

#include "ember/autograd/grad_mode.h"
#include "ember/core/tensor.h"

namespace ember::detail {

// Bit d set: dim d is reduced. Tensors have at most 64 dims here.
using DimMask = uint64_t;

inline bool is_reduced(DimMask mask, int64_t d) { return (mask >> d) & 1u; }

// One dim wrapped (negative counts from the end; a 0-d tensor accepts 0 and
// -1). The error names the op, the dim and the tensor's shape.
inline int64_t wrap_reduction_dim(const char* op, const Tensor& x, int64_t dim) {
  const int64_t nd = x.dim();
  const int64_t lo = nd == 0 ? -1 : -nd, hi = nd == 0 ? 0 : nd - 1;
  EMBER_CHECK(dim >= lo && dim <= hi, op, ": dimension ", dim,
              " is out of range for a tensor of shape ", x.sizes(), " (", nd,
              " dims; expected a dim in [", lo, ", ", hi, "])");
  return dim < 0 ? dim + (nd == 0 ? 1 : nd) : dim;
}

// The dims `dims` names, all of them when it is empty. A dim named twice is an error.
inline DimMask reduction_mask(const char* op, const Tensor& x, IntArrayRef dims) {
  const int64_t nd = x.dim();
  EMBER_CHECK(nd <= 64, op, ": reductions support up to 64 dims, got a tensor of shape ",
              x.sizes());
  if (dims.empty()) return nd == 64 ? ~DimMask(0) : (DimMask(1) << nd) - 1;
  DimMask mask = 0;
  for (int64_t dim : dims) {
    const int64_t d = wrap_reduction_dim(op, x, dim);
    if (nd == 0) continue;  // a 0-d tensor has nothing to reduce
    EMBER_CHECK(!is_reduced(mask, d), op, ": dim ", d, " appears more than once in the dims ", dims,
                " (tensor of shape ", x.sizes(), ")");
    mask |= DimMask(1) << d;
  }
  return mask;
}

struct ReduceShape {
  DimVector keep;     // x's shape with 1 at the reduced dims (what the kernels write)
  DimVector out;      // the result's shape: keep, or without the reduced dims
  int64_t count = 1;  // elements reduced into each output
};

inline ReduceShape reduce_shape(const Tensor& x, DimMask mask, bool keepdim) {
  ReduceShape rs;
  for (int64_t d = 0; d < x.dim(); ++d) {
    const bool reduced = is_reduced(mask, d);
    rs.keep.push_back(reduced ? 1 : x.size(d));
    if (reduced) rs.count *= x.size(d);
    if (!reduced || keepdim) rs.out.push_back(rs.keep.back());
  }
  return rs;
}

// x's shape seen as (outer, n, inner) around dim d; a 0-d tensor is (1, 1, 1).
struct LineShape {
  int64_t outer = 1, n = 1, inner = 1;
};
inline LineShape line_shape(const Tensor& x, int64_t d) {
  LineShape l;
  for (int64_t i = 0; i < x.dim(); ++i) {
    if (i < d)
      l.outer *= x.size(i);
    else if (i == d)
      l.n = x.size(i);
    else
      l.inner *= x.size(i);
  }
  return l;
}

// x contiguous (a copy only when it is not) for a kernel to read; records nothing.
inline Tensor contiguous_for_kernel(const Tensor& x) {
  NoGradGuard guard;
  return x.contiguous();
}

// g, shaped as a reduction's result, with the reduced dims back as size 1
// (a view), so that it broadcasts against the input.
inline Tensor restore_reduced_dims(const Tensor& g, int64_t ndim, DimMask mask, bool keepdim) {
  if (keepdim) return g;
  Tensor r = g;
  for (int64_t d = 0; d < ndim; ++d)
    if (is_reduced(mask, d)) r = r.unsqueeze(d);
  return r;
}

}  // namespace ember::detail
