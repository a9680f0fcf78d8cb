#include "ember/kernels/cpu/convert_16bit.h"

#if defined(__AVX2__) || defined(__F16C__)
#include <immintrin.h>
#endif
#if defined(__AVX512F__) && defined(__AVX512BW__)
#include "ember/kernels/cpu/bf16_rounding.h"
#endif

namespace ember::cpu {

void widen(const BFloat16* in, float* out, int64_t n) {
  int64_t i = 0;
#if defined(__AVX2__)
  // A bfloat16 is the high half of its float32: zero-extend, shift up.
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                        _mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
  }
#endif
  for (; i < n; ++i) out[i] = static_cast<float>(in[i]);
}

void widen(const Half* in, float* out, int64_t n) {
  int64_t i = 0;
#if defined(__F16C__) && defined(__AVX__)
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(out + i,
                     _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))));
#endif
  for (; i < n; ++i) out[i] = static_cast<float>(in[i]);
}

void narrow(const float* in, BFloat16* out, int64_t n) {
  int64_t i = 0;
#if defined(__AVX512F__) && defined(__AVX512BW__)
  for (; i + 16 <= n; i += 16)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), round_to_bf16(_mm512_loadu_ps(in + i)));
#endif
#if defined(__AVX2__)
  // reduced_float.h's rounding on eight lanes: add 0x7fff plus the lowest
  // kept bit and keep the high half; a NaN keeps its high half, made quiet.
  const __m256i magnitude = _mm256_set1_epi32(0x7fffffff), infinity = _mm256_set1_epi32(0x7f800000);
  const __m256i bias = _mm256_set1_epi32(0x7fff), one = _mm256_set1_epi32(1),
                quiet = _mm256_set1_epi32(0x0040);
  for (; i + 8 <= n; i += 8) {
    const __m256i u = _mm256_castps_si256(_mm256_loadu_ps(in + i));
    const __m256i high = _mm256_srli_epi32(u, 16);
    const __m256i rounded = _mm256_srli_epi32(
        _mm256_add_epi32(u, _mm256_add_epi32(bias, _mm256_and_si256(high, one))), 16);
    // |u| > infinity as signed 32-bit integers: both sides are non-negative.
    const __m256i is_nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, magnitude), infinity);
    const __m256i bits = _mm256_blendv_epi8(rounded, _mm256_or_si256(high, quiet), is_nan);
    // Every lane is below 2^16, so the saturating pack is exact; it packs
    // within 128-bit halves, and the permute brings the two results together.
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(bits, bits),
                                                    _MM_SHUFFLE(3, 1, 2, 0));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm256_castsi256_si128(packed));
  }
#endif
  for (; i < n; ++i) out[i] = BFloat16(in[i]);
}

void narrow(const float* in, Half* out, int64_t n) {
  int64_t i = 0;
#if defined(__F16C__) && defined(__AVX__)
  // F16C rounds as IEEE 754 says (nearest, ties to even; beyond 65504 up to
  // infinity; subnormals exact): reduced_float.h's rounding.
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT));
#endif
  for (; i < n; ++i) out[i] = Half(in[i]);
}

}  // namespace ember::cpu
