#pragma once
// 16 float32 lanes rounded to bfloat16 by BFloat16(float)'s rule (reduced_float.h: nearest,
// ties to even; a NaN keeps its high half, made quiet) for the AVX-512 kernels that store
// bfloat16. Include only from code compiled with AVX-512 F and BW.
//
// GCC 12's AVX-512 headers make their "undefined" vectors by self-initialisation, which
// -Wuninitialized reports wherever these functions inline: off for the includers, as in the
// other AVX-512 units.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <cstring>

#include <immintrin.h>

namespace ember::cpu {

// The rule in integer arithmetic: add 0x7fff plus the lowest kept bit, keep the high half.
inline __m256i round_to_bf16_integer(__m512 x) {
  const __m512i u = _mm512_castps_si512(x);
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
  __m512i r = _mm512_srli_epi32(
      _mm512_add_epi32(u, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7fff))), 16);
  const __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
  r = _mm512_mask_or_epi32(r, nan, _mm512_srli_epi32(u, 16), _mm512_set1_epi32(0x40));
  return _mm512_cvtepi32_epi16(r);
}

// Note [bfloat16 rounding by vcvtneps2bf16]
// vcvtneps2bf16 (AVX-512 BF16) rounds by the same rule, NaN included, except that it reads a
// float32 subnormal as zero; a vector holding one (vfpclassps finds them) takes the integer
// form instead. Two instructions against ten: the sample model's three batch-norm + ReLU
// layers on bfloat16 (kernels only, batch 64, one thread) took 0.68 ms forward and backward
// instead of 0.92.
inline __m256i round_to_bf16(__m512 x) {
#if defined(__AVX512BF16__) && defined(__AVX512DQ__)
  if (_mm512_fpclass_ps_mask(x, 0x20) != 0) return round_to_bf16_integer(x);  // 0x20: subnormal
  const auto bits = _mm512_cvtneps_pbh(x);
  __m256i out;
  std::memcpy(&out, &bits, sizeof out);
  return out;
#else
  return round_to_bf16_integer(x);
#endif
}

}  // namespace ember::cpu
