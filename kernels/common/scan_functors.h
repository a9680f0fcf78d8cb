#pragma once
// The running sum and product of one line, shared by the CPU loop and the CUDA
// kernel: `n` elements `inner` apart, accumulated in Acc (double for floating
// types, as PyTorch's CPU scans).
#include <cstdint>
#include <type_traits>

#include "ember/kernels/common/macros.h"

namespace ember::functors {

template <typename T>
using scan_acc_t = std::conditional_t<std::is_floating_point_v<T>, double, T>;

template <typename T, bool kProd>
EMBER_HOST_DEVICE void scan_line(const T* in, T* out, int64_t n, int64_t inner) {
  scan_acc_t<T> acc = kProd ? 1 : 0;
  for (int64_t k = 0; k < n; ++k) {
    if constexpr (kProd)
      acc *= static_cast<scan_acc_t<T>>(in[k * inner]);
    else
      acc += static_cast<scan_acc_t<T>>(in[k * inner]);
    out[k * inner] = static_cast<T>(acc);
  }
}

}  // namespace ember::functors
