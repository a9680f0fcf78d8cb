#pragma once
// Element i of arange and linspace, shared by the CPU loops
// (core/ops/factory.cpp) and the CUDA kernel (kernels/cuda/factory.cu), so a
// range is the same on both devices bit for bit. Every rounding is spelled
// out: nvcc fuses a * b + c into an fma and g++ does so only where the CPU
// has one (-march=native), so a multiply feeding an add is written as an
// explicit fma, and the other operations as separately rounded ones.
#include <cmath>
#include <cstdint>

#include "ember/kernels/common/macros.h"

namespace ember::functors {

namespace range_detail {
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
// a * b + c rounded once.
EMBER_HOST_DEVICE double fma(double a, double b, double c) {
#ifdef __CUDA_ARCH__
  return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}
EMBER_HOST_DEVICE double div(double a, double b) {
#ifdef __CUDA_ARCH__
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}
}  // namespace range_detail

// arange over integers: start + i * step in int64.
template <typename T>
struct ArangeInt {
  int64_t start, step;
  EMBER_HOST_DEVICE T operator()(int64_t i) const { return static_cast<T>(start + i * step); }
};

// arange with a floating start or step: start + i * step in double, one rounding.
template <typename T>
struct ArangeFloat {
  double start, step;
  EMBER_HOST_DEVICE T operator()(int64_t i) const {
    return static_cast<T>(range_detail::fma(static_cast<double>(i), step, start));
  }
};

// linspace: start + (end - start) * i / (steps - 1); start alone when steps == 1.
template <typename T>
struct Linspace {
  double start, end;
  int64_t steps;
  EMBER_HOST_DEVICE T operator()(int64_t i) const {
    if (steps == 1) return static_cast<T>(start);
    using namespace range_detail;
    const double t = div(mul(end - start, static_cast<double>(i)), static_cast<double>(steps - 1));
    return static_cast<T>(add(start, t));
  }
};

}  // namespace ember::functors
