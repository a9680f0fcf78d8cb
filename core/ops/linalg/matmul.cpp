// Matrix products: mm, bmm, addmm (primitives with their own derivatives, one
// GEMM each through the matmul kernel table: Eigen on the CPU, cuBLAS on CUDA)
// and matmul, linear, dot, outer built on them. Derivatives are products too
// (dA = g @ B^T, dB = A^T @ g), so they differentiate again, on either device.
#include "ember/core/ops/linalg/matmul.h"

#include "ember/autograd/function.h"
#include "ember/core/autocast.h"
#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/elementwise/elementwise_helpers.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/kernels/common/gemm_operand.h"
#include "ember/kernels/common/kernel_registry.h"

namespace ember {

using autograd::Node;

namespace {

void check_operands(const char* op, const Tensor& a, const Tensor& b) {
  detail::check_same_device(op, a, b);
  EMBER_CHECK(a.scalar_type() == b.scalar_type(), op, ": expected both operands to have the same "
              "dtype, got ", a.scalar_type(), " and ", b.scalar_type());
  EMBER_CHECK(a.scalar_type() != kBool, op, ": dtype bool is not supported (expected int64, "
              "float32 or float64)");
  const DtypeSet takes = kernels().matmul.gemm_dtypes.on(a.device(), op)();
  EMBER_CHECK(accepts(takes, a.scalar_type()), op, ": int64 is not supported on ",
              a.device(), " (cuBLAS multiplies float32 and float64), got ", a.toString());
}

void check_inner(const char* op, const Tensor& a, const Tensor& b, int64_t ka, int64_t kb) {
  EMBER_CHECK(ka == kb, op, ": ", a.sizes(), " @ ", b.sizes(), ": inner sizes differ (", ka, " vs ",
              kb, ")");
}

// The last two dims of a 2-d or 3-d tensor as a GEMM operand: the tensor itself
// when gemm_layout reads it in place (a transposed or sliced view with a unit
// stride in one of its last two dims), else a contiguous copy. `keep` holds the
// memory read.
struct GemmOperand {
  Tensor keep;
  GemmLayout layout;
  int64_t batch_stride;  // 0 for a 2-d tensor or an expanded batch

  GemmOperandRef ref() const { return {keep.data_ptr(), layout, batch_stride}; }
};

GemmOperand gemm_operand(const Tensor& t) {
  const int64_t rows = t.size(-2), cols = t.size(-1);
  if (const auto layout = gemm_layout(rows, cols, t.stride(-2), t.stride(-1)))
    return {t, *layout, t.dim() == 3 ? t.stride(0) : 0};
  NoGradGuard guard;
  Tensor copy = t.contiguous();
  return {copy, GemmLayout{std::max<int64_t>(cols, 1), false}, t.dim() == 3 ? rows * cols : 0};
}

// out[i] = alpha * a[i] @ b[i] + beta * out[i] for each batch i. out is a
// fresh contiguous (n, m) or (B, n, m); a and b are 2-d, or 3-d with B
// matrices or an expanded batch (stride 0), all on out's device.
void gemm_into(const char* op, const Tensor& out, const Tensor& a, const Tensor& b,
               const Scalar& alpha, const Scalar& beta) {
  if (out.numel() == 0) return;
  const int64_t k = a.size(-1);
  const GemmOperand A = gemm_operand(a), B = gemm_operand(b);
  kernels().matmul.gemm.on(out.device(), op)(op, out, k, A.ref(), B.ref(), alpha, beta);
}

// mm for matrices, bmm for batches: what the derivative of each multiplies.
Tensor transpose_last(const Tensor& t) { return t.transpose(-2, -1); }
Tensor product(const Tensor& a, const Tensor& b) { return a.dim() == 3 ? bmm(a, b) : mm(a, b); }

// NumPy broadcasting of two right-aligned shapes: each pair equal or one of them 1.
bool batches_broadcast(IntArrayRef x, IntArrayRef y) {
  for (size_t i = 1; i <= std::min(x.size(), y.size()); ++i) {
    const int64_t p = x[x.size() - i], q = y[y.size() - i];
    if (p != q && p != 1 && q != 1) return false;
  }
  return true;
}

// Records out = a @ b: dA = g @ B^T, dB = A^T @ g (transposes are views: no copies).
void record_product(const char* name, const Tensor& out, const Tensor& a, const Tensor& b) {
  auto node = autograd::make_node(name, {a, b}, [](Node& n, const tensor_list& g) {
    Tensor ga, gb;
    if (n.needs_input_grad(0)) ga = product(g[0], transpose_last(n.saved(1)));
    if (n.needs_input_grad(1)) gb = product(transpose_last(n.saved(0)), g[0]);
    return tensor_list{ga, gb};
  });
  node->save(node->needs_input_grad(1) ? a : Tensor());
  node->save(node->needs_input_grad(0) ? b : Tensor());
  autograd::set_history(out, node);
}

}  // namespace

// a: (n, k), b: (k, m) -> (n, m)
Tensor mm(const Tensor& a, const Tensor& b) {
  if (const auto to = autocast::cast_dtype(autocast::kLowerPrecisionOp, {&a, &b}))
    return mm(autocast::cast(a, *to), autocast::cast(b, *to));
  check_operands("mm", a, b);
  EMBER_CHECK(a.dim() == 2 && b.dim() == 2, "mm: expected 2-d tensors, got ", a.sizes(), " and ",
              b.sizes());
  check_inner("mm", a, b, a.size(1), b.size(0));
  Tensor out = empty({a.size(0), b.size(1)}, a.options());
  gemm_into("mm", out, a, b, 1, 0);
  // derivative: d/da = g·bᵀ, d/db = aᵀ·g
  if (autograd::needs_grad(a, b)) record_product("MmBackward", out, a, b);
  return out;
}

// a: (B, n, k), b: (B, k, m) -> (B, n, m)
Tensor bmm(const Tensor& a, const Tensor& b) {
  if (const auto to = autocast::cast_dtype(autocast::kLowerPrecisionOp, {&a, &b}))
    return bmm(autocast::cast(a, *to), autocast::cast(b, *to));
  check_operands("bmm", a, b);
  EMBER_CHECK(a.dim() == 3 && b.dim() == 3, "bmm: expected 3-d tensors, got ", a.sizes(), " and ",
              b.sizes());
  EMBER_CHECK(a.size(0) == b.size(0), "bmm: ", a.sizes(), " @ ", b.sizes(),
              ": batch sizes differ (", a.size(0), " vs ", b.size(0), ")");
  check_inner("bmm", a, b, a.size(2), b.size(1));
  Tensor out = empty({a.size(0), a.size(1), b.size(2)}, a.options());
  gemm_into("bmm", out, a, b, 1, 0);
  // derivative: d/da = g·bᵀ, d/db = aᵀ·g, per batch
  if (autograd::needs_grad(a, b)) record_product("BmmBackward", out, a, b);
  return out;
}

// beta * self + alpha * (mat1 @ mat2); self broadcasts to (n, m) and is copied
// into the output, which the GEMM then accumulates into (one pass, no temporary).
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
             const Scalar& alpha) {
  if (const auto to = autocast::cast_dtype(autocast::kLowerPrecisionOp, {&self, &mat1, &mat2}))
    return addmm(autocast::cast(self, *to), autocast::cast(mat1, *to), autocast::cast(mat2, *to), beta, alpha);
  check_operands("addmm", mat1, mat2);
  check_operands("addmm", self, mat1);
  EMBER_CHECK(mat1.dim() == 2 && mat2.dim() == 2, "addmm: expected 2-d matrices, got ",
              mat1.sizes(), " and ", mat2.sizes());
  check_inner("addmm", mat1, mat2, mat1.size(1), mat2.size(0));
  Tensor out = empty({mat1.size(0), mat2.size(1)}, mat1.options());
  EMBER_CHECK(is_expandable_to(self.sizes(), out.sizes()), "addmm: self of shape ", self.sizes(),
              " does not broadcast to the product's shape ", out.sizes());
  const bool use_self = beta.toDouble() != 0;  // beta = 0 ignores self (even its nan/inf)
  if (use_self) {
    NoGradGuard guard;
    out.copy_(self);
  }
  gemm_into("addmm", out, mat1, mat2, alpha, use_self ? beta : Scalar(0));
  if (autograd::needs_grad(self, mat1, mat2)) {
    const double a = alpha.toDouble(), b = beta.toDouble();
    // derivative: d/dself = beta·g, d/dmat1 = alpha·g·mat2ᵀ, d/dmat2 = alpha·mat1ᵀ·g
    auto node = autograd::make_node("AddmmBackward", {self, mat1, mat2},
        [a, b](Node& n, const tensor_list& g) {
          auto scaled = [](Tensor t, double s) { return s == 1 ? t : t * s; };
          Tensor gs, g1, g2;
          if (n.needs_input_grad(0)) gs = scaled(g[0], b);  // (n, m): summed to self's shape
          if (n.needs_input_grad(1)) g1 = scaled(mm(g[0], n.saved(1).t()), a);
          if (n.needs_input_grad(2)) g2 = scaled(mm(n.saved(0).t(), g[0]), a);
          return tensor_list{gs, g1, g2};
        });
    node->save(node->needs_input_grad(2) ? mat1 : Tensor());
    node->save(node->needs_input_grad(1) ? mat2 : Tensor());
    autograd::set_history(out, node);
  }
  return out;
}

Tensor dot(const Tensor& a, const Tensor& b) {
  if (const auto to = autocast::cast_dtype(autocast::kCudaPromoteOp, {&a, &b}))
    return dot(autocast::cast(a, *to), autocast::cast(b, *to));
  check_operands("dot", a, b);
  EMBER_CHECK(a.dim() == 1 && b.dim() == 1, "dot: expected 1-d tensors, got ", a.sizes(), " and ",
              b.sizes());
  check_inner("dot", a, b, a.size(0), b.size(0));
  Tensor out = empty({}, a.options());
  const Kernel<void(const Tensor&, const Tensor&, const Tensor&)>& dot_kernel =
      kernels().matmul.dot;
  if (dot_kernel.has(a.device().type())) {
    dot_kernel.on(a.device(), "dot")(out, a, b);  // the CPU's strided dot: no copies
  } else {
    // (1, k) @ (k, 1) through the device's GEMM (cuBLAS), written on the
    // device: no host sync.
    NoGradGuard guard;  // the views below are the kernel's, not part of the graph
    gemm_into("dot", out.view({1, 1}), a.unsqueeze(0), b.unsqueeze(1), 1, 0);
  }
  if (autograd::needs_grad(a, b)) {
    // derivative: d/da = g·b, d/db = g·a
    auto node = autograd::make_node("DotBackward", {a, b}, [](Node& n, const tensor_list& g) {
      return tensor_list{n.needs_input_grad(0) ? g[0] * n.saved(1) : Tensor(),
                         n.needs_input_grad(1) ? g[0] * n.saved(0) : Tensor()};
    });
    node->save(node->needs_input_grad(1) ? a : Tensor());
    node->save(node->needs_input_grad(0) ? b : Tensor());
    autograd::set_history(out, node);
  }
  return out;
}

// a: (n), b: (m) -> (n, m): a broadcast product, differentiated as mul.
Tensor outer(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.dim() == 1 && b.dim() == 1, "outer: expected 1-d tensors, got ", a.sizes(), " and ",
              b.sizes());
  return a.unsqueeze(1) * b;
}

// NumPy's rules: 1-d @ 1-d is a dot product; a 1-d operand gains a dim (rows
// for a, columns for b) that the result drops; more than 2 dims are batches
// that broadcast against each other.
Tensor matmul(const Tensor& a, const Tensor& b) {
  if (const auto to = autocast::cast_dtype(autocast::kLowerPrecisionOp, {&a, &b}))
    return matmul(autocast::cast(a, *to), autocast::cast(b, *to));
  EMBER_CHECK(a.dim() >= 1 && b.dim() >= 1,
              "matmul: both arguments need at least 1 dimension, got ", a.sizes(), " and ",
              b.sizes());
  check_operands("matmul", a, b);
  const int64_t k = a.size(-1);
  check_inner("matmul", a, b, k, b.dim() == 1 ? b.size(0) : b.size(-2));
  if (a.dim() == 1 && b.dim() == 1) return dot(a, b);
  if (a.dim() == 2 && b.dim() == 2) return mm(a, b);
  if (a.dim() == 1 && b.dim() == 2) return mm(a.unsqueeze(0), b).squeeze(0);
  const int64_t n_rows = compute_numel(a.sizes().slice(0, a.dim() - 1));
  if (b.dim() <= 2 && view_strides(a.sizes(), a.strides(), {n_rows, k})) {
    // a: (..., n, k) with b a matrix or vector, a's batch foldable into rows
    // without a copy: one GEMM. Otherwise b broadcasts over a batched product.
    DimVector out_shape(a.sizes().slice(0, a.dim() - 1));
    if (b.dim() == 2) out_shape.push_back(b.size(1));
    const Tensor rows = mm(a.view({n_rows, k}), b.dim() == 2 ? b : b.unsqueeze(1));
    return rows.view(out_shape);
  }
  // Batched: a (..., n, k) @ b (..., k, m) with broadcast batch dims.
  const Tensor a2 = a.dim() == 1 ? a.unsqueeze(0) : a;
  const Tensor b2 = b.dim() == 1 ? b.unsqueeze(1) : b;
  const IntArrayRef batch_a = a2.sizes().slice(0, a2.dim() - 2);
  const IntArrayRef batch_b = b2.sizes().slice(0, b2.dim() - 2);
  EMBER_CHECK(batches_broadcast(batch_a, batch_b), "matmul: ", a.sizes(), " @ ", b.sizes(),
              ": batch dimensions ", batch_a, " and ", batch_b, " do not broadcast");
  const DimVector batch = broadcast_shapes(batch_a, batch_b, "matmul");
  const int64_t n = a2.size(-2), m = b2.size(-1);
  auto batched = [&](const Tensor& t, int64_t r, int64_t c) {
    DimVector full = batch;
    full.push_back(r);
    full.push_back(c);
    const Tensor e = t.sizes() == full.ref() ? t : t.expand(full);
    return e.reshape({compute_numel(batch), r, c});  // a view unless broadcast dims can't merge
  };
  DimVector out_shape = batch;
  if (a.dim() > 1) out_shape.push_back(n);
  if (b.dim() > 1) out_shape.push_back(m);
  return bmm(batched(a2, n, k), batched(b2, k, m)).view(out_shape);
}

// x: (..., in), weight: (out, in), bias: (out) -> (..., out). A 2-d x (or one
// whose batch folds into rows) takes one addmm: the bias is copied into the
// output and the GEMM accumulates onto it.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  if (const auto to = autocast::cast_dtype(autocast::kLowerPrecisionOp, {&x, &weight, &bias}))
    return linear(autocast::cast(x, *to), autocast::cast(weight, *to), autocast::cast(bias, *to));
  EMBER_CHECK(weight.dim() == 2, "linear: weight must be 2-d (out_features, in_features), got ",
              weight.sizes());
  EMBER_CHECK(x.dim() >= 1, "linear: the input needs at least 1 dimension, got ", x.sizes());
  check_operands("linear", x, weight);
  if (bias.defined()) check_operands("linear", x, bias);
  EMBER_CHECK(x.size(-1) == weight.size(1), "linear: input ", x.sizes(), " @ weight ",
              weight.sizes(), "^T: inner sizes differ (", x.size(-1), " vs ", weight.size(1), ")");
  const Tensor wt = weight.t();
  if (x.dim() == 2) return bias.defined() ? addmm(bias, x, wt) : mm(x, wt);
  if (x.dim() >= 3 && (!bias.defined() || bias.dim() <= 1)) {
    DimVector out_shape(x.sizes().slice(0, x.dim() - 1));
    out_shape.push_back(weight.size(0));
    const Tensor rows = x.reshape({compute_numel(x.sizes().slice(0, x.dim() - 1)), x.size(-1)});
    return (bias.defined() ? addmm(bias, rows, wt) : mm(rows, wt)).view(out_shape);
  }
  const Tensor y = matmul(x, wt);
  return bias.defined() ? y + bias : y;
}

Tensor Tensor::matmul(const Tensor& other) const { return ember::matmul(*this, other); }
Tensor Tensor::mm(const Tensor& other) const { return ember::mm(*this, other); }
Tensor Tensor::bmm(const Tensor& other) const { return ember::bmm(*this, other); }
Tensor Tensor::addmm(const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                     const Scalar& alpha) const {
  return ember::addmm(*this, mat1, mat2, beta, alpha);
}

}  // namespace ember
