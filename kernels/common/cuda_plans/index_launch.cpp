// The launch plans of gather, index_select and scatter_add (index_launch.h).
#include "ember/kernels/common/cuda_plans/index_launch.h"

#include "ember/core/dim_vector.h"

namespace ember::cuda {

namespace {

// index's strides seen over the iteration shape of index_select: the 1-d
// index runs along dim and is broadcast (stride 0) over every other dim.
DimVector index_select_index_strides(int64_t ndim, int64_t dim, const Tensor& index) {
  DimVector strides(static_cast<size_t>(ndim), 0);
  strides[dim] = index.stride(0);
  return strides;
}

}  // namespace

IndexLaunch plan_gather(const char* op, const Tensor& out, const Tensor& self, int64_t dim,
                        const Tensor& index) {
  return make_index_launch(op, index.sizes(), out.strides(), index.strides(), self.strides(),
                           dim, self.size(dim));
}

IndexLaunch plan_index_select(const char* op, const Tensor& out, const Tensor& self,
                              int64_t dim, const Tensor& index) {
  const DimVector index_strides = index_select_index_strides(out.dim(), dim, index);
  return make_index_launch(op, out.sizes(), out.strides(), index_strides.ref(), self.strides(),
                           dim, self.size(dim));
}

IndexLaunch plan_scatter_add(const char* op, const Tensor& self, int64_t dim,
                             const Tensor& index, const Tensor& src) {
  return make_index_launch(op, index.sizes(), src.strides(), index.strides(), self.strides(),
                           dim, self.size(dim));
}

}  // namespace ember::cuda
