// STUB: replaced by the real implementation.
#include "ember/core/ops/compare.h"
#include "ember/core/error.h"

namespace ember {

Tensor eq(const Tensor& a, const Tensor& b) { EMBER_ERROR("eq: not implemented yet"); }
Tensor eq(const Tensor& a, const Scalar& b) { EMBER_ERROR("eq: not implemented yet"); }
Tensor ne(const Tensor& a, const Tensor& b) { EMBER_ERROR("ne: not implemented yet"); }
Tensor ne(const Tensor& a, const Scalar& b) { EMBER_ERROR("ne: not implemented yet"); }
Tensor lt(const Tensor& a, const Tensor& b) { EMBER_ERROR("lt: not implemented yet"); }
Tensor lt(const Tensor& a, const Scalar& b) { EMBER_ERROR("lt: not implemented yet"); }
Tensor le(const Tensor& a, const Tensor& b) { EMBER_ERROR("le: not implemented yet"); }
Tensor le(const Tensor& a, const Scalar& b) { EMBER_ERROR("le: not implemented yet"); }
Tensor gt(const Tensor& a, const Tensor& b) { EMBER_ERROR("gt: not implemented yet"); }
Tensor gt(const Tensor& a, const Scalar& b) { EMBER_ERROR("gt: not implemented yet"); }
Tensor ge(const Tensor& a, const Tensor& b) { EMBER_ERROR("ge: not implemented yet"); }
Tensor ge(const Tensor& a, const Scalar& b) { EMBER_ERROR("ge: not implemented yet"); }
bool equal(const Tensor& a, const Tensor& b) { EMBER_ERROR("equal: not implemented yet"); }
bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol) { EMBER_ERROR("allclose: not implemented yet"); }
Tensor Tensor::eq(const Tensor& other) const { EMBER_ERROR("eq: not implemented yet"); }
Tensor Tensor::eq(const Scalar& other) const { EMBER_ERROR("eq: not implemented yet"); }
Tensor Tensor::ne(const Tensor& other) const { EMBER_ERROR("ne: not implemented yet"); }
Tensor Tensor::ne(const Scalar& other) const { EMBER_ERROR("ne: not implemented yet"); }
Tensor Tensor::lt(const Tensor& other) const { EMBER_ERROR("lt: not implemented yet"); }
Tensor Tensor::lt(const Scalar& other) const { EMBER_ERROR("lt: not implemented yet"); }
Tensor Tensor::le(const Tensor& other) const { EMBER_ERROR("le: not implemented yet"); }
Tensor Tensor::le(const Scalar& other) const { EMBER_ERROR("le: not implemented yet"); }
Tensor Tensor::gt(const Tensor& other) const { EMBER_ERROR("gt: not implemented yet"); }
Tensor Tensor::gt(const Scalar& other) const { EMBER_ERROR("gt: not implemented yet"); }
Tensor Tensor::ge(const Tensor& other) const { EMBER_ERROR("ge: not implemented yet"); }
Tensor Tensor::ge(const Scalar& other) const { EMBER_ERROR("ge: not implemented yet"); }
Tensor operator==(const Tensor& a, const Tensor& b) { EMBER_ERROR("eq: not implemented yet"); }
Tensor operator==(const Tensor& a, const Scalar& b) { EMBER_ERROR("eq: not implemented yet"); }
Tensor operator!=(const Tensor& a, const Tensor& b) { EMBER_ERROR("ne: not implemented yet"); }
Tensor operator!=(const Tensor& a, const Scalar& b) { EMBER_ERROR("ne: not implemented yet"); }
Tensor operator<(const Tensor& a, const Tensor& b) { EMBER_ERROR("lt: not implemented yet"); }
Tensor operator<(const Tensor& a, const Scalar& b) { EMBER_ERROR("lt: not implemented yet"); }
Tensor operator<=(const Tensor& a, const Tensor& b) { EMBER_ERROR("le: not implemented yet"); }
Tensor operator<=(const Tensor& a, const Scalar& b) { EMBER_ERROR("le: not implemented yet"); }
Tensor operator>(const Tensor& a, const Tensor& b) { EMBER_ERROR("gt: not implemented yet"); }
Tensor operator>(const Tensor& a, const Scalar& b) { EMBER_ERROR("gt: not implemented yet"); }
Tensor operator>=(const Tensor& a, const Tensor& b) { EMBER_ERROR("ge: not implemented yet"); }
Tensor operator>=(const Tensor& a, const Scalar& b) { EMBER_ERROR("ge: not implemented yet"); }

}  // namespace ember
