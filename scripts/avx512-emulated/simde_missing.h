// AVX-512 intrinsics that ember's kernels use and SIMDe 0.7.4 (Debian 12's libsimde-dev) does
// not provide, written lane by lane from their definitions in Intel's intrinsics guide, for
// scripts/avx512-emulated-tests.sh only: never part of a build of the library.
#pragma once
#include <cstdint>
#include <cstring>

#include <simde/x86/avx512.h>

namespace ember_emulated {

// A vector V as an array of its lanes of type E, and back.
template <typename E, typename V>
struct Lanes {
  static constexpr int kCount = sizeof(V) / sizeof(E);
  E at[kCount];
  Lanes() : at{} {}
  explicit Lanes(const V& v) { std::memcpy(at, &v, sizeof v); }
  V vector() const {
    V v;
    std::memcpy(&v, at, sizeof v);
    return v;
  }
};

inline bool bit(uint64_t mask, int i) { return (mask >> i) & 1; }

// Lanes whose mask bit is set read from p, the others 0; lanes not set are never read.
template <typename E, typename V>
V maskz_load(uint64_t k, const void* p) {
  Lanes<E, V> out;
  for (int i = 0; i < out.kCount; ++i)
    if (bit(k, i)) std::memcpy(&out.at[i], static_cast<const char*>(p) + i * sizeof(E), sizeof(E));
  return out.vector();
}

// Lanes whose mask bit is set written to p, the others left as they are.
template <typename E, typename V>
void mask_store(void* p, uint64_t k, const V& a) {
  const Lanes<E, V> in(a);
  for (int i = 0; i < in.kCount; ++i)
    if (bit(k, i)) std::memcpy(static_cast<char*>(p) + i * sizeof(E), &in.at[i], sizeof(E));
}

// Lanes whose mask bit is set read at base + index * scale, the others src's.
template <typename E, typename V>
V mask_gather(const V& src, uint64_t k, const simde__m512i& index, const void* base, int scale) {
  Lanes<E, V> out(src);
  const Lanes<int32_t, simde__m512i> at(index);
  for (int i = 0; i < out.kCount; ++i)
    if (bit(k, i))
      std::memcpy(&out.at[i], static_cast<const char*>(base) + int64_t{at.at[i]} * scale,
                  sizeof(E));
  return out.vector();
}

}  // namespace ember_emulated

inline simde__m512 simde_mm512_maskz_loadu_ps(simde__mmask16 k, const void* p) {
  return ember_emulated::maskz_load<float, simde__m512>(k, p);
}
inline simde__m256 simde_mm256_maskz_loadu_ps(simde__mmask8 k, const void* p) {
  return ember_emulated::maskz_load<float, simde__m256>(k, p);
}
inline simde__m512i simde_mm512_maskz_loadu_epi32(simde__mmask16 k, const void* p) {
  return ember_emulated::maskz_load<int32_t, simde__m512i>(k, p);
}
inline simde__m512i simde_mm512_maskz_loadu_epi16(simde__mmask32 k, const void* p) {
  return ember_emulated::maskz_load<int16_t, simde__m512i>(k, p);
}
inline simde__m256i simde_mm256_maskz_loadu_epi16(simde__mmask16 k, const void* p) {
  return ember_emulated::maskz_load<int16_t, simde__m256i>(k, p);
}

inline void simde_mm512_mask_storeu_ps(void* p, simde__mmask16 k, simde__m512 a) {
  ember_emulated::mask_store<float>(p, k, a);
}
inline void simde_mm_mask_storeu_ps(void* p, simde__mmask8 k, simde__m128 a) {
  ember_emulated::mask_store<float>(p, k, a);
}
inline void simde_mm512_mask_storeu_epi32(void* p, simde__mmask16 k, simde__m512i a) {
  ember_emulated::mask_store<int32_t>(p, k, a);
}
inline void simde_mm256_mask_storeu_epi16(void* p, simde__mmask16 k, simde__m256i a) {
  ember_emulated::mask_store<int16_t>(p, k, a);
}
inline void simde_mm512_mask_storeu_epi16(void* p, simde__mmask32 k, simde__m512i a) {
  ember_emulated::mask_store<int16_t>(p, k, a);
}

inline simde__m512 simde_mm512_mask_i32gather_ps(simde__m512 src, simde__mmask16 k,
                                                 simde__m512i index, const void* base,
                                                 int scale) {
  return ember_emulated::mask_gather<float>(src, k, index, base, scale);
}
inline simde__m512i simde_mm512_mask_i32gather_epi32(simde__m512i src, simde__mmask16 k,
                                                     simde__m512i index, const void* base,
                                                     int scale) {
  return ember_emulated::mask_gather<int32_t>(src, k, index, base, scale);
}

// Lanes are written from the lowest up, so the highest of lanes with one address wins.
inline void simde_mm512_mask_i32scatter_ps(void* base, simde__mmask16 k, simde__m512i index,
                                           simde__m512 a, int scale) {
  const ember_emulated::Lanes<float, simde__m512> in(a);
  const ember_emulated::Lanes<int32_t, simde__m512i> at(index);
  for (int i = 0; i < 16; ++i)
    if (ember_emulated::bit(k, i))
      std::memcpy(static_cast<char*>(base) + int64_t{at.at[i]} * scale, &in.at[i], sizeof(float));
}

// Lanes whose mask bit is set take a's elements in order, the others 0.
inline simde__m512 simde_mm512_maskz_expand_ps(simde__mmask16 k, simde__m512 a) {
  const ember_emulated::Lanes<float, simde__m512> in(a);
  ember_emulated::Lanes<float, simde__m512> out;
  for (int i = 0, next = 0; i < 16; ++i)
    if (ember_emulated::bit(k, i)) out.at[i] = in.at[next++];
  return out.vector();
}

// Halves added pairwise down to one lane (the order of GCC's own _mm512_reduce_add_ps).
inline float simde_mm512_reduce_add_ps(simde__m512 a) {
  ember_emulated::Lanes<float, simde__m512> x(a);
  for (int width = 8; width >= 1; width /= 2)
    for (int i = 0; i < width; ++i) x.at[i] += x.at[i + width];
  return x.at[0];
}

// Each 32-bit lane truncated to its low 16 bits; lanes whose mask bit is clear are 0.
inline simde__m256i simde_mm512_maskz_cvtepi32_epi16(simde__mmask16 k, simde__m512i a) {
  const ember_emulated::Lanes<uint32_t, simde__m512i> in(a);
  ember_emulated::Lanes<uint16_t, simde__m256i> out;
  for (int i = 0; i < 16; ++i)
    if (ember_emulated::bit(k, i)) out.at[i] = static_cast<uint16_t>(in.at[i]);
  return out.vector();
}
inline simde__m256i simde_mm512_cvtepi32_epi16(simde__m512i a) {
  return simde_mm512_maskz_cvtepi32_epi16(0xFFFF, a);
}

// Each 16-bit lane zero-extended to 32 bits.
inline simde__m512i simde_mm512_cvtepu16_epi32(simde__m256i a) {
  const ember_emulated::Lanes<uint16_t, simde__m256i> in(a);
  ember_emulated::Lanes<uint32_t, simde__m512i> out;
  for (int i = 0; i < 16; ++i) out.at[i] = in.at[i];
  return out.vector();
}

inline simde__m512i simde_mm512_mask_srli_epi32(simde__m512i src, simde__mmask16 k,
                                                simde__m512i a, unsigned int shift) {
  ember_emulated::Lanes<uint32_t, simde__m512i> out(src);
  const ember_emulated::Lanes<uint32_t, simde__m512i> in(a);
  for (int i = 0; i < 16; ++i)
    if (ember_emulated::bit(k, i)) out.at[i] = shift > 31 ? 0 : in.at[i] >> shift;
  return out.vector();
}

// vfpclassps: the lanes whose class is one of imm's bits (0x01 quiet NaN, 0x02 +0, 0x04 -0,
// 0x08 +infinity, 0x10 -infinity, 0x20 subnormal, 0x40 negative finite, 0x80 signalling NaN).
inline simde__mmask16 simde_mm512_fpclass_ps_mask(simde__m512 a, int imm) {
  const ember_emulated::Lanes<uint32_t, simde__m512> in(a);
  simde__mmask16 k = 0;
  for (int i = 0; i < 16; ++i) {
    const uint32_t u = in.at[i], exponent = (u >> 23) & 0xff, mantissa = u & 0x7fffff;
    const bool negative = u >> 31, nan = exponent == 0xff && mantissa != 0;
    int cls = 0;
    if (nan) cls = (mantissa & 0x400000) ? 0x01 : 0x80;
    else if (exponent == 0 && mantissa == 0) cls = negative ? 0x04 : 0x02;
    else if (exponent == 0xff) cls = negative ? 0x10 : 0x08;
    else if (exponent == 0) cls = 0x20 | (negative ? 0x40 : 0);
    else if (negative) cls = 0x40;
    if (cls & imm) k = static_cast<simde__mmask16>(k | (1u << i));
  }
  return k;
}

// vcvtneps2bf16: a NaN keeps its high half, made quiet; a subnormal is read as a zero of its
// sign; the rest round to nearest, ties to even.
inline simde__m256i simde_mm512_cvtneps_pbh(simde__m512 a) {
  const ember_emulated::Lanes<uint32_t, simde__m512> in(a);
  ember_emulated::Lanes<uint16_t, simde__m256i> out;
  for (int i = 0; i < 16; ++i) {
    const uint32_t u = in.at[i], exponent = (u >> 23) & 0xff, mantissa = u & 0x7fffff;
    if (exponent == 0xff && mantissa != 0) out.at[i] = static_cast<uint16_t>((u >> 16) | 0x40);
    else if (exponent == 0) out.at[i] = static_cast<uint16_t>((u >> 16) & 0x8000);
    else out.at[i] = static_cast<uint16_t>((u + 0x7fff + ((u >> 16) & 1)) >> 16);
  }
  return out.vector();
}

// Non-temporal stores: the same values as a plain store (the cache hint is not emulated).
inline void simde_mm512_stream_ps(void* p, simde__m512 a) { simde_mm512_storeu_ps(p, a); }
inline void simde_mm512_stream_pd(void* p, simde__m512d a) { simde_mm512_storeu_pd(p, a); }
