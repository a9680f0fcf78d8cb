#pragma once
// Internal: the argument checks and gradient pieces shared by the indexing
// ops (indexing.cpp: gather, scatter_add; scatter.cpp; index_ops.cpp).
#include "ember/core/tensor.h"

namespace ember::detail {

void check_index_dtype(const char* op, const Tensor& index);
// CPU only (on CUDA the kernels check, kernels/cuda/indexing.h): an Error
// naming op, dim, the first bad value and `size` when an index is outside [0, size).
void check_index_values(const char* op, const Tensor& index, int64_t dim, int64_t size);
// 0-d tensors act as 1-d of one element (as PyTorch's gather/scatter do).
inline Tensor at_least_1d(const Tensor& t) { return t.dim() > 0 ? t : t.view({1}); }
// gather/scatter shape rules: equal ranks, index no larger than *src in any
// dim (when given), and than self in dims != dim.
void check_index_shape(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                       const Tensor* src);
// g placed at the leading corner of zeros of `sizes` (g itself when it fits):
// the gradient of a src larger than index. A scatter_add, so differentiable.
Tensor pad_to(const Tensor& g, IntArrayRef sizes, int64_t dim);
// The gradient of a scatter's src: g gathered at index, placed at the leading
// corner of zeros of src's shape (src may be larger than index).
Tensor scatter_grad_src(const Tensor& g, int64_t dim, const Tensor& index, IntArrayRef src_sizes);

}  // namespace ember::detail
