// STUB: replaced by the real implementation.
#include "ember/core/ops/matmul.h"
#include "ember/core/error.h"

namespace ember {

Tensor mm(const Tensor& a, const Tensor& b) { EMBER_ERROR("mm: not implemented yet"); }
Tensor bmm(const Tensor& a, const Tensor& b) { EMBER_ERROR("bmm: not implemented yet"); }
Tensor matmul(const Tensor& a, const Tensor& b) { EMBER_ERROR("matmul: not implemented yet"); }
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) { EMBER_ERROR("addmm: not implemented yet"); }
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) { EMBER_ERROR("linear: not implemented yet"); }
Tensor dot(const Tensor& a, const Tensor& b) { EMBER_ERROR("dot: not implemented yet"); }
Tensor outer(const Tensor& a, const Tensor& b) { EMBER_ERROR("outer: not implemented yet"); }
Tensor Tensor::matmul(const Tensor& other) const { EMBER_ERROR("matmul: not implemented yet"); }
Tensor Tensor::mm(const Tensor& other) const { EMBER_ERROR("mm: not implemented yet"); }
Tensor Tensor::bmm(const Tensor& other) const { EMBER_ERROR("bmm: not implemented yet"); }
Tensor Tensor::addmm(const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) const { EMBER_ERROR("addmm: not implemented yet"); }

}  // namespace ember
