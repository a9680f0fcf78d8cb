// The decompositions: argument checks, the Eigen kernels through the linalg
// kernel table (kernels/common/linalg_kernels.h; CPU only), and their
// derivatives written with ember ops, so that double backward works.
#include "ember/core/autocast.h"
#include "ember/core/ops/linalg/linalg_spectral.h"

#include <string>

#include "ember/autograd/function.h"
#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/shape/diagonal.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/linalg/matmul.h"
#include "ember/core/ops/shape/shape_ops.h"
#include "ember/kernels/common/kernel_registry.h"

namespace ember {

using autograd::Node;

namespace {

Tensor mT(const Tensor& t) { return t.transpose(-2, -1); }

void check_matrices(const char* op, const Tensor& A) {
  EMBER_CHECK(A.dim() >= 2, op, ": expected a matrix or a batch of matrices, got shape ",
              A.sizes());
  EMBER_CHECK(A.scalar_type() == kFloat || A.scalar_type() == kDouble, op,
              ": expected a float32 or float64 tensor, got ", A.scalar_type());
  EMBER_CHECK(!A.is_cuda(), op, ": CUDA is not supported yet (input on ", A.device(), ")");
}

void check_square(const char* op, const Tensor& A) {
  EMBER_CHECK(A.size(-1) == A.size(-2), op, ": expected square matrices, got shape ", A.sizes());
}

// A's leading (batch) dims followed by `tail`.
DimVector batch_shape(const Tensor& A, std::initializer_list<int64_t> tail) {
  DimVector s(A.sizes().slice(0, static_cast<size_t>(A.dim() - 2)));
  for (int64_t t : tail) s.push_back(t);
  return s;
}

int64_t batch_count(const Tensor& A) {
  int64_t b = 1;
  for (int64_t d = 0; d < A.dim() - 2; ++d) b *= A.size(d);
  return b;
}

// t's values as a contiguous (batch, rows, cols) tensor, outside autograd.
Tensor as_batch(const Tensor& t, int64_t batch) {
  return t.detach().contiguous().view({batch, t.size(-2), t.size(-1)});
}

void check_finite(const char* op, bool ok, const Tensor& A) {
  EMBER_CHECK(ok, op, ": the input of shape ", A.sizes(), " holds NaN or infinity");
}

// ---- eigh ----

// V (diag(gL) + F o skew(V^T gV)) V^T, F_ij = 1 / (L_j - L_i) off the diagonal.
Tensor eigh_backward(const Tensor& gL, const Tensor& gV, const Tensor& L, const Tensor& V) {
  Tensor inner = gL.defined() ? diag_embed(gL) : zeros_like(V);
  if (gV.defined()) {
    const Tensor VtgV = matmul(mT(V), gV);
    const Tensor gaps = L.unsqueeze(-2) - L.unsqueeze(-1) + eye(L.size(-1), L.options());
    inner = inner + (VtgV - mT(VtgV)) * 0.5 / gaps;  // the skew part is 0 on the diagonal
  }
  return matmul(matmul(V, inner), mT(V));
}

std::tuple<Tensor, Tensor> eigh_forward(const char* op, const Tensor& A, std::string_view UPLO,
                                        bool vectors) {
  check_matrices(op, A);
  check_square(op, A);
  EMBER_CHECK(UPLO == "L" || UPLO == "U", op, ": UPLO must be \"L\" or \"U\", got \"", UPLO, "\"");
  const int64_t n = A.size(-1), batch = batch_count(A);
  Tensor values = empty(batch_shape(A, {n}), A.options());
  Tensor vecs = vectors ? empty(A.sizes(), A.options()) : Tensor();
  check_finite(op,
               kernels().linalg.eigh.on(A.device(), op)(
                   as_batch(A, batch), UPLO == "U", values.view({batch, n}),
                   vectors ? vecs.view({batch, n, n}) : Tensor()),
               A);
  if (vectors && autograd::needs_grad(A)) {
    // derivative of linalg_eigh, linalg_eigvalsh: d/dA = V·(diag(gL) + F∘skew(Vᵀ·gV))·Vᵀ, F_ij = 1/(L_j - L_i) (eigh_backward)
    auto node = autograd::make_node("LinalgEighBackward", {A}, [](Node& nd, const tensor_list& g) {
      return tensor_list{eigh_backward(g[0], g[1], nd.saved(0), nd.saved(1))};
    });
    autograd::set_history(values, node);
    autograd::set_history(vecs, node);
    node->save(values, /*is_output=*/true);
    node->save(vecs, /*is_output=*/true);
  }
  return {values, vecs};
}

// ---- svd ----

// Townsend's formula (real case), from the reduced factors, F_ij = 1 / (s_j^2 - s_i^2):
//   gA = U [F o (U^T gU - gU^T U) S + diag(gS) + S F o (V^T gV - gV^T V)] V^T
//        + (I - U U^T) gU S^-1 V^T + U S^-1 gV^T (I - V V^T)
// A full U or Vh is cut to its first k vectors: the others do not depend on A
// smoothly, and their gradient is dropped (as libtorch).
Tensor svd_backward(Tensor gU, const Tensor& gS, Tensor gVh, Tensor U, const Tensor& S, Tensor Vh) {
  const int64_t k = S.size(-1), m = U.size(-2), n = Vh.size(-1);
  U = U.narrow(-1, 0, k);
  Vh = Vh.narrow(-2, 0, k);
  if (gU.defined()) gU = gU.narrow(-1, 0, k);
  if (gVh.defined()) gVh = gVh.narrow(-2, 0, k);
  Tensor inner = gS.defined() ? diag_embed(gS) : zeros(batch_shape(U, {k, k}), U.options());
  if (!gU.defined() && !gVh.defined()) return matmul(matmul(U, inner), Vh);
  const Tensor S2 = S * S;
  const Tensor gaps = S2.unsqueeze(-2) - S2.unsqueeze(-1) + eye(k, S.options());
  const Tensor s_cols = S.unsqueeze(-2);  // scales column j by s_j
  Tensor gA;
  if (gU.defined()) {
    const Tensor UtgU = matmul(mT(U), gU);
    inner = inner + (UtgU - mT(UtgU)) / gaps * s_cols;
    if (m > k) gA = matmul((gU - matmul(U, UtgU)) / s_cols, Vh);
  }
  if (gVh.defined()) {
    const Tensor V = mT(Vh), gV = mT(gVh);
    const Tensor VtgV = matmul(Vh, gV);
    inner = inner + S.unsqueeze(-1) * ((VtgV - mT(VtgV)) / gaps);
    if (n > k) {
      const Tensor term = matmul(U, mT((gV - matmul(V, VtgV)) / s_cols));
      gA = gA.defined() ? gA + term : term;
    }
  }
  const Tensor core = matmul(matmul(U, inner), Vh);
  return gA.defined() ? gA + core : core;
}

std::tuple<Tensor, Tensor, Tensor> svd_forward(const char* op, const Tensor& A, bool full,
                                               bool vectors) {
  check_matrices(op, A);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n), batch = batch_count(A);
  const int64_t u_cols = full ? m : k, vh_rows = full ? n : k;
  Tensor S = empty(batch_shape(A, {k}), A.options());
  Tensor U = vectors ? empty(batch_shape(A, {m, u_cols}), A.options()) : Tensor();
  Tensor Vh = vectors ? empty(batch_shape(A, {vh_rows, n}), A.options()) : Tensor();
  check_finite(op,
               kernels().linalg.svd.on(A.device(), op)(
                   as_batch(A, batch), full, vectors ? U.view({batch, m, u_cols}) : Tensor(),
                   S.view({batch, k}), vectors ? Vh.view({batch, vh_rows, n}) : Tensor()),
               A);
  if (vectors && autograd::needs_grad(A)) {
    // derivative of linalg_svd, linalg_svdvals, svd: Townsend's formula, see svd_backward (d/dA = U·diag(gS)·Vh for the singular values alone)
    auto node = autograd::make_node("LinalgSvdBackward", {A}, [](Node& nd, const tensor_list& g) {
      return tensor_list{svd_backward(g[0], g[1], g[2], nd.saved(0), nd.saved(1), nd.saved(2))};
    });
    autograd::set_history(U, node);
    autograd::set_history(S, node);
    autograd::set_history(Vh, node);
    node->save(U, /*is_output=*/true);
    node->save(S, /*is_output=*/true);
    node->save(Vh, /*is_output=*/true);
  }
  return {U, S, Vh};
}

// ---- qr ----

// R^-1 for an upper triangular R (its strict lower part is not read); the
// gradient is -R^-T g R^-T on the upper triangle.
Tensor upper_triangular_inverse(const Tensor& R) {
  const int64_t n = R.size(-1), batch = batch_count(R);
  Tensor out = empty(R.sizes(), R.options());
  kernels().linalg.upper_triangular_inverse.on(R.device(), "linalg.qr")(as_batch(R, batch),
                                                                        out.view({batch, n, n}));
  if (autograd::needs_grad(R)) {
    // derivative of linalg_qr: R⁻¹ inside its backward: d/dR = -triu(R⁻ᵀ·g·R⁻ᵀ)
    auto node = autograd::make_node("UpperTriangularInverseBackward", {R},
                                    [](Node& nd, const tensor_list& g) {
                                      const Tensor inv_t = mT(nd.saved(0));
                                      return tensor_list{-triu(matmul(matmul(inv_t, g[0]), inv_t))};
                                    });
    autograd::set_history(out, node);
    node->save(out, /*is_output=*/true);
  }
  return out;
}

// For m >= n and reduced Q (m, n), R (n, n), with M = R gR^T - gQ^T Q:
//   gA = (gQ + Q copyltu(M)) R^-T,  copyltu(M) = tril(M) + tril(M, -1)^T.
Tensor qr_backward(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R,
                   std::string_view mode) {
  EMBER_CHECK(mode != "r", "linalg.qr: the derivative needs Q, which mode \"r\" does not compute");
  const int64_t m = Q.size(-2), n = R.size(-1);
  EMBER_CHECK(m >= n && Q.size(-1) == n, "linalg.qr: the derivative is only implemented for ",
              "m >= n and reduced Q (got A of ", m, " rows and ", n, " columns, Q of shape ",
              Q.sizes(), ")");
  Tensor M;
  if (gR.defined()) M = matmul(R, mT(gR));
  if (gQ.defined()) M = M.defined() ? M - matmul(mT(gQ), Q) : -matmul(mT(gQ), Q);
  const Tensor sym = tril(M) + mT(tril(M, -1));
  const Tensor b = gQ.defined() ? gQ + matmul(Q, sym) : matmul(Q, sym);
  return matmul(b, mT(upper_triangular_inverse(R)));
}

}  // namespace

std::tuple<Tensor, Tensor> linalg_eigh(const Tensor& A, std::string_view UPLO) {
  if (const auto to = autocast::cast_dtype(autocast::kCpuFloat32Op, {&A})) {
    const autocast::Suspend as_listed(DeviceType::CPU);  // its inner ops as called
    return linalg_eigh(autocast::cast(A, *to), UPLO);
  }
  return eigh_forward("linalg.eigh", A, UPLO, true);
}

Tensor linalg_eigvalsh(const Tensor& A, std::string_view UPLO) {
  if (const auto to = autocast::cast_dtype(autocast::kCpuFloat32Op, {&A})) {
    const autocast::Suspend as_listed(DeviceType::CPU);  // its inner ops as called
    return linalg_eigvalsh(autocast::cast(A, *to), UPLO);
  }
  // The gradient needs the eigenvectors.
  return std::get<0>(eigh_forward("linalg.eigvalsh", A, UPLO, autograd::needs_grad(A)));
}

std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& A, bool full_matrices) {
  if (const auto to = autocast::cast_dtype(autocast::kCpuFloat32Op, {&A})) {
    const autocast::Suspend as_listed(DeviceType::CPU);  // its inner ops as called
    return linalg_svd(autocast::cast(A, *to), full_matrices);
  }
  return svd_forward("linalg.svd", A, full_matrices, true);
}

Tensor linalg_svdvals(const Tensor& A) {
  if (const auto to = autocast::cast_dtype(autocast::kCpuFloat32Op, {&A})) {
    const autocast::Suspend as_listed(DeviceType::CPU);  // its inner ops as called
    return linalg_svdvals(autocast::cast(A, *to));
  }
  return std::get<1>(svd_forward("linalg.svdvals", A, false, autograd::needs_grad(A)));
}

std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& A, bool some, bool compute_uv) {
  if (const auto to = autocast::cast_dtype(autocast::kCpuFloat32Op, {&A})) {
    const autocast::Suspend as_listed(DeviceType::CPU);  // its inner ops as called
    return svd(autocast::cast(A, *to), some, compute_uv);
  }
  if (compute_uv) {
    auto [U, S, Vh] = svd_forward("svd", A, !some, true);
    return {U, S, mT(Vh)};
  }
  const Tensor S = std::get<1>(svd_forward("svd", A, false, autograd::needs_grad(A)));
  const int64_t m = A.size(-2), n = A.size(-1);
  return {zeros(batch_shape(A, {m, m}), A.options()), S, zeros(batch_shape(A, {n, n}), A.options())};
}

std::tuple<Tensor, Tensor> linalg_qr(const Tensor& A, std::string_view mode) {
  if (const auto to = autocast::cast_dtype(autocast::kCpuFloat32Op, {&A})) {
    const autocast::Suspend as_listed(DeviceType::CPU);  // its inner ops as called
    return linalg_qr(autocast::cast(A, *to), mode);
  }
  const char* op = "linalg.qr";
  check_matrices(op, A);
  EMBER_CHECK(mode == "reduced" || mode == "complete" || mode == "r", op,
              ": mode must be \"reduced\", \"complete\" or \"r\", got \"", mode, "\"");
  const bool complete = mode == "complete";
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n), batch = batch_count(A);
  const int64_t q_cols = complete ? m : k, r_rows = complete ? m : k;
  Tensor Q = mode == "r" ? Tensor() : empty(batch_shape(A, {m, q_cols}), A.options());
  Tensor R = empty(batch_shape(A, {r_rows, n}), A.options());
  check_finite(op,
               kernels().linalg.qr.on(A.device(), op)(
                   as_batch(A, batch), complete, Q.defined() ? Q.view({batch, m, q_cols}) : Q,
                   R.view({batch, r_rows, n})),
               A);
  // derivative: d/dA = (gQ + Q·copyltu(M))·R⁻ᵀ, M = R·gRᵀ - gQᵀ·Q (qr_backward; m >= n, reduced Q)
  if (!Q.defined()) Q = empty({0}, A.options());
  if (autograd::needs_grad(A)) {
    const std::string mode_copy(mode);
    auto node = autograd::make_node(
        "LinalgQrBackward", {A}, [mode_copy](Node& nd, const tensor_list& g) {
          return tensor_list{qr_backward(g[0], g[1], nd.saved(0), nd.saved(1), mode_copy)};
        });
    autograd::set_history(Q, node);
    autograd::set_history(R, node);
    node->save(Q, /*is_output=*/true);
    node->save(R, /*is_output=*/true);
  }
  return {Q, R};
}

std::tuple<Tensor, Tensor> qr(const Tensor& A, bool some) {
  return linalg_qr(A, some ? "reduced" : "complete");
}

}  // namespace ember
