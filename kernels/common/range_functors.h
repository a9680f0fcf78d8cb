#pragma once
// Element i of arange and linspace, shared by the CPU loops
// (kernels/cpu/factory.cpp) and the CUDA kernel (kernels/cuda/factory.cu), so a
// range is the same on both devices bit for bit: every rounding is spelled
// out with kernels/common/exact_math.h.
#include <cstdint>

#include "ember/kernels/common/exact_math.h"

namespace ember::functors {

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
    return static_cast<T>(exact::fma(static_cast<double>(i), step, start));
  }
};

// linspace: start + (end - start) * i / (steps - 1); start alone when steps == 1.
template <typename T>
struct Linspace {
  double start, end;
  int64_t steps;
  EMBER_HOST_DEVICE T operator()(int64_t i) const {
    if (steps == 1) return static_cast<T>(start);
    const double t = exact::div(exact::mul(end - start, static_cast<double>(i)),
                                static_cast<double>(steps - 1));
    return static_cast<T>(exact::add(start, t));
  }
};

}  // namespace ember::functors
