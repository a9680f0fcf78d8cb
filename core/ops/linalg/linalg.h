#pragma once
// Products composed of mm/bmm and elementwise ops: tensordot, the add*
// family (baddbmm, addbmm, addmv, addr), mv, vdot, cross, kron.
#include <optional>

#include "ember/core/tensor.h"

namespace ember {

// Sums a's dims dims_a against b's dims_b (pairwise; a size 1 broadcasts);
// the result's dims are a's others, then b's others, in order.
Tensor tensordot(const Tensor& a, const Tensor& b, IntArrayRef dims_a, IntArrayRef dims_b);
Tensor mv(const Tensor& mat, const Tensor& vec);  // (n, m) @ (m) -> (n)
Tensor vdot(const Tensor& a, const Tensor& b);    // dot product (real dtypes: no conjugate)
// beta * self + alpha * product; self broadcasts to the product's shape, and
// beta = 0 ignores self's values (NaN included; its gradient is zero).
Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2,
               const Scalar& beta = 1, const Scalar& alpha = 1);  // product: bmm(batch1, batch2)
Tensor addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2,
              const Scalar& beta = 1,
              const Scalar& alpha = 1);  // product: bmm summed over the batch
Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta = 1,
             const Scalar& alpha = 1);  // product: mv(mat, vec)
Tensor addr(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta = 1,
            const Scalar& alpha = 1);  // product: outer(vec1, vec2)
// The cross product of 3-vectors along dim (same number of dims; the others broadcast).
Tensor linalg_cross(const Tensor& a, const Tensor& b, int64_t dim = -1);
// As linalg_cross; without dim (deprecated in libtorch 1.13), the first dim of a of size 3.
Tensor cross(const Tensor& a, const Tensor& b, std::optional<int64_t> dim = std::nullopt);
// Kronecker product: result[i * b.size + j] = a[i] * b[j] in every dim (the
// shorter shape padded with leading 1s).
Tensor kron(const Tensor& a, const Tensor& b);

}  // namespace ember
