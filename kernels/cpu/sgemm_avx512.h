#pragma once
// A packed float32 GEMM for AVX-512 CPUs (Goto's blocking): panels of b (KC x NC) and a
// (MC x KC) are copied into contiguous buffers laid out in the order the register-blocked
// micro-kernel reads them, so the inner loop streams memory that sits in L1/L2. cpu::gemm
// calls it for float products large enough for the packing to pay; elsewhere Eigen runs.
#include <cstdint>

#include "ember/kernels/cpu/gemm.h"

namespace ember::cpu {

// Whether the library was compiled with AVX-512 (a function, not a macro test: code that
// includes this header may be compiled with other flags than the library).
bool sgemm_avx512_available();

// Whether the packed kernel beats Eigen for an (m, k) @ (k, n) product (measured on Zen 4:
// docs/benchmarks.md). False when the build has no AVX-512.
bool sgemm_avx512_pays(int64_t m, int64_t n, int64_t k);

// Whether a product the packed kernel does not take as it is, because its n leaves the
// 32-column tiles part empty, fills them as c^T = b^T @ a^T (m a whole number of tiles,
// near enough, and n filling the 14-row tiles): a conv's weight gradient with 27 columns.
bool sgemm_avx512_pays_transposed(int64_t m, int64_t n, int64_t k);

// c (m, n, row-major, leading dimension ldc) = alpha * a (m, k) @ b (k, n) + beta * c, with
// the contract of cpu::gemm (beta == 0 does not read c). Threads: up to get_num_threads(),
// one when called inside a parallel region. Error when the build has no AVX-512.
void sgemm_avx512(int64_t m, int64_t n, int64_t k, float alpha, MatrixRef<float> a,
                  MatrixRef<float> b, float beta, float* c, int64_t ldc);

// The product of sgemm_avx512_pays_transposed: c^T = alpha * b^T @ a^T on the packed kernel
// into a per-thread buffer (n x up to 4096 rows of c at a time), transposed into c in
// registers (beta applied there). Same contract and threads as sgemm_avx512.
void sgemm_avx512_transposed(int64_t m, int64_t n, int64_t k, float alpha, MatrixRef<float> a,
                             MatrixRef<float> b, float beta, float* c, int64_t ldc);

// The narrow kernel (sgemm_avx512_narrow.cpp): products of at most kNarrowMaxColumns
// columns, k >= 64, with a row-major and b column-major (both read along k), such as a
// Linear layer's forward with few outputs. Same contract and threads as sgemm_avx512; applies
// is false without AVX-512.
inline constexpr int kNarrowMaxColumns = 12;
bool sgemm_avx512_narrow_applies(int64_t m, int64_t n, int64_t k, MatrixRef<float> a,
                                 MatrixRef<float> b);
void sgemm_avx512_narrow(int64_t m, int64_t n, int64_t k, float alpha, MatrixRef<float> a,
                         MatrixRef<float> b, float beta, float* c, int64_t ldc);

}  // namespace ember::cpu
