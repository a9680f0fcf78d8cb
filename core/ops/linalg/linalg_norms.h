#pragma once
// Vector and matrix norms, composed of reductions (abs, sum, amax, norm) and,
// for the 2-norm and the nuclear norm of matrices, linalg_svdvals.
#include <optional>
#include <string_view>

#include "ember/core/tensor.h"

namespace ember {

// (sum |x|^ord)^(1 / ord) over dim (empty = all dims), for any real ord: inf
// is max |x|, -inf min |x|, 0 the number of nonzero elements. dtype: x is
// cast to it first (a floating dtype).
Tensor linalg_vector_norm(const Tensor& x, const Scalar& ord = 2, IntArrayRef dim = {},
                          bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
// The norm of the matrices in dims dim (two of them): ord "fro" (Frobenius),
// "nuc" (sum of singular values), 1 / -1 (max / min column sum of |A|), inf /
// -inf (max / min row sum), 2 / -2 (largest / smallest singular value).
Tensor linalg_matrix_norm(const Tensor& A, const Scalar& ord, IntArrayRef dim = {-2, -1},
                          bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor linalg_matrix_norm(const Tensor& A, std::string_view ord = "fro", IntArrayRef dim = {-2, -1},
                          bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
// A string literal would also convert to Scalar (through bool): this takes it.
inline Tensor linalg_matrix_norm(const Tensor& A, const char* ord, IntArrayRef dim = {-2, -1},
                                 bool keepdim = false,
                                 std::optional<ScalarType> dtype = std::nullopt) {
  return linalg_matrix_norm(A, std::string_view(ord), dim, keepdim, dtype);
}
// libtorch's dispatch: a matrix norm when dim has two dims, or when ord is
// given, dim is empty and x has two dims; otherwise the vector norm (ord 2 by
// default, over all dims when dim is empty). Given an ord but no dim, x must
// have 1 or 2 dims. An empty dim stands for libtorch's None.
Tensor linalg_norm(const Tensor& x, const std::optional<Scalar>& ord = std::nullopt,
                   IntArrayRef dim = {}, bool keepdim = false,
                   std::optional<ScalarType> dtype = std::nullopt);
Tensor linalg_norm(const Tensor& x, std::string_view ord, IntArrayRef dim = {},
                   bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
inline Tensor linalg_norm(const Tensor& x, const char* ord, IntArrayRef dim = {},
                          bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) {
  return linalg_norm(x, std::string_view(ord), dim, keepdim, dtype);
}

// libtorch's torch::linalg:: names.
namespace linalg {
inline Tensor vector_norm(const Tensor& x, const Scalar& ord = 2, IntArrayRef dim = {},
                          bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) {
  return linalg_vector_norm(x, ord, dim, keepdim, dtype);
}
inline Tensor matrix_norm(const Tensor& A, const Scalar& ord, IntArrayRef dim = {-2, -1},
                          bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) {
  return linalg_matrix_norm(A, ord, dim, keepdim, dtype);
}
inline Tensor matrix_norm(const Tensor& A, std::string_view ord = "fro", IntArrayRef dim = {-2, -1},
                          bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) {
  return linalg_matrix_norm(A, ord, dim, keepdim, dtype);
}
inline Tensor matrix_norm(const Tensor& A, const char* ord, IntArrayRef dim = {-2, -1},
                          bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) {
  return linalg_matrix_norm(A, std::string_view(ord), dim, keepdim, dtype);
}
inline Tensor norm(const Tensor& x, const std::optional<Scalar>& ord = std::nullopt,
                   IntArrayRef dim = {}, bool keepdim = false,
                   std::optional<ScalarType> dtype = std::nullopt) {
  return linalg_norm(x, ord, dim, keepdim, dtype);
}
inline Tensor norm(const Tensor& x, std::string_view ord, IntArrayRef dim = {},
                   bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) {
  return linalg_norm(x, ord, dim, keepdim, dtype);
}
inline Tensor norm(const Tensor& x, const char* ord, IntArrayRef dim = {}, bool keepdim = false,
                   std::optional<ScalarType> dtype = std::nullopt) {
  return linalg_norm(x, std::string_view(ord), dim, keepdim, dtype);
}
}  // namespace linalg

}  // namespace ember
