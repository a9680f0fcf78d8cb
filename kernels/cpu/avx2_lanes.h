#pragma once
// AVX2 helpers for runs of fewer than 8 floats and 8 x 8 transposes, shared by the AVX2
// float GEMM's packing (sgemm_avx2.cpp) and the channels-last conv's transposes
// (conv_im2col_nhwc.cpp). Include only from code compiled with AVX2 (#if defined(__AVX2__)).
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

namespace ember::cpu::avx2 {

// Lanes [0, count) of an 8-lane mask for maskload, count clamped to [0, 8].
inline __m256i lane_mask(int64_t count) {
  const int lanes = static_cast<int>(std::clamp<int64_t>(count, 0, 8));
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(lanes), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// The first count (clamped to [0, 8]) floats at p, zeros in the other lanes; nothing past
// them is read.
inline __m256 load_lanes(const float* p, int64_t count) {
  return count >= 8 ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, lane_mask(count));
}

// Stores the first count (clamped to [0, 8]) lanes of x at p. Not a masked store: AMD's Zen
// cores run vmaskmovps to memory as a long microcoded sequence (packing a GEMM's 6-row panels
// through it ran at half of Eigen's speed).
inline void store_lanes(float* p, int64_t count, __m256 x) {
  if (count >= 8) return _mm256_storeu_ps(p, x);
  __m128 part = _mm256_castps256_ps128(x);
  if (count >= 4) {
    _mm_storeu_ps(p, part);
    p += 4, count -= 4;
    part = _mm256_extractf128_ps(x, 1);
  }
  if (count >= 2) {
    _mm_storel_pi(reinterpret_cast<__m64*>(p), part);
    p += 2, count -= 2;
    part = _mm_movehl_ps(part, part);
  }
  if (count >= 1) _mm_store_ss(p, part);
}

// r[i] (8 lanes) -> r[j][i] = old r[i][j]: in-register transpose of an 8 x 8 block.
inline void transpose8(__m256 r[8]) {
  __m256 t[8], s[8];
  for (int i = 0; i < 4; ++i) {  // per 128-bit lane: pairs of rows interleaved
    t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  for (int g = 0; g < 2; ++g) {  // per lane: 4 rows of one column
    s[4 * g + 0] = _mm256_shuffle_ps(t[4 * g], t[4 * g + 2], _MM_SHUFFLE(1, 0, 1, 0));
    s[4 * g + 1] = _mm256_shuffle_ps(t[4 * g], t[4 * g + 2], _MM_SHUFFLE(3, 2, 3, 2));
    s[4 * g + 2] = _mm256_shuffle_ps(t[4 * g + 1], t[4 * g + 3], _MM_SHUFFLE(1, 0, 1, 0));
    s[4 * g + 3] = _mm256_shuffle_ps(t[4 * g + 1], t[4 * g + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int c = 0; c < 4; ++c) {  // the low lanes of rows 0-3 and 4-7, then the high ones
    r[c] = _mm256_permute2f128_ps(s[c], s[4 + c], 0x20);
    r[4 + c] = _mm256_permute2f128_ps(s[c], s[4 + c], 0x31);
  }
}

}  // namespace ember::cpu::avx2
