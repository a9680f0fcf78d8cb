#pragma once
// Internal to the linalg_* op files: argument checks, batched copies for the
// in-place kernels, the calls into the linalg kernel table, and the errors
// raised from their info codes.
#include <algorithm>
#include <string>

#include "ember/autograd/grad_mode.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/shape.h"
#include "ember/core/tensor.h"
#include "ember/kernels/common/kernel_registry.h"

namespace ember::detail {

// A float32/float64 tensor of at least 2 dims (square when `square`).
inline void check_matrix(const char* op, const char* name, const Tensor& A, bool square) {
  EMBER_CHECK(A.defined(), op, ": ", name, " is undefined");
  EMBER_CHECK(A.dim() >= 2, op, ": ", name, " must have at least 2 dims, got shape ", A.sizes());
  EMBER_CHECK(A.scalar_type() == kFloat || A.scalar_type() == kDouble, op, ": ", name,
              " must be float32 or float64, got ", A.scalar_type());
  EMBER_CHECK(!square || A.size(-1) == A.size(-2), op, ": ", name,
              " must be a batch of square matrices, got shape ", A.sizes());
}

// B against A: one dtype, one device.
inline void check_same_kind(const char* op, const Tensor& A, const Tensor& B) {
  EMBER_CHECK(B.defined(), op, ": B is undefined");
  EMBER_CHECK(A.device() == B.device(), op, ": expected A and B on one device, got ", A.device(),
              " and ", B.device());
  EMBER_CHECK(A.scalar_type() == B.scalar_type(), op, ": expected A and B of one dtype, got ",
              A.scalar_type(), " and ", B.scalar_type());
}

// B (matrices) fits n x n A on its side: n rows for A X = B, n columns for X A = B.
inline void check_rhs(const char* op, const Tensor& A, const Tensor& B, bool left) {
  const int64_t n = A.size(-1);
  EMBER_CHECK((left ? B.size(-2) : B.size(-1)) == n, op, ": A of shape ", A.sizes(),
              " and B of shape ", B.sizes(), " do not match (", left ? "A X = B" : "X A = B",
              " needs B with ", n, left ? " rows)" : " columns)");
}

inline DimVector batch_dims(const Tensor& A) {
  return DimVector(A.sizes().slice(0, static_cast<size_t>(A.dim() - 2)));
}

inline int64_t numel_of(IntArrayRef shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

// shape + (rows, cols).
inline DimVector with_matrix(IntArrayRef batch, int64_t rows, int64_t cols) {
  DimVector s(batch);
  s.push_back(rows);
  s.push_back(cols);
  return s;
}

// The linalg table's kernels (kernels/common/linalg_kernels.h) for the
// tensors' device (`info` is a CPU tensor either way).
inline void lu_factor_kernel(const Tensor& lu, const Tensor& pivots, const Tensor& info) {
  kernels().linalg.lu_factor.on(lu.device(), "lu_factor")(lu, pivots, info);
}
inline void lu_solve_kernel(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool transpose) {
  kernels().linalg.lu_solve.on(b.device(), "lu_solve")(lu, pivots, b, transpose);
}
inline void cholesky_kernel(const Tensor& a, const Tensor& info) {
  kernels().linalg.cholesky.on(a.device(), "cholesky")(a, info);
}
inline void triangular_solve_kernel(const Tensor& a, const Tensor& b, bool upper, bool unitriangular) {
  kernels().linalg.triangular_solve.on(b.device(), "triangular_solve")(a, b, upper,
                                                                       unitriangular);
}

// A fresh contiguous (B, rows, cols) copy of x expanded to batch + its
// matrix shape, for a kernel to overwrite; records nothing.
inline Tensor batch_copy(const Tensor& x, IntArrayRef batch) {
  NoGradGuard no_grad;
  const int64_t rows = x.size(-2), cols = x.size(-1);
  Tensor out = empty({numel_of(batch), rows, cols}, x.options());
  out.view(with_matrix(batch, rows, cols)).copy_(x.expand(with_matrix(batch, rows, cols)));
  return out;
}

// Raises when some info (B) int64 entry is non-zero: "<op>: (Batch element
// i): <what(info)>"; the batch element is named when A is batched.
template <typename What>
void raise_on_info(const char* op, const Tensor& info, bool batched, const What& what) {
  const int64_t* p = info.data_ptr<int64_t>();
  for (int64_t i = 0; i < info.numel(); ++i) {
    if (p[i] == 0) continue;
    if (batched) EMBER_ERROR(op, ": (Batch element ", i, "): ", what(p[i]));
    EMBER_ERROR(op, ": ", what(p[i]));
  }
}

// lu_factor's results for A (..., m, n) expanded to `batch`, flattened to
// (B, m, n), (B, min(m, n)), (B) (info on the CPU); records nothing, raises nothing.
struct LuFactors {
  Tensor lu, pivots, info;
};
inline LuFactors lu_factors(const Tensor& A, IntArrayRef batch) {
  NoGradGuard no_grad;
  const int64_t count = numel_of(batch), k = std::min(A.size(-2), A.size(-1));
  LuFactors f{batch_copy(A, batch), empty({count, k}, A.options().dtype(kLong)),
              empty({count}, TensorOptions().dtype(kLong))};
  lu_factor_kernel(f.lu, f.pivots, f.info);
  return f;
}

}  // namespace ember::detail
