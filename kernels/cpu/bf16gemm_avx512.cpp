#include "ember/kernels/cpu/bf16gemm_avx512.h"

#include <type_traits>
#include <vector>

#include "ember/core/error.h"
#include "ember/kernels/cpu/gemm_blocking.h"

#if defined(__AVX512F__) && defined(__AVX512BF16__) && defined(__AVX512BW__)
#define EMBER_BF16GEMM 1
// GCC 12's AVX-512 headers make their "undefined" vectors by self-initialisation, which
// -Wuninitialized reports in every inlined shuffle.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <algorithm>
#include <cstring>

#include "ember/kernels/cpu/bf16_rounding.h"
#include "ember/kernels/cpu/sgemm_avx512_tile.h"
#endif

namespace ember::cpu {

#if defined(EMBER_BF16GEMM)
namespace {

using sgemm_detail::kMR;
using sgemm_detail::kNR;
using sgemm_detail::kNV;
using sgemm_detail::low_mask;

// The float kernel's cache blocks in bytes: twice its k depth at half the element size.
constexpr int64_t kKC = 768;  // even: blocks after the first start on a k-pair
constexpr int64_t kMC = kMR * 20;
constexpr int64_t kNC = 2048;

uint16_t bits(const BFloat16& v) { return v.x; }

// Whether the k-pairs of x (rows of a row-major a, columns of a column-major b) can be read
// as 32-bit words: both elements of every pair in one aligned word (kc even, the pairs
// starting at even k, an even leading dimension).
bool pairs_are_words(const BFloat16* data, int64_t ld, int64_t kc) {
  return kc % 2 == 0 && ld % 2 == 0 && reinterpret_cast<uintptr_t>(data) % 4 == 0;
}

// The (rows, k-pairs) words of such an operand as a float32 matrix, for the float kernel's
// packing, which moves 32-bit elements without reading their values.
MatrixRef<float> as_words(const BFloat16* data, int64_t ld, bool col_major) {
  return {reinterpret_cast<const float*>(data), ld / 2, col_major};
}

// b rows [p0, p0 + kc) x columns [j0, j0 + nc) as panels of kNR columns: panel q at
// dst + q * kc2 * 2 * kNR, element (p, j) at (p - p0) / 2 * 2 * kNR + (j % kNR) * 2 + p % 2,
// kc2 = ceil(kc / 2): each 32-bit lane holds the k-pair of one column that vdpbf16ps
// multiplies with the k-pair of one row of a. Columns past nc and the odd k's partner are 0.
void pack_b(const MatrixRef<BFloat16>& b, int64_t p0, int64_t kc, int64_t j0, int64_t nc,
            uint16_t* dst) {
  const int64_t kc2 = (kc + 1) / 2;
  const int64_t ps = b.col_major ? 1 : b.ld, js = b.col_major ? b.ld : 1;
  const BFloat16* base = b.data + p0 * ps + j0 * js;
  if (b.col_major && pairs_are_words(base, b.ld, kc)) {  // a column's pairs are words
    sgemm_detail::pack_b(as_words(base, b.ld, true), 0, kc2, 0, nc, reinterpret_cast<float*>(dst));
    return;
  }
  if (!b.col_major) {  // rows 2r and 2r + 1 interleaved, 32 columns per two vectors
    const __m512i first = _mm512_set_epi16(47, 15, 46, 14, 45, 13, 44, 12, 43, 11, 42, 10, 41, 9,
                                           40, 8, 39, 7, 38, 6, 37, 5, 36, 4, 35, 3, 34, 2, 33, 1,
                                           32, 0);
    const __m512i second = _mm512_add_epi16(first, _mm512_set1_epi16(16));
    for (int64_t q = 0; q * kNR < nc; ++q) {
      uint16_t* panel = dst + q * kc2 * 2 * kNR;
      const __mmask32 cols = static_cast<__mmask32>(
          (uint64_t(1) << std::min<int64_t>(kNR, nc - q * kNR)) - 1);
      for (int64_t r = 0; r < kc2; ++r) {
        const BFloat16* row = base + 2 * r * ps + q * kNR;
        const __m512i lo = _mm512_maskz_loadu_epi16(cols, row);
        const __m512i hi = 2 * r + 1 < kc ? _mm512_maskz_loadu_epi16(cols, row + ps) : _mm512_setzero_si512();
        _mm512_store_si512(panel + r * 2 * kNR, _mm512_permutex2var_epi16(lo, first, hi));
        _mm512_store_si512(panel + r * 2 * kNR + 32, _mm512_permutex2var_epi16(lo, second, hi));
      }
    }
    return;
  }
  for (int64_t q = 0; q * kNR < nc; ++q) {  // column-major with pairs split across words
    uint16_t* panel = dst + q * kc2 * 2 * kNR;
    const int64_t w = std::min<int64_t>(kNR, nc - q * kNR);
    for (int64_t r = 0; r < kc2; ++r) {
      uint16_t* out = panel + r * 2 * kNR;
      const bool pair = 2 * r + 1 < kc;
      for (int64_t j = 0; j < w; ++j) {
        const BFloat16* x = base + (2 * r) * ps + (q * kNR + j) * js;
        out[2 * j] = bits(x[0]);
        out[2 * j + 1] = pair ? bits(x[ps]) : 0;
      }
      std::memset(out + 2 * w, 0, static_cast<size_t>(2 * (kNR - w)) * sizeof(uint16_t));
    }
  }
}

// a rows [i0, i0 + mc) x k [p0, p0 + kc) as panels of kMR rows (the last one tight, mr
// rows): panel at dst + (i / kMR) * kMR * kc2, its k-pair r of row i at r * mr + i % kMR, one
// 32-bit word (the two bfloat16 a(i, p), a(i, p + 1)) that the micro-kernel broadcasts.
void pack_a(const MatrixRef<BFloat16>& a, int64_t i0, int64_t mc, int64_t p0, int64_t kc,
            uint32_t* dst) {
  const int64_t kc2 = (kc + 1) / 2;
  const int64_t is = a.col_major ? 1 : a.ld, ps = a.col_major ? a.ld : 1;
  const BFloat16* base = a.data + i0 * is + p0 * ps;
  if (!a.col_major && pairs_are_words(base, a.ld, kc)) {  // a row's pairs are words
    sgemm_detail::pack_a(as_words(base, a.ld, false), 0, mc, 0, kc2, reinterpret_cast<float*>(dst));
    return;
  }
  if (a.col_major) {  // columns 2r and 2r + 1 run along the rows: widen and interleave them
    for (int64_t ir = 0; ir < mc; ir += kMR) {
      const int64_t mr = std::min<int64_t>(kMR, mc - ir);
      const __mmask16 rows = low_mask(mr);
      uint32_t* panel = dst + ir * kc2;
      for (int64_t r = 0; r < kc2; ++r) {
        const BFloat16* x = base + ir + (2 * r) * ps;
        const __m512i lo = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(rows, x));
        const __m512i hi = 2 * r + 1 < kc
                               ? _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(rows, x + ps))
                               : _mm512_setzero_si512();
        const __m512i words = _mm512_or_si512(lo, _mm512_slli_epi32(hi, 16));
        _mm512_mask_storeu_epi32(panel + r * mr, rows, words);
      }
    }
    return;
  }
  for (int64_t ir = 0; ir < mc; ir += kMR) {  // row-major with pairs split across words
    const int64_t mr = std::min<int64_t>(kMR, mc - ir);
    uint32_t* panel = dst + ir * kc2;
    for (int64_t r = 0; r < kc2; ++r) {
      const bool pair = 2 * r + 1 < kc;
      for (int64_t i = 0; i < mr; ++i) {
        const BFloat16* x = base + (ir + i) * is + (2 * r) * ps;
        const uint32_t lo = bits(x[0]), hi = pair ? bits(x[ps]) : 0;
        panel[r * mr + i] = lo | (hi << 16);
      }
    }
  }
}

// b (k, n) with its columns in runs (MatrixRuns), rows [p0, p0 + kc) x columns [j0, j0 + nc)
// in pack_b's layout: 16 columns at a time from one run (run % 16 == 0, j0 % 16 == 0), the
// two rows of a k-pair interleaved.
void pack_b_runs(const MatrixRuns& b, int64_t p0, int64_t kc, int64_t j0, int64_t nc,
                 uint16_t* dst) {
  const int64_t kc2 = (kc + 1) / 2;
  const __m512i interleave = _mm512_set_epi16(47, 15, 46, 14, 45, 13, 44, 12, 43, 11, 42, 10, 41,
                                              9, 40, 8, 39, 7, 38, 6, 37, 5, 36, 4, 35, 3, 34, 2,
                                              33, 1, 32, 0);
  for (int64_t q = 0; q * kNR < nc; ++q) {
    uint16_t* panel = dst + q * kc2 * 2 * kNR;
    for (int h = 0; h < kNV; ++h) {
      const int64_t j = j0 + q * kNR + 16 * h;
      const __mmask16 cols = low_mask(j0 + nc - j);
      const BFloat16* column = b.data + j / b.run * b.run_stride + j % b.run;
      for (int64_t r = 0; r < kc2; ++r) {
        const BFloat16* row = column + (p0 + 2 * r) * b.ld;
        const __m256i lo = _mm256_maskz_loadu_epi16(cols, row);
        const __m256i hi = 2 * r + 1 < kc ? _mm256_maskz_loadu_epi16(cols, row + b.ld)
                                          : _mm256_setzero_si256();
        _mm512_store_si512(panel + r * 2 * kNR + 32 * h,
                           _mm512_permutex2var_epi16(_mm512_castsi256_si512(lo), interleave,
                                                     _mm512_castsi256_si512(hi)));
      }
    }
  }
}

// a (m, k) with its columns (k) in runs, rows [i0, i0 + mc) x k [p0, p0 + kc) in pack_a's
// layout: per row 32 columns (16 k-pairs) from two runs' 16 (run % 16 == 0, p0 % 32 == 0),
// 16 rows' words transposed at once.
void pack_a_runs(const MatrixRuns& a, int64_t i0, int64_t mc, int64_t p0, int64_t kc,
                 uint32_t* dst) {
  const int64_t kc2 = (kc + 1) / 2;
  for (int64_t ir = 0; ir < mc; ir += kMR) {
    const int64_t mr = std::min<int64_t>(kMR, mc - ir);
    uint32_t* panel = dst + ir * kc2;
    for (int64_t s = 0; s < kc; s += 32) {
      const BFloat16* segment[2];
      __mmask16 valid[2];
      for (int h = 0; h < 2; ++h) {
        const int64_t p = p0 + s + 16 * h;
        segment[h] = a.data + p / a.run * a.run_stride + p % a.run;
        valid[h] = low_mask(kc - s - 16 * h);
      }
      __m512 r[16];
      for (int i = 0; i < 16; ++i) {
        if (i >= mr) {
          r[i] = _mm512_setzero_ps();
          continue;
        }
        const int64_t row = (i0 + ir + i) * a.ld;
        const __m256i lo = _mm256_maskz_loadu_epi16(valid[0], segment[0] + row);
        const __m256i hi = valid[1] ? _mm256_maskz_loadu_epi16(valid[1], segment[1] + row)
                                    : _mm256_setzero_si256();
        r[i] = _mm512_castsi512_ps(_mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1));
      }
      sgemm_detail::transpose16(r);
      const int64_t pairs = std::min<int64_t>(16, kc2 - s / 2);
      for (int64_t q = 0; q < pairs; ++q)
        _mm512_mask_storeu_ps(reinterpret_cast<float*>(panel + (s / 2 + q) * mr), low_mask(mr),
                              r[q]);
    }
  }
}

inline __m512 widen_bf16(__m256i h) {
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

// 16 elements of c, bfloat16 or float32, as float32 and back (rounded once for bfloat16).
inline __m512 load_c(const BFloat16* p, __mmask16 m) {
  return widen_bf16(_mm256_maskz_loadu_epi16(m, p));
}
inline __m512 load_c(const float* p, __mmask16 m) { return _mm512_maskz_loadu_ps(m, p); }
inline void store_c(BFloat16* p, __mmask16 m, __m512 x) {
  _mm256_mask_storeu_epi16(p, m, round_to_bf16(x));
}
inline void store_c(float* p, __mmask16 m, __m512 x) { _mm512_mask_storeu_ps(p, m, x); }

// The tile's place in c: each vector of 16 columns from its own pointer, rows ldc apart;
// with `bias`, bias[i] added to row i, and with `relu`, max(0, x) (NaN kept), before the store.
template <typename C>
struct Tile {
  C* col[kNV];
  __mmask16 mask[kNV];
  int64_t ldc;
  const float* bias = nullptr;
  bool relu = false;
};

// out (MR x kNR) = alpha * a_panel @ b_panel + beta * out over kc2 k-pairs.
template <typename C, int MR>
void micro_kernel(int64_t kc2, const uint32_t* __restrict a, const uint16_t* __restrict b,
                  const Tile<C>& out, float alpha, float beta) {
  __m512 acc[MR][kNV];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < kNV; ++v) acc[i][v] = _mm512_setzero_ps();
  for (int64_t r = 0; r < kc2; ++r) {
    __m512bh bv[kNV];
#pragma GCC unroll 4
    for (int v = 0; v < kNV; ++v)
      bv[v] = (__m512bh)_mm512_load_si512(b + r * 2 * kNR + 32 * v);
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      const __m512bh ai = (__m512bh)_mm512_set1_epi32(static_cast<int>(a[r * MR + i]));
#pragma GCC unroll 4
      for (int v = 0; v < kNV; ++v) acc[i][v] = _mm512_dpbf16_ps(acc[i][v], ai, bv[v]);
    }
  }
  const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 4
    for (int v = 0; v < kNV; ++v) {
      C* cp = out.col[v] + i * out.ldc;
      __m512 x = _mm512_mul_ps(va, acc[i][v]);
      if (beta != 0.0f) x = _mm512_fmadd_ps(vb, load_c(cp, out.mask[v]), x);
      if (out.bias) x = _mm512_add_ps(x, _mm512_set1_ps(out.bias[i]));
      if (out.relu) x = _mm512_max_ps(_mm512_setzero_ps(), x);
      store_c(cp, out.mask[v], x);
    }
  }
}

template <typename C>
using MicroKernel = void (*)(int64_t, const uint32_t*, const uint16_t*, const Tile<C>&, float, float);
template <typename C, int... R>
constexpr auto make_kernels(std::integer_sequence<int, R...>) {
  return std::array<MicroKernel<C>, sizeof...(R)>{&micro_kernel<C, R + 1>...};
}
template <typename C>
constexpr auto kKernels = make_kernels<C>(std::make_integer_sequence<int, kMR>{});

// c's row-major layout for gemm_block: element (i, j) at c + i * ldc + j.
template <typename C>
struct RowMajor {
  C* c;
  int64_t ldc;
  C* at(int64_t i, int64_t j) const { return c + i * ldc + j; }
  const float* bias = nullptr;
  bool relu = false;
};

// PanelOutput's layout for gemm_block: runs of `run` columns side by side.
struct Runs {
  const PanelOutput& out;
  int64_t ldc;
  const float* bias;
  bool relu;
  explicit Runs(const PanelOutput& o) : out(o), ldc(o.ldc), bias(o.bias), relu(o.relu) {}
  BFloat16* at(int64_t i, int64_t j) const {
    return out.data + j / out.run * out.run_stride + i * out.ldc + j % out.run;
  }
};

// Rows [m0, m1) x columns [n0, n1) of c on one thread. Each k block after the first adds to
// the result of the ones before (beta 1), as the float kernel does; a bfloat16 c rounds that
// partial sum, so with k <= kKC (every product up to 768-deep) its sum rounds once.
// a's block packed as pack_a does, by pack_a(a, ic, mc, pc, kc, dst) (a MatrixRef or a
// MatrixRuns); pack_b(pc, kc, jc, nc, dst) packs b's block as pack_b; out: c's layout
// (RowMajor or Runs: a 16-column vector never leaves a run), its row bias and relu.
template <typename C, typename A, typename PackB, typename Out>
void gemm_block(int64_t m0, int64_t m1, int64_t n0, int64_t n1, int64_t k, float alpha,
                const A& a, const PackB& pack_b, float beta, const Out& c) {
  constexpr gemm_blocking::Blocks kBlocks{kKC, kMC, kNC};
  // Depth in k-pairs: a float of the buffers holds 2 bfloat16.
  const gemm_blocking::PackBuffers buffers =
      gemm_blocking::pack_buffers<kNR>(m1 - m0, n1 - n0, (std::min(k, kKC) + 1) / 2, kBlocks);
  auto* a_pack = reinterpret_cast<uint32_t*>(buffers.a);
  auto* b_pack = reinterpret_cast<uint16_t*>(buffers.b);
  gemm_blocking::blocked_product<kMR, kNR>(
      m0, m1, n0, n1, k, kBlocks,
      [&](int64_t pc, int64_t kc, int64_t jc, int64_t nc) { pack_b(pc, kc, jc, nc, b_pack); },
      [&](int64_t ic, int64_t mc, int64_t pc, int64_t kc) {
        if constexpr (std::is_same_v<A, MatrixRuns>) pack_a_runs(a, ic, mc, pc, kc, a_pack);
        else pack_a(a, ic, mc, pc, kc, a_pack);
      },
      [&](const gemm_blocking::TileJob& t) {
        const int64_t kc2 = (t.kc + 1) / 2;
        Tile<C> out{{}, {}, c.ldc, c.bias ? c.bias + t.i : nullptr, c.relu};
        for (int v = 0; v < kNV; ++v) {
          out.col[v] = c.at(t.i, t.j + 16 * v);
          out.mask[v] = low_mask(t.cols - 16 * v);
        }
        kKernels<C>[t.mr - 1](kc2, a_pack + t.ir * kc2, b_pack + t.jr * 2 * kc2, out, alpha,
                              t.first ? beta : 1.0f);
      });
}

template <typename C>
void bf16gemm_blocks(int64_t m, int64_t n, int64_t k, float alpha, MatrixRef<BFloat16> a,
                     MatrixRef<BFloat16> b, float beta, C* c, int64_t ldc) {
  const auto pack = [&](int64_t pc, int64_t kc, int64_t jc, int64_t nc, uint16_t* dst) {
    pack_b(b, pc, kc, jc, nc, dst);
  };
  sgemm_detail::run_blocks(m, n, k, [&](int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
    gemm_block<C>(m0, m1, n0, n1, k, alpha, a, pack, beta, RowMajor<C>{c, ldc});
  });
}

// Whether c's few columns should be the rows of the product: n columns fill at most half of
// the 32-column tile, where n rows fill n of its 14 rows (a Linear layer's products with a
// handful of outputs: 64 x 2048 @ 2048 x 10 and 2048 x 64 @ 64 x 10).
bool narrow_product(int64_t m, int64_t n) { return n < kNR / 2 && m >= kNR; }

// c = alpha * a @ b + beta * c as c^T = alpha * b^T @ a^T into a per-thread float32 buffer,
// then transposed into c (sgemm_detail::transposed_product). The float32 sums are the
// untransposed kernel's (the same k-pairs in the same order); beta's term and the rounding to
// bfloat16 come once, as there.
template <typename C>
void bf16gemm_transposed(int64_t m, int64_t n, int64_t k, float alpha, MatrixRef<BFloat16> a,
                         MatrixRef<BFloat16> b, float beta, C* c, int64_t ldc) {
  const MatrixRef<BFloat16> bt{b.data, b.ld, !b.col_major};
  const __m512 vb = _mm512_set1_ps(beta);
  sgemm_detail::transposed_product(
      m, n, a,
      [&](int64_t rows, const MatrixRef<BFloat16>& a_rows, float* t) {
        bf16gemm_blocks<float>(n, rows, k, alpha, bt, {a_rows.data, a_rows.ld, !a_rows.col_major},
                               0.0f, t, rows);
      },
      [&](int64_t i, int64_t j0, __m512 x, __mmask16 lanes) {
        C* row = c + i * ldc + j0;
        if (beta != 0.0f) x = _mm512_fmadd_ps(vb, load_c(row, lanes), x);
        store_c(row, lanes, x);
      });
}

template <typename C>
void bf16gemm_avx512(int64_t m, int64_t n, int64_t k, float alpha, MatrixRef<BFloat16> a,
                     MatrixRef<BFloat16> b, float beta, C* c, int64_t ldc) {
  if (narrow_product(m, n)) return bf16gemm_transposed(m, n, k, alpha, a, b, beta, c, ldc);
  bf16gemm_blocks(m, n, k, alpha, a, b, beta, c, ldc);
}

}  // namespace

bool bf16gemm_available() {
  static const bool cpu_has = __builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512bw");
  return cpu_has;
}

void bf16gemm_panels(int64_t m, int64_t n, int64_t k, float alpha, MatrixRef<BFloat16> a,
                     const PanelWriter& b, float beta, float* c, int64_t ldc) {
  static_assert(PanelWriter::kColumns == kNR && kPanelOutputDepth == kKC);
  EMBER_CHECK(bf16gemm_available(), "bf16gemm_panels: this CPU has no AVX-512 BF16");
  if (m == 0 || n == 0) return;
  if (k == 0) return gemm_blocking::empty_product(m, n, beta, c, ldc);
  sgemm_detail::run_blocks(m, n, k, [&](int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
    gemm_block<float>(m0, m1, n0, n1, k, alpha, a, b, beta, RowMajor<float>{c, ldc});
  });
}

void bf16gemm_panels(int64_t m, int64_t n, int64_t k, MatrixRef<BFloat16> a, const PanelWriter& b,
                     const PanelOutput& c) {
  EMBER_CHECK(bf16gemm_available(), "bf16gemm_panels: this CPU has no AVX-512 BF16");
  EMBER_CHECK(k <= kPanelOutputDepth && c.run % 16 == 0,
              "bf16gemm_panels: a bfloat16 c needs k <= ", kPanelOutputDepth,
              " (one rounding) and runs of whole vectors, got k ", k, ", runs of ", c.run);
  if (m == 0 || n == 0) return;
  const Runs out(c);
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const float x = c.bias ? c.bias[i] : 0.0f;
        *out.at(i, j) = BFloat16(c.relu && x < 0.0f ? 0.0f : x);
      }
    return;
  }
  sgemm_detail::run_blocks(m, n, k, [&](int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
    gemm_block<BFloat16>(m0, m1, n0, n1, k, 1.0f, a, b, 0.0f, out);
  });
}

namespace {

// bf16gemm's checks for an operand in runs.
bool runs_product(const char* which, const MatrixRuns& x, int64_t m, int64_t n, int64_t k,
                  float beta, float* c, int64_t ldc) {
  EMBER_CHECK(bf16gemm_available(), "bf16gemm: this CPU has no AVX-512 BF16");
  EMBER_CHECK(x.run > 0 && x.run % 16 == 0, "bf16gemm: ", which,
              "'s runs must be whole vectors of 16, got ", x.run);
  if (m == 0 || n == 0) return false;
  if (k == 0) {
    gemm_blocking::empty_product(m, n, beta, c, ldc);
    return false;
  }
  return true;
}

}  // namespace

void bf16gemm_a_runs(int64_t m, int64_t n, int64_t k, float alpha, MatrixRuns a,
                     MatrixRef<BFloat16> b, float beta, float* c, int64_t ldc) {
  if (!runs_product("a", a, m, n, k, beta, c, ldc)) return;
  const auto pack = [&](int64_t pc, int64_t kc, int64_t jc, int64_t nc, uint16_t* dst) {
    pack_b(b, pc, kc, jc, nc, dst);
  };
  sgemm_detail::run_blocks(m, n, k, [&](int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
    gemm_block<float>(m0, m1, n0, n1, k, alpha, a, pack, beta, RowMajor<float>{c, ldc});
  });
}

void bf16gemm_b_runs(int64_t m, int64_t n, int64_t k, float alpha, MatrixRef<BFloat16> a,
                     MatrixRuns b, float beta, float* c, int64_t ldc) {
  if (!runs_product("b", b, m, n, k, beta, c, ldc)) return;
  const auto pack = [&](int64_t pc, int64_t kc, int64_t jc, int64_t nc, uint16_t* dst) {
    pack_b_runs(b, pc, kc, jc, nc, dst);
  };
  sgemm_detail::run_blocks(m, n, k, [&](int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
    gemm_block<float>(m0, m1, n0, n1, k, alpha, a, pack, beta, RowMajor<float>{c, ldc});
  });
}

#else  // built without AVX-512 BF16

bool bf16gemm_available() { return false; }

void bf16gemm_panels(int64_t, int64_t, int64_t, float, MatrixRef<BFloat16>, const PanelWriter&,
                     float, float*, int64_t) {
  EMBER_CHECK(false, "bf16gemm_panels: built without AVX-512 BF16");
}
void bf16gemm_panels(int64_t, int64_t, int64_t, MatrixRef<BFloat16>, const PanelWriter&,
                     const PanelOutput&) {
  EMBER_CHECK(false, "bf16gemm_panels: built without AVX-512 BF16");
}
void bf16gemm_a_runs(int64_t, int64_t, int64_t, float, MatrixRuns, MatrixRef<BFloat16>, float,
                     float*, int64_t) {
  EMBER_CHECK(false, "bf16gemm: an operand in runs needs AVX-512 BF16");
}
void bf16gemm_b_runs(int64_t, int64_t, int64_t, float, MatrixRef<BFloat16>, MatrixRuns, float,
                     float*, int64_t) {
  EMBER_CHECK(false, "bf16gemm: an operand in runs needs AVX-512 BF16");
}

#endif

namespace {

// x (rows, cols) widened into a row-major float32 matrix (exact: bfloat16 is float32's top half).
MatrixRef<float> widened(const MatrixRef<BFloat16>& x, int64_t rows, int64_t cols,
                         std::vector<float>& buffer) {
  buffer.resize(static_cast<size_t>(rows * cols));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      buffer[i * cols + j] = x.data[x.col_major ? i + j * x.ld : i * x.ld + j];
  return {buffer.data(), cols, false};
}

// The product on the float GEMM: the same float32 sums of exact products, one rounding.
template <typename C>
void bf16gemm_widened(int64_t m, int64_t n, int64_t k, float alpha, MatrixRef<BFloat16> a,
                      MatrixRef<BFloat16> b, float beta, C* c, int64_t ldc) {
  thread_local std::vector<float> fa, fb, fc;
  const MatrixRef<float> wa = widened(a, m, k, fa), wb = widened(b, k, n, fb);
  if constexpr (std::is_same_v<C, float>) {
    gemm<float>(m, n, k, alpha, wa, wb, beta, c, ldc);
  } else {
    fc.resize(static_cast<size_t>(m * n));
    gemm<float>(m, n, k, alpha, wa, wb, 0.0f, fc.data(), n);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const float x = fc[i * n + j];
        c[i * ldc + j] = C(beta == 0.0f ? x : x + beta * static_cast<float>(c[i * ldc + j]));
      }
  }
}

template <typename C>
void bf16gemm_into(int64_t m, int64_t n, int64_t k, float alpha, MatrixRef<BFloat16> a,
                   MatrixRef<BFloat16> b, float beta, C* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) return gemm_blocking::empty_product(m, n, beta, c, ldc);
#if defined(EMBER_BF16GEMM)
  if (bf16gemm_available()) return bf16gemm_avx512(m, n, k, alpha, a, b, beta, c, ldc);
#endif
  bf16gemm_widened(m, n, k, alpha, a, b, beta, c, ldc);
}

}  // namespace

void bf16gemm(int64_t m, int64_t n, int64_t k, float alpha, MatrixRef<BFloat16> a,
              MatrixRef<BFloat16> b, float beta, BFloat16* c, int64_t ldc) {
  bf16gemm_into(m, n, k, alpha, a, b, beta, c, ldc);
}
void bf16gemm(int64_t m, int64_t n, int64_t k, float alpha, MatrixRef<BFloat16> a,
              MatrixRef<BFloat16> b, float beta, float* c, int64_t ldc) {
  bf16gemm_into(m, n, k, alpha, a, b, beta, c, ldc);
}

}  // namespace ember::cpu
