// linalg_solve_triangular and the older triangular_solve: the left-side
// solve is the CPU kernel (kernels/cpu/linalg_triangular.cpp); the right
// side and transposed forms are transposes around it.
#include "ember/autograd/function.h"
#include "ember/core/ops/linalg/linalg_helpers.h"
#include "ember/core/ops/linalg/linalg_solve.h"
#include "ember/core/ops/linalg/matmul.h"
#include "ember/core/ops/shape/shape_ops.h"

namespace ember {
namespace {

using detail::batch_dims;
using detail::with_matrix;

Tensor mT(const Tensor& x) { return x.transpose(-2, -1); }

// X with T X = B, T the triangle of A the flags select, batch dims broadcast.
Tensor solve_triangular_left(const Tensor& A, const Tensor& B, bool upper, bool unitriangular) {
  const char* op = "linalg.solve_triangular";
  const int64_t n = A.size(-1), k = B.size(-1);
  const DimVector batch = broadcast_shapes(batch_dims(A), batch_dims(B), op);
  Tensor out;
  {
    NoGradGuard no_grad;
    const Tensor a = detail::batch_copy(A, batch);
    Tensor x = detail::batch_copy(B, batch);
    detail::triangular_solve_kernel(a, x, upper, unitriangular);
    out = x.view(with_matrix(batch, n, k));
  }
  if (autograd::needs_grad(A, B)) {
    // derivative of linalg_solve_triangular: d/dB = T⁻ᵀ·g, d/dT = -(d/dB)·Xᵀ on T's triangle
    // dX = T^-1 (dB - dT X): gB = T^-T g, gA = -gB X^T on T's triangle (the
    // only entries the forward reads).
    auto node = autograd::make_node(
        "LinalgSolveTriangularBackward", {A, B},
        [upper, unitriangular](autograd::Node& n, const tensor_list& g) {
          const Tensor gb = solve_triangular_left(mT(n.saved(0)), g[0], !upper, unitriangular);
          Tensor ga;
          if (n.needs_input_grad(0)) {
            const Tensor full = -matmul(gb, mT(n.saved(1)));
            const int64_t skip = unitriangular ? 1 : 0;
            ga = upper ? full.triu(skip) : full.tril(-skip);
          }
          return tensor_list{ga, gb};
        });
    node->save(A);
    autograd::set_history(out, node);
    node->save(out, /*is_output=*/true);
  }
  return out;
}

}  // namespace

Tensor linalg_solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left,
                               bool unitriangular) {
  const char* op = "linalg.solve_triangular";
  detail::check_matrix(op, "A", A, /*square=*/true);
  detail::check_same_kind(op, A, B);
  detail::check_matrix(op, "B", B, /*square=*/false);
  detail::check_rhs(op, A, B, left);
  if (left) return solve_triangular_left(A, B, upper, unitriangular);
  // X A = B is A^T X^T = B^T, A^T's triangle the other one.
  return mT(solve_triangular_left(mT(A), mT(B), !upper, unitriangular));
}

std::tuple<Tensor, Tensor> triangular_solve(const Tensor& b, const Tensor& A, bool upper,
                                            bool transpose, bool unitriangular) {
  const char* op = "triangular_solve";
  detail::check_matrix(op, "A", A, /*square=*/true);
  detail::check_same_kind(op, A, b);
  detail::check_matrix(op, "b", b, /*square=*/false);
  detail::check_rhs(op, A, b, /*left=*/true);
  const Tensor x = linalg_solve_triangular(transpose ? mT(A) : A, b, upper != transpose,
                                           /*left=*/true, unitriangular);
  // The copy of A has the broadcast batch dims, as libtorch's.
  const DimVector batch = broadcast_shapes(batch_dims(A), batch_dims(b), op);
  return {x, A.expand(with_matrix(batch, A.size(-2), A.size(-1))).clone()};
}

std::tuple<Tensor, Tensor> Tensor::triangular_solve(const Tensor& A, bool upper, bool transpose,
                                                    bool unitriangular) const {
  return ember::triangular_solve(*this, A, upper, transpose, unitriangular);
}

}  // namespace ember
