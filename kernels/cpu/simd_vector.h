#pragma once
// One vector register of T for loops written with the GCC/Clang vector extension
// (arithmetic with vectors and scalars works as with T, so one generic loop serves both). Its
// width is the widest the build has: a 64-byte vector on an AVX2 build becomes two halves
// that GCC shuffles through the stack and compares lane by lane (the batch-norm backward's
// sums took 9% of a training step that way).
#include <cstdint>
#include <cstring>

#include "ember/core/reduced_float.h"

#if defined(__AVX512F__) && defined(__AVX512BW__)
#include "ember/kernels/cpu/bf16_rounding.h"
#endif

namespace ember::cpu::simd {

#if defined(__AVX512F__)
constexpr int kVectorBytes = 64;
#elif defined(__AVX__)
constexpr int kVectorBytes = 32;
#else
constexpr int kVectorBytes = 16;
#endif

template <typename T>
struct Simd;
template <>
struct Simd<float> {
  typedef float type __attribute__((vector_size(kVectorBytes)));
};
template <>
struct Simd<double> {
  typedef double type __attribute__((vector_size(kVectorBytes)));
};
template <typename T>
using Vec = typename Simd<T>::type;
template <typename T>
constexpr int kLanesOf = kVectorBytes / sizeof(T);

// kLanesOf<T> elements from p (any alignment).
template <typename T>
Vec<T> load(const T* p) {
  Vec<T> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// The bits of kLanesOf<float> bfloat16, and of as many float32.
typedef uint16_t Bf16Bits __attribute__((vector_size(kVectorBytes / 2)));
typedef uint32_t F32Bits __attribute__((vector_size(kVectorBytes)));

// kLanesOf<float> bfloat16 from p, as float32 (exact: a bfloat16 is a float32's high half),
// for kernels that read bfloat16 and compute in float32.
inline Vec<float> load(const BFloat16* p) {
  Bf16Bits bits;
  std::memcpy(&bits, p, sizeof bits);
  const F32Bits words = __builtin_convertvector(bits, F32Bits) << 16;
  Vec<float> v;
  std::memcpy(&v, &words, sizeof v);
  return v;
}

// v's lanes to p (any alignment).
template <typename T>
void store(T* p, const Vec<T>& v) {
  std::memcpy(p, &v, sizeof v);
}

// v rounded to bfloat16 (BFloat16(float)'s rule: nearest, ties to even; NaN kept, quiet) at p.
inline void store(BFloat16* p, const Vec<float>& v) {
#if defined(__AVX512F__) && defined(__AVX512BW__)
  __m512 x;
  std::memcpy(&x, &v, sizeof x);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), round_to_bf16(x));
#else
  F32Bits u;
  std::memcpy(&u, &v, sizeof u);
  const F32Bits rounded = (u + (0x7fffu + ((u >> 16) & 1u))) >> 16;
  const F32Bits nan = (u & 0x7fffffffu) > 0x7f800000u;  // all ones where v is NaN
  const F32Bits words = (nan & ((u >> 16) | 0x40u)) | (~nan & rounded);
  const Bf16Bits bits = __builtin_convertvector(words, Bf16Bits);
  std::memcpy(p, &bits, sizeof bits);
#endif
}

// x in every lane.
template <typename T>
Vec<T> splat(T x) {
  return Vec<T>{} + x;
}

}  // namespace ember::cpu::simd
