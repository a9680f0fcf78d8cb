// The matmul table's CPU entry points: the batch loop and dtype dispatch
// around cpu::gemm and cpu::dot (moved from core/ops/linalg/matmul.cpp).
#include "ember/kernels/cpu/matmul.h"

#include <algorithm>

#include "ember/core/parallel.h"
#include "ember/kernels/common/kernel_registry.h"
#include "ember/kernels/cpu/bf16gemm_avx512.h"
#include "ember/kernels/cpu/gemm.h"
#include "ember/kernels/cpu/loops.h"

namespace ember::cpu {
namespace {

// An operand of `batches` (rows, cols) matrices as a contiguous row-major
// tensor of dtype c (one batch when the operand's batch is expanded).
Tensor converted_operand(const Tensor& like, const GemmOperandRef& ref, int64_t batches,
                         int64_t rows, int64_t cols, ScalarType c) {
  const int64_t count = ref.batch_stride == 0 ? 1 : batches;
  Tensor out = like.new_empty({count, rows, cols}, like.options().dtype(c));
  dispatch_storage(like.scalar_type(), "matmul", [&]<typename S>() {
    dispatch_all(c, "matmul", [&]<typename C>() {
      const S* src = static_cast<const S*>(ref.data);
      C* dst = out.data_ptr<C>();
      const int64_t is = ref.layout.col_major ? 1 : ref.layout.ld;
      const int64_t js = ref.layout.col_major ? ref.layout.ld : 1;
      parallel_for(0, count * rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(cols, 1)),
                   [&](int64_t begin, int64_t end) {
                     for (int64_t r = begin; r < end; ++r) {
                       const S* row = src + (r / rows) * ref.batch_stride + (r % rows) * is;
                       for (int64_t j = 0; j < cols; ++j) dst[r * cols + j] = static_cast<C>(row[j * js]);
                     }
                   });
    });
  });
  return out;
}

// A product of dtype out.scalar_type() that is not its compute dtype (float16, the narrow
// integers; bfloat16 without AVX-512 BF16): the operands converted to the compute dtype
// (float32, int64), multiplied there, and the result rounded (or wrapped) once into out.
void gemm_in_compute_dtype(const char* op, const Tensor& out, int64_t k, const GemmOperandRef& A,
                           const GemmOperandRef& B, const Scalar& alpha, const Scalar& beta) {
  const ScalarType c = compute_dtype(out.scalar_type());
  const int64_t batch = out.dim() == 3 ? out.size(0) : 1;
  const int64_t n = out.size(-2), m = out.size(-1);
  const Tensor a = converted_operand(out, A, batch, n, k, c);
  const Tensor b = converted_operand(out, B, batch, k, m, c);
  const GemmOperandRef a_ref{a.data_ptr(), {std::max<int64_t>(k, 1), false}, a.size(0) == 1 ? 0 : n * k};
  const GemmOperandRef b_ref{b.data_ptr(), {std::max<int64_t>(m, 1), false}, b.size(0) == 1 ? 0 : k * m};
  const Tensor result = beta.toDouble() != 0 ? out.detach().to(c) : out.new_empty(out.sizes(), out.options().dtype(c));
  gemm_kernel(op, result, k, a_ref, b_ref, alpha, beta);
  kernels().copy.copy.on(out.device(), "copy_")(out, result);
}

// Each of out's batches through bf16gemm.
void bf16gemm_batches(const Tensor& out, int64_t k, const GemmOperandRef& A,
                      const GemmOperandRef& B, const Scalar& alpha, const Scalar& beta) {
  const int64_t batch = out.dim() == 3 ? out.size(0) : 1;
  const int64_t n = out.size(-2), m = out.size(-1);
  const auto* pa = static_cast<const BFloat16*>(A.data);
  const auto* pb = static_cast<const BFloat16*>(B.data);
  BFloat16* pc = out.data_ptr<BFloat16>();
  for (int64_t i = 0; i < batch; ++i)
    bf16gemm(n, m, k, alpha.toFloat(), {pa + i * A.batch_stride, A.layout.ld, A.layout.col_major},
             {pb + i * B.batch_stride, B.layout.ld, B.layout.col_major}, beta.toFloat(),
             pc + i * n * m, m);
}

}  // namespace

void gemm_kernel(const char* op, const Tensor& out, int64_t k, const GemmOperandRef& A,
                 const GemmOperandRef& B, const Scalar& alpha, const Scalar& beta) {
  const int64_t batch = out.dim() == 3 ? out.size(0) : 1;
  const int64_t n = out.size(-2), m = out.size(-1);
  if (out.scalar_type() == kBFloat16 && bf16gemm_available() && k > 0)
    return bf16gemm_batches(out, k, A, B, alpha, beta);
  if (compute_dtype(out.scalar_type()) != out.scalar_type())
    return gemm_in_compute_dtype(op, out, k, A, B, alpha, beta);
  dispatch_numeric(out.scalar_type(), "matmul", [&]<typename T>() {
    const T* pa = static_cast<const T*>(A.data);
    const T* pb = static_cast<const T*>(B.data);
    T* pc = out.data_ptr<T>();
    const T al = alpha.to<T>(), be = beta.to<T>();
    // With k == 0 the operands are empty and may have no storage at all
    // (a null pointer, which no batch offset may be added to).
    const int64_t a_step = k == 0 ? 0 : A.batch_stride, b_step = k == 0 ? 0 : B.batch_stride;
    auto one = [&](int64_t i) {
      gemm<T>(n, m, k, al, {pa + i * a_step, A.layout.ld, A.layout.col_major},
              {pb + i * b_step, B.layout.ld, B.layout.col_major}, be, pc + i * n * m, m);
    };
    // Many matrices: one per thread, each GEMM single-threaded (a GEMM inside
    // a parallel loop runs on its thread). Few: each product is split.
    const int64_t work = std::max<int64_t>(n * m * k, 1);
    constexpr int64_t kSmallGemm = int64_t(1) << 21;  // about 128^3 multiply-adds
    if (batch > 1 && (work <= kSmallGemm || batch >= get_num_threads())) {
      const int64_t grain = std::max<int64_t>(1, kGrainSize / work);
      parallel_for(0, batch, grain, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) one(i);
      });
    } else {
      for (int64_t i = 0; i < batch; ++i) one(i);
    }
  });
}

DtypeSet gemm_dtypes() { return DtypeSet::kNumeric; }

void dot_kernel(const Tensor& out, const Tensor& a, const Tensor& b) {
  dispatch_numeric(a.scalar_type(), "dot", [&]<typename T>() {
    *out.data_ptr<T>() =
        dot<T>(a.size(0), a.data_ptr<T>(), a.stride(0), b.data_ptr<T>(), b.stride(0));
  });
}

}  // namespace ember::cpu
