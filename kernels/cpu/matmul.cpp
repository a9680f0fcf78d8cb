// The matmul table's CPU entry points: the batch loop and dtype dispatch
// around cpu::gemm and cpu::dot (moved from core/ops/linalg/matmul.cpp).
#include "ember/kernels/cpu/matmul.h"

#include <algorithm>

#include "ember/core/parallel.h"
#include "ember/kernels/cpu/gemm.h"
#include "ember/kernels/cpu/loops.h"

namespace ember::cpu {

void gemm_kernel(const char*, const Tensor& out, int64_t k, const GemmOperandRef& A,
                 const GemmOperandRef& B, const Scalar& alpha, const Scalar& beta) {
  const int64_t batch = out.dim() == 3 ? out.size(0) : 1;
  const int64_t n = out.size(-2), m = out.size(-1);
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
