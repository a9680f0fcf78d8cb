// Composites: autograd and CUDA come from the reductions they call (and, for
// ord 2 and "nuc" of matrices, from linalg_svdvals, CPU only so far).
#include "ember/core/autocast.h"
#include "ember/core/ops/linalg/linalg_norms.h"

#include <cmath>
#include <utility>
#include <vector>

#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/linalg/linalg_spectral.h"
#include "ember/core/ops/reduction/reduce.h"
#include "ember/core/ops/elementwise/unary.h"
#include "ember/core/shape.h"

namespace ember {

namespace {

Tensor cast_to(const char* op, const Tensor& x, std::optional<ScalarType> dtype) {
  EMBER_CHECK(x.is_floating_point(), op, ": expected a floating point tensor, got ",
              x.scalar_type());
  if (!dtype) return x;
  EMBER_CHECK(is_floating_point(*dtype), op, ": dtype must be floating point, got ", *dtype);
  return x.to(*dtype);
}

// Reductions without an identity (max, min, negative powers) need elements.
void check_nonempty_reduction(const char* op, const Tensor& x, IntArrayRef dim, double ord) {
  bool empty = dim.empty() && x.numel() == 0;
  for (int64_t d : dim) empty = empty || x.size(wrap_dim(d, x.dim(), op)) == 0;
  EMBER_CHECK(!empty, op, ": cannot compute the ", ord, "-norm over an empty dim (shape ",
              x.sizes(), ", dim ", dim, "): the reduction has no identity");
}

// The two matrix dims, wrapped and checked.
std::pair<int64_t, int64_t> matrix_dims(const char* op, const Tensor& A, IntArrayRef dim) {
  EMBER_CHECK(A.dim() >= 2, op, ": expected a matrix or a batch of matrices, got shape ",
              A.sizes());
  EMBER_CHECK(dim.size() == 2, op, ": dim must name two dims, got ", dim);
  const int64_t d0 = wrap_dim(dim[0], A.dim(), op), d1 = wrap_dim(dim[1], A.dim(), op);
  EMBER_CHECK(d0 != d1, op, ": dim must name two different dims, got ", dim);
  return {d0, d1};
}

// Undoes the removal of dims d0 and d1 when keepdim.
Tensor restore_dims(const Tensor& r, int64_t d0, int64_t d1, bool keepdim) {
  return keepdim ? r.unsqueeze(std::min(d0, d1)).unsqueeze(std::max(d0, d1)) : r;
}

// The singular values of the matrices in dims (d0, d1), in the last dim.
Tensor singular_values(const Tensor& A, int64_t d0, int64_t d1) {
  EMBER_CHECK(!A.is_cuda(), "linalg.matrix_norm: CUDA is not supported yet for ord 2, -2 and "
              "\"nuc\" (input on ", A.device(), ")");
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < A.dim(); ++d)
    if (d != d0 && d != d1) perm.push_back(d);
  perm.push_back(d0);
  perm.push_back(d1);
  return linalg_svdvals(A.permute(perm));
}

}  // namespace

Tensor linalg_vector_norm(const Tensor& x, const Scalar& ord, IntArrayRef dim, bool keepdim,
                          std::optional<ScalarType> dtype) {
  const char* op = "linalg.vector_norm";
  const Tensor xt = cast_to(op, x, dtype);
  const double p = ord.toDouble();
  if (p < 0 || std::isinf(p)) check_nonempty_reduction(op, xt, dim, p);
  if (p >= 0 || p == -INFINITY) return norm(xt, p, dim, keepdim);
  return pow(sum(pow(abs(xt), p), dim, keepdim), 1.0 / p);
}

Tensor linalg_matrix_norm(const Tensor& A, const Scalar& ord, IntArrayRef dim, bool keepdim,
                          std::optional<ScalarType> dtype) {
  // An explicit dtype is kept, as PyTorch's autocast does.
  if (const auto to = dtype ? std::nullopt : autocast::cast_dtype(autocast::kCpuFloat32Op, {&A})) {
    const autocast::Suspend as_listed(DeviceType::CPU);  // its inner ops as called
    return linalg_matrix_norm(autocast::cast(A, *to), ord, dim, keepdim);
  }
  const char* op = "linalg.matrix_norm";
  const auto [d0, d1] = matrix_dims(op, A, dim);
  const Tensor a = cast_to(op, A, dtype);
  const double p = ord.toDouble();
  if (std::abs(p) == 2) {
    const Tensor s = singular_values(a, d0, d1);
    return restore_dims(p > 0 ? amax(s, {-1}) : amin(s, {-1}), d0, d1, keepdim);
  }
  EMBER_CHECK(std::abs(p) == 1 || std::isinf(p), op, ": ord ", ord,
              " is not supported (1, -1, 2, -2, inf, -inf, \"fro\" and \"nuc\" are)");
  // ord 1: the max over columns of the sums down each column; inf: over rows.
  const int64_t summed = std::abs(p) == 1 ? d0 : d1, other = std::abs(p) == 1 ? d1 : d0;
  const Tensor sums = sum(abs(a), {summed}, /*keepdim=*/true);
  const Tensor r = p > 0 ? amax(sums, {other}, true) : amin(sums, {other}, true);
  return keepdim ? r : r.squeeze(std::max(d0, d1)).squeeze(std::min(d0, d1));
}

Tensor linalg_matrix_norm(const Tensor& A, std::string_view ord, IntArrayRef dim, bool keepdim,
                          std::optional<ScalarType> dtype) {
  if (const auto to = dtype ? std::nullopt : autocast::cast_dtype(autocast::kCpuFloat32Op, {&A})) {
    const autocast::Suspend as_listed(DeviceType::CPU);  // its inner ops as called
    return linalg_matrix_norm(autocast::cast(A, *to), ord, dim, keepdim);
  }
  const char* op = "linalg.matrix_norm";
  const auto [d0, d1] = matrix_dims(op, A, dim);
  const Tensor a = cast_to(op, A, dtype);
  if (ord == "fro") return linalg_vector_norm(a, 2, {d0, d1}, keepdim);
  EMBER_CHECK(ord == "nuc", op, ": ord \"", ord, "\" is not supported (\"fro\" and \"nuc\" are)");
  return restore_dims(sum(singular_values(a, d0, d1), {-1}), d0, d1, keepdim);
}

namespace {

void check_norm_dims(const Tensor& x, IntArrayRef dim, bool has_ord) {
  if (!dim.empty())
    EMBER_CHECK(dim.size() == 1 || dim.size() == 2, "linalg.norm: dim must name 1 or 2 dims, got ",
                dim);
  else if (has_ord)
    EMBER_CHECK(x.dim() == 1 || x.dim() == 2,
                "linalg.norm: with ord but no dim, the input must have 1 or 2 dims, got shape ",
                x.sizes());
}

std::vector<int64_t> dims_or_matrix(IntArrayRef dim) {
  return dim.empty() ? std::vector<int64_t>{0, 1} : dim.vec();
}

}  // namespace

Tensor linalg_norm(const Tensor& x, const std::optional<Scalar>& ord, IntArrayRef dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  check_norm_dims(x, dim, ord.has_value());
  if (ord && (dim.size() == 2 || (dim.empty() && x.dim() == 2)))
    return linalg_matrix_norm(x, *ord, dims_or_matrix(dim), keepdim, dtype);
  return linalg_vector_norm(x, ord.value_or(2), dim, keepdim, dtype);
}

Tensor linalg_norm(const Tensor& x, std::string_view ord, IntArrayRef dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  check_norm_dims(x, dim, true);
  return linalg_matrix_norm(x, ord, dims_or_matrix(dim), keepdim, dtype);
}

}  // namespace ember
