// What is built on the decompositions, composed of ember ops: pinv,
// matrix_rank, cond, matrix_power, lstsq. Autograd comes from the ops they call.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ember/core/autocast.h"
#include "ember/autograd/grad_mode.h"
#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/elementwise/compare.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/linalg/linalg_norms.h"
#include "ember/core/ops/linalg/linalg_solve.h"
#include "ember/core/ops/linalg/linalg_spectral.h"
#include "ember/core/ops/linalg/matmul.h"
#include "ember/core/ops/reduction/reduce.h"
#include "ember/core/ops/elementwise/unary.h"
#include "ember/core/ops/shape/views.h"

namespace ember {

namespace {

Tensor mT(const Tensor& t) { return t.transpose(-2, -1); }

double machine_epsilon(const Tensor& A) {
  return A.scalar_type() == kFloat ? std::numeric_limits<float>::epsilon()
                                   : std::numeric_limits<double>::epsilon();
}

// max(atol, rtol * the largest of `values`) per matrix, shaped (..., 1);
// values: (..., k), non-negative, outside autograd. Defaults as linalg_pinv's.
Tensor tolerance(const Tensor& values, const Tensor& A, std::optional<double> atol,
                 std::optional<double> rtol) {
  const double r = rtol                ? *rtol
                   : atol && *atol > 0 ? 0.0
                                       : machine_epsilon(A) * static_cast<double>(std::max(A.size(-2), A.size(-1)));
  DimVector one_per_matrix(values.sizes());
  one_per_matrix[one_per_matrix.size() - 1] = 1;
  const Tensor largest = values.size(-1) > 0 ? amax(values, {-1}, /*keepdim=*/true)
                                             : zeros(one_per_matrix, values.options());
  return clamp_min(largest * r, atol.value_or(0.0));
}

// 1 / x where keep, else 0 (with no infinity on the way, for the gradient).
Tensor inverse_where(const Tensor& keep, const Tensor& x) {
  return where(keep, reciprocal(where(keep, x, 1.0)), 0.0);
}

// The decompositions would raise too, under their own names.
void check_cpu(const char* op, const Tensor& A) {
  EMBER_CHECK(!A.is_cuda(), op, ": CUDA is not supported yet (input on ", A.device(), ")");
}

void check_square(const char* op, const Tensor& A) {
  EMBER_CHECK(A.dim() >= 2 && A.size(-1) == A.size(-2), op,
              ": expected square matrices, got shape ", A.sizes());
}

}  // namespace

Tensor linalg_pinv(const Tensor& A, std::optional<double> atol, std::optional<double> rtol,
                   bool hermitian) {
  check_cpu("linalg.pinv", A);
  if (hermitian) {
    const auto [L, V] = linalg_eigh(A);
    const Tensor magnitude = abs(L.detach());
    const Tensor keep = magnitude > tolerance(magnitude, A, atol, rtol);
    return matmul(V * inverse_where(keep, L).unsqueeze(-2), mT(V));
  }
  const auto [U, S, Vh] = linalg_svd(A, /*full_matrices=*/false);
  const Tensor keep = S.detach() > tolerance(S.detach(), A, atol, rtol);
  return matmul(mT(Vh) * inverse_where(keep, S).unsqueeze(-2), mT(U));
}

Tensor linalg_pinv(const Tensor& A, double rcond, bool hermitian) {
  return linalg_pinv(A, 0.0, rcond, hermitian);
}

Tensor pinverse(const Tensor& A, double rcond) { return linalg_pinv(A, rcond, false); }

Tensor linalg_matrix_rank(const Tensor& A, std::optional<double> atol, std::optional<double> rtol,
                          bool hermitian) {
  check_cpu("linalg.matrix_rank", A);
  NoGradGuard no_grad;
  const Tensor values = hermitian ? abs(linalg_eigvalsh(A)) : linalg_svdvals(A);
  return sum(values > tolerance(values, A, atol, rtol), {-1});
}

Tensor linalg_matrix_rank(const Tensor& A, double tol, bool hermitian) {
  return linalg_matrix_rank(A, tol, 0.0, hermitian);
}

Tensor linalg_matrix_power(const Tensor& A, int64_t n) {
  check_square("linalg.matrix_power", A);
  if (n < 0) return linalg_matrix_power(linalg_inv(A), -n);
  // A^0: the identity, with a zero gradient for A (as libtorch's).
  if (n == 0) return where(zeros(A.sizes(), A.options().dtype(kBool)), A, eye(A.size(-1), A.options()));
  Tensor result, base = A;
  for (;;) {  // binary powering: A^n = product of A^(2^i) over the bits i of n
    if (n & 1) result = result.defined() ? matmul(result, base) : base.clone();
    n >>= 1;
    if (n == 0) return result;
    base = matmul(base, base);
  }
}

namespace {

// ||A|| ||A^-1|| in a norm other than the 2-norm; inf where A is singular (as libtorch).
template <typename Order>
Tensor cond_by_inverse(const Tensor& A, const Order& order) {
  check_square("linalg.cond", A);
  const auto [inverse, info] = linalg_inv_ex(A);
  const Tensor value = linalg_matrix_norm(A, order) * linalg_matrix_norm(inverse, order);
  return where(info != 0, full({}, std::numeric_limits<double>::infinity(), value.options()), value);
}

}  // namespace

Tensor linalg_cond(const Tensor& A, std::optional<Scalar> p) {
  const double order = p ? p->toDouble() : 2.0;
  if (order != 2 && order != -2) {
    EMBER_CHECK(std::abs(order) == 1 || std::isinf(order), "linalg.cond: p must be one of 2, -2, 1, -1, inf, -inf, "
                "\"fro\" or \"nuc\", got ", order);
    return cond_by_inverse(A, Scalar(order));
  }
  check_cpu("linalg.cond", A);
  const Tensor s = linalg_svdvals(A);
  const Tensor largest = amax(s, {-1}), smallest = amin(s, {-1});
  return order == 2 ? largest / smallest : smallest / largest;
}

Tensor linalg_cond(const Tensor& A, std::string_view p) {
  EMBER_CHECK(p == "fro" || p == "nuc", "linalg.cond: p must be one of 2, -2, 1, -1, inf, -inf, "
              "\"fro\" or \"nuc\", got \"", p, "\"");
  return cond_by_inverse(A, p);
}

std::tuple<Tensor, Tensor, Tensor, Tensor> linalg_lstsq(const Tensor& A, const Tensor& B,
                                                        std::optional<double> rcond,
                                                        std::optional<std::string_view> driver) {
  if (const auto to = autocast::cast_dtype(autocast::kCpuFloat32Op, {&A, &B})) {
    const autocast::Suspend as_listed(DeviceType::CPU);  // its inner ops as called
    return linalg_lstsq(autocast::cast(A, *to), autocast::cast(B, *to), rcond, driver);
  }
  const char* op = "linalg.lstsq";
  check_cpu(op, A);
  EMBER_CHECK(A.dim() >= 2, op, ": expected A to be a matrix or a batch of matrices, got shape ",
              A.sizes());
  EMBER_CHECK(B.dim() >= 1 && (A.dim() == B.dim() || A.dim() == B.dim() + 1), op,
              ": B must have as many dims as A, or one fewer (one right-hand side), got shapes ",
              A.sizes(), " and ", B.sizes());
  EMBER_CHECK(A.device() == B.device() && A.scalar_type() == B.scalar_type(), op,
              ": expected A and B of one dtype and device, got ", A.scalar_type(), " on ",
              A.device(), " and ", B.scalar_type(), " on ", B.device());
  EMBER_CHECK(!driver || *driver == "gels" || *driver == "gelsy" || *driver == "gelsd" ||
                  *driver == "gelss",
              op, ": driver must be \"gels\", \"gelsy\", \"gelsd\" or \"gelss\", got \"",
              *driver, "\"");
  const bool one_rhs = A.dim() == B.dim() + 1;
  const Tensor b = one_rhs ? B.unsqueeze(-1) : B;
  const int64_t m = A.size(-2), n = A.size(-1);
  EMBER_CHECK(b.size(-2) == m, op, ": A and B must have the same number of rows, got shapes ",
              A.sizes(), " and ", B.sizes());
  const auto [U, S, Vh] = linalg_svd(A, /*full_matrices=*/false);
  // A negative rcond means machine precision, as LAPACK's.
  std::optional<double> rtol = rcond;
  if (rcond && *rcond < 0) rtol = machine_epsilon(A);
  const Tensor keep = S.detach() > tolerance(S.detach(), A, std::nullopt, rtol);
  Tensor X = matmul(mT(Vh) * inverse_where(keep, S).unsqueeze(-2), matmul(mT(U), b));
  const Tensor rank = sum(keep, {-1});
  Tensor residuals = empty({0}, A.options());
  if (m > n && all(rank == n).item<bool>()) {
    const Tensor r = matmul(A, X) - b;
    residuals = sum(r * r, {-2});
    if (one_rhs) residuals = residuals.squeeze(-1);
  }
  if (one_rhs) X = X.squeeze(-1);
  return {X, residuals, rank, S};
}

}  // namespace ember
