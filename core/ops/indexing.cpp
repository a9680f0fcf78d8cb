// STUB: replaced by the real implementation.
#include "ember/core/ops/indexing.h"
#include "ember/core/error.h"

namespace ember {

Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index) { EMBER_ERROR("index_select: not implemented yet"); }
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index) { EMBER_ERROR("gather: not implemented yet"); }
Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) { EMBER_ERROR("scatter_add: not implemented yet"); }
Tensor embedding(const Tensor& weight, const Tensor& indices) { EMBER_ERROR("embedding: not implemented yet"); }
Tensor one_hot(const Tensor& indices, int64_t num_classes) { EMBER_ERROR("one_hot: not implemented yet"); }
Tensor masked_fill(const Tensor& x, const Tensor& mask, const Scalar& value) { EMBER_ERROR("masked_fill: not implemented yet"); }
Tensor Tensor::index_select(int64_t dim, const Tensor& index) const { EMBER_ERROR("index_select: not implemented yet"); }
Tensor Tensor::gather(int64_t dim, const Tensor& index) const { EMBER_ERROR("gather: not implemented yet"); }
Tensor Tensor::scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const { EMBER_ERROR("scatter_add: not implemented yet"); }
Tensor& Tensor::scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) { EMBER_ERROR("scatter_add_: not implemented yet"); }
Tensor Tensor::masked_fill(const Tensor& mask, const Scalar& value) const { EMBER_ERROR("masked_fill: not implemented yet"); }

}  // namespace ember
