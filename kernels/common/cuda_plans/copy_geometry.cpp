#include "ember/kernels/common/cuda_plans/copy_geometry.h"

#include "ember/core/error.h"
#include "ember/kernels/common/cuda_plans/elementwise_geometry.h"

namespace ember::cuda {

// The elementwise geometry of one input (kernels/common/cuda_plans/elementwise_geometry.h).
CopyGeometry make_copy_geometry(const char* op, IntArrayRef sizes, IntArrayRef dst_strides,
                                IntArrayRef src_sizes, IntArrayRef src_strides) {
  EMBER_INTERNAL_ASSERT(src_sizes.size() <= sizes.size() &&
                            src_strides.size() == src_sizes.size(),
                        "copy geometry: src shape ", src_sizes, " vs dst shape ", sizes);
  const ElementwiseGeometry e =
      make_elementwise_geometry(op, sizes, dst_strides, &src_sizes, &src_strides, 1, "copy");
  CopyGeometry g;
  g.ndim = e.ndim;
  for (int d = 0; d < e.ndim; ++d) {
    g.sizes[d] = e.sizes[d];
    g.dst_strides[d] = e.strides[0][d];
    g.src_strides[d] = e.strides[1][d];
  }
  return g;
}

}  // namespace ember::cuda
