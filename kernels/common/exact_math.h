#pragma once
// Arithmetic rounded the same way on the CPU and on CUDA, for maths whose
// results must match bit for bit (random draws, ranges, sampling
// coordinates). Left to the compilers, nvcc fuses a * b + c into an fma and
// g++ does so only where the CPU has one (-march=native); these spell every
// rounding out: fma rounds once, the others each round their own result.
#include <cmath>

#include "ember/kernels/common/macros.h"

namespace ember::exact {

EMBER_HOST_DEVICE double add(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

EMBER_HOST_DEVICE double mul(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

EMBER_HOST_DEVICE double div(double a, double b) {
#ifdef __CUDA_ARCH__
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}

// a * b + c rounded once, in T (float or double).
template <typename T>
EMBER_HOST_DEVICE T fma(T a, T b, T c) {
#ifdef __CUDA_ARCH__
  if constexpr (sizeof(T) == 4)
    return __fmaf_rn(a, b, c);
  else
    return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

}  // namespace ember::exact
