#pragma once
// A packed float32 GEMM for CPUs with AVX2 and FMA but no AVX-512 (Goto's blocking, as the
// AVX-512 kernel of sgemm_avx512.h, on a 6 x 16 register tile of ymm accumulators). Where the
// build has AVX-512, cpu::gemm runs that kernel instead; this one is still built and tested
// there.
#include <cstdint>

#include "ember/kernels/cpu/gemm.h"

namespace ember::cpu {

// Whether the library was compiled with AVX2 and FMA.
bool sgemm_avx2_available();

// Whether the packed kernel beats Eigen for an (m, k) @ (k, n) product (measured on a Zen
// CPU with AVX2: docs/benchmarks.md). False when the build has no AVX2.
bool sgemm_avx2_pays(int64_t m, int64_t n, int64_t k);

// c (m, n, row-major, leading dimension ldc) = alpha * a (m, k) @ b (k, n) + beta * c, with
// the contract of cpu::gemm (beta == 0 does not read c). Threads: up to get_num_threads(),
// one when called inside a parallel region. Error when the build has no AVX2.
void sgemm_avx2(int64_t m, int64_t n, int64_t k, float alpha, MatrixRef<float> a,
                MatrixRef<float> b, float beta, float* c, int64_t ldc);

}  // namespace ember::cpu
