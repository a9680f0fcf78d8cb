#pragma once
// What the stride-2 Winograd (conv_winograd_algorithm.h) asks of an instruction set, for the
// build's widest: its float vector (GCC vector type, so + - * work on it) and width, a few
// loads and stores, an in-register transpose, and the packed GEMM's micro-kernel for one tile.
// winograd::Isa names the one this build has; kHasIsa is false where it has neither.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "ember/kernels/cpu/conv_util.h"

#if defined(__AVX512F__)
#include "ember/kernels/cpu/sgemm_avx512_tile.h"
#elif defined(__AVX2__) && defined(__FMA__)
#include "ember/kernels/cpu/avx2_lanes.h"
#include "ember/kernels/cpu/sgemm_avx2_tile.h"
#endif

namespace ember::cpu::winograd {

#if defined(__AVX512F__)
constexpr bool kHasIsa = true;

struct Avx512 {
  using V = __m512;
  static constexpr int kWidth = 16;
  static constexpr int64_t kMR = sgemm_detail::kMR;
  static constexpr int64_t kNR = sgemm_detail::kNR;

  static V set1(float x) { return _mm512_set1_ps(x); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V relu(V x) { return conv_detail::relu_ps(x); }
  static V load(const float* p) { return _mm512_load_ps(p); }  // 64-byte aligned
  static void store(float* p, V x) { _mm512_store_ps(p, x); }
  // The first count floats at p (clamped to [0, 16]), zeros in the other lanes.
  static V load_first(const float* p, int64_t count) {
    return _mm512_maskz_loadu_ps(sgemm_detail::low_mask(count), p);
  }
  // Lanes [0, count) of x to p.
  static void store_first(float* p, int64_t count, V x) {
    _mm512_mask_storeu_ps(p, sgemm_detail::low_mask(count), x);
  }
  static void transpose(V* r) { sgemm_detail::transpose16(r); }
  // x holds 4 rows of 4 floats: the first `rows` of them, their first `cols` floats each,
  // to dst, dst + ld, ...
  static void store_rows(float* dst, int64_t ld, V x, int64_t rows, int64_t cols) {
    const __mmask8 part = static_cast<__mmask8>(sgemm_detail::low_mask(cols));
    if (rows > 0) _mm_mask_storeu_ps(dst, part, _mm512_extractf32x4_ps(x, 0));
    if (rows > 1) _mm_mask_storeu_ps(dst + ld, part, _mm512_extractf32x4_ps(x, 1));
    if (rows > 2) _mm_mask_storeu_ps(dst + 2 * ld, part, _mm512_extractf32x4_ps(x, 2));
    if (rows > 3) _mm_mask_storeu_ps(dst + 3 * ld, part, _mm512_extractf32x4_ps(x, 3));
  }
  // c (mr x kNR, row stride ldc) = a (a packed panel of mr rows) @ b (a packed kNR panel).
  static void tile(int64_t mr, int64_t kc, const float* a, const float* b, float* c,
                   int64_t ldc) {
    const sgemm_detail::TileOut out{{c, c + 16}, {__mmask16(0xFFFF), __mmask16(0xFFFF)}, ldc,
                                    nullptr};
    sgemm_detail::kKernels[mr - 1](kc, a, b, out, 1.0f, 0.0f);
  }
};
using Isa = Avx512;

#elif defined(__AVX2__) && defined(__FMA__)
constexpr bool kHasIsa = true;

struct Avx2 {
  using V = __m256;
  static constexpr int kWidth = 8;
  static constexpr int64_t kMR = sgemm_avx2_detail::kMR;
  static constexpr int64_t kNR = sgemm_avx2_detail::kNR;

  static V set1(float x) { return _mm256_set1_ps(x); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V relu(V x) { return conv_detail::relu_ps(x); }
  static V load(const float* p) { return _mm256_load_ps(p); }  // 32-byte aligned
  static void store(float* p, V x) { _mm256_store_ps(p, x); }
  static V load_first(const float* p, int64_t count) { return avx2::load_lanes(p, count); }
  static void store_first(float* p, int64_t count, V x) { avx2::store_lanes(p, count, x); }
  static void transpose(V* r) { avx2::transpose8(r); }
  // x holds 2 rows of 4 floats (see Avx512::store_rows).
  static void store_rows(float* dst, int64_t ld, V x, int64_t rows, int64_t cols) {
    if (rows > 0) avx2::store_lanes(dst, std::min<int64_t>(cols, 4), x);
    if (rows > 1)
      avx2::store_lanes(dst + ld, std::min<int64_t>(cols, 4),
                        _mm256_castps128_ps256(_mm256_extractf128_ps(x, 1)));
  }
  static void tile(int64_t mr, int64_t kc, const float* a, const float* b, float* c,
                   int64_t ldc) {
    const sgemm_avx2_detail::TileOut out{{c, c + 8}, {8, 8}, ldc, nullptr};
    sgemm_avx2_detail::kKernels[mr - 1](kc, a, b, out, 1.0f, 0.0f);
  }
};
using Isa = Avx2;

#else
constexpr bool kHasIsa = false;
#endif

}  // namespace ember::cpu::winograd
