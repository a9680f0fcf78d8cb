#include "ember/kernels/common/cuda_plans/indexing_plan.h"

#include "ember/core/error.h"
#include "ember/core/shape.h"

namespace ember::cuda {

IndexLaunch make_index_launch(const char* op, IntArrayRef iter_sizes, IntArrayRef dense_strides,
                              IntArrayRef index_strides, IntArrayRef indexed_strides, int64_t dim,
                              int64_t indexed_size) {
  const size_t n = iter_sizes.size();
  EMBER_INTERNAL_ASSERT(dense_strides.size() == n && index_strides.size() == n &&
                            indexed_strides.size() == n && dim >= 0 && dim < int64_t(n),
                        op, ": index launch over ", iter_sizes, " at dim ", dim);
  DimVector at_dim_zero(indexed_strides);
  at_dim_zero[dim] = 0;
  const IntArrayRef sizes[] = {iter_sizes, iter_sizes};
  const IntArrayRef strides[] = {index_strides, at_dim_zero.ref()};
  IndexLaunch l;
  l.geometry = make_elementwise_geometry(op, iter_sizes, dense_strides, sizes, strides, 2,
                                         "indexing op");
  l.numel = compute_numel(iter_sizes);
  l.indexed_stride = indexed_strides[dim];
  l.indexed_size = indexed_size;
  l.dim = dim;
  return l;
}

}  // namespace ember::cuda
