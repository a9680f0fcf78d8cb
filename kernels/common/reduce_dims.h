#pragma once
// The first step of a reduction's layout on either backend (Note [Reduction
// layout] in kernels/cpu/reduce_loops.h): the dims of an input of (sizes, strides)
// reduced into keep_sizes (1 where reduced), size-1 dims dropped, ordered by
// input stride innermost first (stride-0 dims outermost), and neighbours of
// the same kind that step through input and output as one dim merged.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "ember/core/shape.h"

namespace ember {

struct ReduceDim {
  int64_t size, in_stride, out_stride;  // out_stride 0 for a reduced dim
  bool reduced;
};

// Innermost dims have the smallest input strides; stride-0 (expanded) dims go outermost.
inline int64_t reduce_order_key(int64_t in_stride) {
  return in_stride == 0 ? INT64_MAX : in_stride;
}

inline std::vector<ReduceDim> merged_reduce_dims(IntArrayRef sizes, IntArrayRef strides,
                                                 IntArrayRef keep_sizes) {
  const DimVector out_strides = contiguous_strides(keep_sizes);
  std::vector<ReduceDim> dims;
  dims.reserve(sizes.size());
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    if (sizes[d] == 1) continue;
    const bool reduced = keep_sizes[d] == 1;
    dims.push_back({sizes[d], strides[d], reduced ? 0 : out_strides[d], reduced});
  }
  std::stable_sort(dims.begin(), dims.end(), [](const ReduceDim& a, const ReduceDim& b) {
    return reduce_order_key(a.in_stride) < reduce_order_key(b.in_stride);
  });
  std::vector<ReduceDim> merged;
  for (size_t i = 0; i < dims.size();) {
    ReduceDim cur = dims[i++];
    while (i < dims.size() && dims[i].reduced == cur.reduced &&
           dims[i].in_stride == cur.in_stride * cur.size &&
           dims[i].out_stride == cur.out_stride * cur.size)
      cur.size *= dims[i++].size;
    merged.push_back(cur);
  }
  return merged;
}

}  // namespace ember
