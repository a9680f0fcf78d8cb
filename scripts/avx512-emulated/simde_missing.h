// AVX-512 intrinsics that ember's kernels use and SIMDe 0.7.4 (Debian 12's libsimde-dev) does
// not provide, written lane by lane from their definitions in Intel's intrinsics guide, for
// scripts/avx512-emulated-tests.sh only: never part of a build of the library.
#pragma once
#include <cstdint>
#include <cstring>

#include <simde/x86/avx512.h>

inline simde__m512 simde_mm512_maskz_loadu_ps(simde__mmask16 k, const void* p) {
  const float* in = static_cast<const float*>(p);
  float out[16];
  for (int i = 0; i < 16; ++i) out[i] = (k >> i) & 1 ? in[i] : 0.0f;
  return simde_mm512_loadu_ps(out);
}

inline simde__m512i simde_mm512_maskz_loadu_epi32(simde__mmask16 k, const void* p) {
  const int* in = static_cast<const int*>(p);
  int out[16];
  for (int i = 0; i < 16; ++i) out[i] = (k >> i) & 1 ? in[i] : 0;
  return simde_mm512_loadu_si512(out);
}

inline simde__m256 simde_mm256_maskz_loadu_ps(simde__mmask8 k, const void* p) {
  const float* in = static_cast<const float*>(p);
  float out[8];
  for (int i = 0; i < 8; ++i) out[i] = (k >> i) & 1 ? in[i] : 0.0f;
  return simde_mm256_loadu_ps(out);
}

inline void simde_mm512_mask_storeu_ps(void* p, simde__mmask16 k, simde__m512 a) {
  float lanes[16];
  simde_mm512_storeu_ps(lanes, a);
  for (int i = 0; i < 16; ++i)
    if ((k >> i) & 1) static_cast<float*>(p)[i] = lanes[i];
}

inline void simde_mm_mask_storeu_ps(void* p, simde__mmask8 k, simde__m128 a) {
  float lanes[4];
  simde_mm_storeu_ps(lanes, a);
  for (int i = 0; i < 4; ++i)
    if ((k >> i) & 1) static_cast<float*>(p)[i] = lanes[i];
}

// Lanes whose mask bit is set take a's elements in order, the others 0.
inline simde__m512 simde_mm512_maskz_expand_ps(simde__mmask16 k, simde__m512 a) {
  float in[16], out[16];
  simde_mm512_storeu_ps(in, a);
  for (int i = 0, next = 0; i < 16; ++i) out[i] = (k >> i) & 1 ? in[next++] : 0.0f;
  return simde_mm512_loadu_ps(out);
}

inline simde__m512 simde_mm512_mask_i32gather_ps(simde__m512 src, simde__mmask16 k,
                                                 simde__m512i index, const void* base,
                                                 int scale) {
  float out[16];
  int at[16];
  simde_mm512_storeu_ps(out, src);
  simde_mm512_storeu_si512(at, index);
  const char* bytes = static_cast<const char*>(base);
  for (int i = 0; i < 16; ++i)
    if ((k >> i) & 1)
      std::memcpy(&out[i], bytes + static_cast<long>(at[i]) * scale, sizeof(float));
  return simde_mm512_loadu_ps(out);
}

// Lanes are written from the lowest up, so the highest of lanes with one address wins.
inline void simde_mm512_mask_i32scatter_ps(void* base, simde__mmask16 k, simde__m512i index,
                                           simde__m512 a, int scale) {
  float lanes[16];
  int at[16];
  simde_mm512_storeu_ps(lanes, a);
  simde_mm512_storeu_si512(at, index);
  char* bytes = static_cast<char*>(base);
  for (int i = 0; i < 16; ++i)
    if ((k >> i) & 1)
      std::memcpy(bytes + static_cast<long>(at[i]) * scale, &lanes[i], sizeof(float));
}

// Halves added pairwise down to one lane (the order of GCC's own _mm512_reduce_add_ps).
inline float simde_mm512_reduce_add_ps(simde__m512 a) {
  float lanes[16];
  simde_mm512_storeu_ps(lanes, a);
  for (int width = 8; width >= 1; width /= 2)
    for (int i = 0; i < width; ++i) lanes[i] += lanes[i + width];
  return lanes[0];
}

// 16-bit lanes (bfloat16 moved as bits) and the conversions between 16- and 32-bit lanes.
inline simde__m512i simde_mm512_maskz_loadu_epi16(simde__mmask32 k, const void* p) {
  const int16_t* in = static_cast<const int16_t*>(p);
  int16_t out[32];
  for (int i = 0; i < 32; ++i) out[i] = (k >> i) & 1 ? in[i] : 0;
  return simde_mm512_loadu_si512(out);
}

inline simde__m256i simde_mm256_maskz_loadu_epi16(simde__mmask16 k, const void* p) {
  const int16_t* in = static_cast<const int16_t*>(p);
  int16_t out[16];
  for (int i = 0; i < 16; ++i) out[i] = (k >> i) & 1 ? in[i] : 0;
  return simde_mm256_loadu_si256(out);
}

inline void simde_mm256_mask_storeu_epi16(void* p, simde__mmask16 k, simde__m256i a) {
  int16_t lanes[16];
  simde_mm256_storeu_si256(lanes, a);
  for (int i = 0; i < 16; ++i)
    if ((k >> i) & 1) static_cast<int16_t*>(p)[i] = lanes[i];
}

// Each 32-bit lane truncated to its low 16 bits; lanes whose mask bit is clear are 0.
inline simde__m256i simde_mm512_maskz_cvtepi32_epi16(simde__mmask16 k, simde__m512i a) {
  uint32_t in[16];
  uint16_t out[16];
  simde_mm512_storeu_si512(in, a);
  for (int i = 0; i < 16; ++i) out[i] = (k >> i) & 1 ? static_cast<uint16_t>(in[i]) : 0;
  return simde_mm256_loadu_si256(out);
}

inline simde__m256i simde_mm512_cvtepi32_epi16(simde__m512i a) {
  return simde_mm512_maskz_cvtepi32_epi16(0xFFFF, a);
}

// Each 16-bit lane zero-extended to 32 bits.
inline simde__m512i simde_mm512_cvtepu16_epi32(simde__m256i a) {
  uint16_t in[16];
  uint32_t out[16];
  simde_mm256_storeu_si256(in, a);
  for (int i = 0; i < 16; ++i) out[i] = in[i];
  return simde_mm512_loadu_si512(out);
}

inline simde__m512i simde_mm512_mask_srli_epi32(simde__m512i src, simde__mmask16 k,
                                                simde__m512i a, unsigned int shift) {
  uint32_t s[16], x[16];
  simde_mm512_storeu_si512(s, src);
  simde_mm512_storeu_si512(x, a);
  for (int i = 0; i < 16; ++i)
    if ((k >> i) & 1) s[i] = shift > 31 ? 0 : x[i] >> shift;
  return simde_mm512_loadu_si512(s);
}

inline simde__m512i simde_mm512_mask_i32gather_epi32(simde__m512i src, simde__mmask16 k,
                                                     simde__m512i index, const void* base,
                                                     int scale) {
  int32_t out[16], at[16];
  simde_mm512_storeu_si512(out, src);
  simde_mm512_storeu_si512(at, index);
  const char* bytes = static_cast<const char*>(base);
  for (int i = 0; i < 16; ++i)
    if ((k >> i) & 1)
      std::memcpy(&out[i], bytes + static_cast<long>(at[i]) * scale, sizeof(int32_t));
  return simde_mm512_loadu_si512(out);
}

// Non-temporal stores: the same values as a plain store (the cache hint is not emulated).
inline void simde_mm512_stream_ps(void* p, simde__m512 a) { simde_mm512_storeu_ps(p, a); }
inline void simde_mm512_stream_pd(void* p, simde__m512d a) { simde_mm512_storeu_pd(p, a); }
