#pragma once
// scatter_reduce's combine step for "prod", "amax" and "amin": the value at a
// position after one more src element meets it. Shared by the CPU loop and
// the CUDA atomic (compare-and-swap) update. "sum" and "mean" use scatter_add.
#include <cstdint>

#include "ember/kernels/common/macros.h"

namespace ember::functors {

enum class ScatterReduce : int { kProd, kAmax, kAmin };

template <typename T>
struct ScatterProd {
  EMBER_HOST_DEVICE T operator()(T a, T b) const { return a * b; }
};

// NaN wins, as amax/amin: `a != a` is true only for NaN.
template <typename T>
struct ScatterAmax {
  EMBER_HOST_DEVICE T operator()(T a, T b) const { return (a != a || a >= b) ? a : b; }
};

template <typename T>
struct ScatterAmin {
  EMBER_HOST_DEVICE T operator()(T a, T b) const { return (a != a || a <= b) ? a : b; }
};

}  // namespace ember::functors
