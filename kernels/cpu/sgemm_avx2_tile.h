#pragma once
// The register tile of the packed AVX2 float GEMM (sgemm_avx2.h), shared by the GEMM and the
// AVX2 implicit-GEMM convolution (conv_implicit_gemm_avx2.cpp: b panels packed straight from
// the image, the tile stored into NCHW planes). The AVX-512 twin is sgemm_avx512_tile.h.
// Include only from files compiled with AVX2 and FMA.
#include <immintrin.h>

#include <array>
#include <cstdint>
#include <utility>

#include "ember/kernels/cpu/avx2_lanes.h"
#include "ember/kernels/cpu/gemm.h"

namespace ember::cpu::sgemm_avx2_detail {

// Register tile: kMR rows x kNR columns of c live in kMR * kNV ymm accumulators (12 of 16),
// plus kNV registers for a row of b and one for a broadcast element of a. 12 independent FMA
// chains cover the FMA latency (4-5 cycles) times its throughput on two pipes.
constexpr int kNV = 2;            // ymm vectors per tile row
constexpr int kNR = 8 * kNV;      // tile columns
constexpr int kMR = 6;            // tile rows

// Where a tile's results go: vector v of row i (8 columns) at col[v] + i * ldc, its first
// lanes[v] lanes only (clamped to [0, 8]: the rest lie past the output); row_add (or null)
// holds a value added to each row (a conv's bias).
struct TileOut {
  float* col[kNV];
  int64_t lanes[kNV];
  int64_t ldc;
  const float* row_add;
};

// Packs rows [i0, i0 + mc) x k [p0, p0 + kc) of a as panels of kMR rows, each kc x mr with
// stride mr (the last panel has mr = mc % kMR rows, packed tight): a_panel[p * mr + i], the
// panel of rows from i at dst + i * kc. The b panels the micro-kernel reads are kc x kNR:
// b_panel[p * kNR + j].
void pack_a(const MatrixRef<float>& a, int64_t i0, int64_t mc, int64_t p0, int64_t kc,
            float* dst);

// out (MR x kNR tile) = alpha * a_panel @ b_panel + beta * out (+ row_add); beta == 0 does
// not read out. a_panel: kc x MR (stride MR), b_panel: kc x kNR (32-byte aligned).
template <int MR>
void micro_kernel(int64_t kc, const float* __restrict a, const float* __restrict b,
                  const TileOut& out, float alpha, float beta) {
  // c's rows usually miss every cache: fetch them into L2 behind the k loop (as the AVX-512
  // kernel does, sgemm_avx512_tile.h).
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 2
    for (int v = 0; v < kNV; ++v)
      _mm_prefetch(reinterpret_cast<const char*>(out.col[v] + i * out.ldc), _MM_HINT_T1);
  __m256 acc[MR][kNV];
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 2
    for (int v = 0; v < kNV; ++v) acc[i][v] = _mm256_setzero_ps();
  for (int64_t p = 0; p < kc; ++p) {
    __m256 bv[kNV];
#pragma GCC unroll 2
    for (int v = 0; v < kNV; ++v) bv[v] = _mm256_load_ps(b + p * kNR + 8 * v);
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      const __m256 ai = _mm256_broadcast_ss(a + p * MR + i);
#pragma GCC unroll 2
      for (int v = 0; v < kNV; ++v) acc[i][v] = _mm256_fmadd_ps(ai, bv[v], acc[i][v]);
    }
  }
  const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 2
    for (int v = 0; v < kNV; ++v) {
      float* cp = out.col[v] + i * out.ldc;
      const int64_t lanes = out.lanes[v];
      __m256 r = out.row_add ? _mm256_fmadd_ps(va, acc[i][v], _mm256_set1_ps(out.row_add[i]))
                             : _mm256_mul_ps(va, acc[i][v]);
      if (beta != 0.0f) r = _mm256_fmadd_ps(vb, avx2::load_lanes(cp, lanes), r);
      avx2::store_lanes(cp, lanes, r);
    }
  }
}

using MicroKernel = void (*)(int64_t, const float*, const float*, const TileOut&, float, float);

template <int... R>
constexpr auto make_kernels(std::integer_sequence<int, R...>) {
  return std::array<MicroKernel, sizeof...(R)>{&micro_kernel<R + 1>...};
}
// kKernels[mr - 1] handles a tile of mr rows.
inline constexpr auto kKernels = make_kernels(std::make_integer_sequence<int, kMR>{});

}  // namespace ember::cpu::sgemm_avx2_detail
