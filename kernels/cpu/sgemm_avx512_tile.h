#pragma once
// The register tile of the packed AVX-512 float GEMM (sgemm_avx512.h), shared by the GEMM,
// the implicit-GEMM convolution (conv_implicit_gemm.cpp: b panels packed straight from the
// image, the tile stored into NCHW planes) and the Winograd convolution (conv_winograd.cpp);
// its shape and thread grid also by the bfloat16 GEMM (bf16gemm_avx512.cpp).
// Include only from files compiled with AVX-512 (#if defined(__AVX512F__)).
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "ember/kernels/cpu/gemm.h"
#include "ember/kernels/cpu/gemm_blocking.h"

namespace ember::cpu::sgemm_detail {

// Register tile: kMR rows x kNR columns of c live in kMR * kNV zmm accumulators (28 of 32),
// plus kNV registers for a row of b; a is broadcast straight from memory. 28 independent
// FMA chains cover the FMA latency (4 cycles) times its throughput on both pipes.
constexpr int kNV = 2;             // zmm vectors per tile row
constexpr int kNR = 16 * kNV;      // tile columns
constexpr int kMR = 14;            // tile rows (<= 16: a panel row is one masked vector)

inline __mmask16 low_mask(int64_t count) {  // lanes [0, count), count clamped to [0, 16]
  return count >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << std::max<int64_t>(count, 0)) - 1);
}

// r[i] (16 lanes) -> r[j][i] = old r[i][j]: in-register transpose of a 16 x 16 block.
inline void transpose16(__m512 r[16]) {
  __m512 t[16], u[16];
  for (int i = 0; i < 8; ++i) {  // per 128-bit lane: pairs of rows interleaved
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  for (int g = 0; g < 4; ++g) {  // per lane: 4 rows of one column
    const __m512d* q = reinterpret_cast<const __m512d*>(t + 4 * g);
    u[4 * g + 0] = _mm512_castpd_ps(_mm512_unpacklo_pd(q[0], q[2]));
    u[4 * g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(q[0], q[2]));
    u[4 * g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(q[1], q[3]));
    u[4 * g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(q[1], q[3]));
  }
  for (int c = 0; c < 4; ++c) {  // gather lane L of the 4 row groups: column 4L + c
    const __m512 x0 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x44);
    const __m512 x1 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xEE);
    const __m512 y0 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x44);
    const __m512 y1 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xEE);
    r[c] = _mm512_shuffle_f32x4(x0, y0, 0x88);
    r[4 + c] = _mm512_shuffle_f32x4(x0, y0, 0xDD);
    r[8 + c] = _mm512_shuffle_f32x4(x1, y1, 0x88);
    r[12 + c] = _mm512_shuffle_f32x4(x1, y1, 0xDD);
  }
}

// c = t^T block by block, for t (n rows x m columns, row-major, leading dimension m): at
// each row i of c and column block j0 (16 columns), out(i, j0, x, lanes) gets c(i, j0 + l)
// in lane l of x, lanes masking the columns past n. 16 x 16 blocks transposed in registers.
template <typename Out>
inline void transpose_out(const float* t, int64_t m, int64_t n, const Out& out) {
  for (int64_t j0 = 0; j0 < n; j0 += 16) {
    const int64_t cols = std::min<int64_t>(16, n - j0);
    const __mmask16 lanes = low_mask(cols);
    for (int64_t i0 = 0; i0 < m; i0 += 16) {
      const __mmask16 rows = low_mask(m - i0);
      __m512 r[16];
      for (int64_t j = 0; j < 16; ++j)
        r[j] = j < cols ? _mm512_maskz_loadu_ps(rows, t + (j0 + j) * m + i0) : _mm512_setzero_ps();
      transpose16(r);
      for (int64_t i = 0; i < std::min<int64_t>(16, m - i0); ++i) out(i0 + i, j0, r[i], lanes);
    }
  }
}

// A product with few columns computed the other way round, c^T = b^T @ a^T, for kernels
// whose tiles its rows fill better: up to kTransposedRows rows of c at a time,
// product(rows, a_rows, t) writes t = (a_rows @ b)^T (n x rows, leading dimension rows) into a
// per-thread buffer, and store(i, j0, x, lanes) gets c's rows back as transpose_out gives them.
inline constexpr int64_t kTransposedRows = 4096;  // the buffer: at most 4096 * n floats
template <typename T, typename Product, typename Store>
inline void transposed_product(int64_t m, int64_t n, const MatrixRef<T>& a,
                               const Product& product, const Store& store) {
  thread_local std::vector<float> buffer;
  buffer.resize(static_cast<size_t>(std::min(m, kTransposedRows) * n));
  for (int64_t i0 = 0; i0 < m; i0 += kTransposedRows) {
    const int64_t rows = std::min(kTransposedRows, m - i0);
    const MatrixRef<T> a_rows{a.col_major ? a.data + i0 : a.data + i0 * a.ld, a.ld, a.col_major};
    product(rows, a_rows, buffer.data());
    transpose_out(buffer.data(), rows, n, [&](int64_t i, int64_t j0, __m512 x, __mmask16 lanes) {
      store(i0 + i, j0, x, lanes);
    });
  }
}

// Where a tile's results go: vector v of row i (16 columns) at col[v] + i * ldc, its lanes
// limited by mask[v]; row_add (or null) holds a value added to each row (a conv's bias).
struct TileOut {
  float* col[kNV];
  __mmask16 mask[kNV];
  int64_t ldc;
  const float* row_add;
};

// Packs rows [i0, i0 + mc) x k [p0, p0 + kc) of a as panels of kMR rows, each kc x mr with
// stride mr (the last panel has mr = mc % kMR rows, packed tight): a_panel[p * mr + i]. The
// b panels the micro-kernel reads are kc x kNR: b_panel[p * kNR + j].
void pack_a(const MatrixRef<float>& a, int64_t i0, int64_t mc, int64_t p0, int64_t kc,
            float* dst);
// Packs k [p0, p0 + kc) x columns [j0, j0 + nc) of b as panels of kNR columns, each kc x kNR
// (b_panel[p * kNR + j], panel q at dst + q * kNR * kc), the columns past nc zero.
void pack_b(const MatrixRef<float>& b, int64_t p0, int64_t kc, int64_t j0, int64_t nc,
            float* dst);

// out (MR x kNR tile) = alpha * a_panel @ b_panel + beta * out (+ row_add); beta == 0 does
// not read out. a_panel: kc x MR (stride MR), b_panel: kc x kNR.
template <int MR>
void micro_kernel(int64_t kc, const float* __restrict a, const float* __restrict b,
                  const TileOut& out, float alpha, float beta) {
  // The c tile is read (beta != 0) and written only after the k loop, and its rows usually
  // miss every cache (c is larger than L2, and rows ldc apart alias in L1); starting the
  // fetch into L2 now hides that latency behind the kc-long loop. L2, not L1: the a and b
  // streams of the loop would evict it from L1 first.
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < kNV; ++v)
      _mm_prefetch(reinterpret_cast<const char*>(out.col[v] + i * out.ldc), _MM_HINT_T1);
  __m512 acc[MR][kNV];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < kNV; ++v) acc[i][v] = _mm512_setzero_ps();
  for (int64_t p = 0; p < kc; ++p) {
    __m512 bv[kNV];
#pragma GCC unroll 4
    for (int v = 0; v < kNV; ++v) bv[v] = _mm512_load_ps(b + p * kNR + 16 * v);
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      const __m512 ai = _mm512_set1_ps(a[p * MR + i]);
#pragma GCC unroll 4
      for (int v = 0; v < kNV; ++v) acc[i][v] = _mm512_fmadd_ps(ai, bv[v], acc[i][v]);
    }
  }
  const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 4
    for (int v = 0; v < kNV; ++v) {
      float* cp = out.col[v] + i * out.ldc;
      __m512 r = out.row_add ? _mm512_fmadd_ps(va, acc[i][v], _mm512_set1_ps(out.row_add[i]))
                             : _mm512_mul_ps(va, acc[i][v]);
      if (beta != 0.0f) r = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(out.mask[v], cp), r);
      _mm512_mask_storeu_ps(cp, out.mask[v], r);
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

// The thread split and packing buffers of gemm_blocking.h, for this tile.
template <typename Block>
void run_blocks(int64_t m, int64_t n, int64_t k, const Block& block) {
  gemm_blocking::run_blocks<kMR, kNR, 16>(m, n, k, block);
}
using gemm_blocking::Scratch;

}  // namespace ember::cpu::sgemm_detail
