#pragma once
// One vector register of T for loops written with the GCC/Clang vector extension
// (arithmetic with vectors and scalars works as with T, so one generic loop serves both). Its
// width is the widest the build has: a 64-byte vector on an AVX2 build becomes two halves
// that GCC shuffles through the stack and compares lane by lane (the batch-norm backward's
// sums took 9% of a training step that way).
#include <cstring>

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

// v's lanes to p (any alignment).
template <typename T>
void store(T* p, const Vec<T>& v) {
  std::memcpy(p, &v, sizeof v);
}

}  // namespace ember::cpu::simd
