#pragma once
// The running sum, product, log-sum-exp, maximum and minimum of one line,
// shared by the CPU loop and the CUDA kernel: `n` elements `inner` apart,
// accumulated in Acc (double for floating types, as PyTorch's CPU scans;
// integer sums and products wrap, as PyTorch's).
#include <cstdint>
#include <type_traits>

#include "ember/kernels/common/macros.h"
#include "ember/kernels/common/pointwise_functors.h"
#include "ember/kernels/common/wrapping.h"

namespace ember::functors {

template <typename T>
using scan_acc_t = std::conditional_t<std::is_floating_point_v<T>, double, T>;

template <typename T, bool kProd>
EMBER_HOST_DEVICE void scan_line(const T* in, T* out, int64_t n, int64_t inner) {
  scan_acc_t<T> acc = kProd ? 1 : 0;
  for (int64_t k = 0; k < n; ++k) {
    if constexpr (kProd)
      acc = wrapping_mul(acc, static_cast<scan_acc_t<T>>(in[k * inner]));
    else
      acc = wrapping_add(acc, static_cast<scan_acc_t<T>>(in[k * inner]));
    out[k * inner] = static_cast<T>(acc);
  }
}

// log(exp(in[0]) + ... + exp(in[k])): each step is a stable logaddexp.
template <typename T>
EMBER_HOST_DEVICE void logcumsumexp_line(const T* in, T* out, int64_t n, int64_t inner) {
  using Acc = scan_acc_t<T>;
  Acc acc = -INFINITY;
  for (int64_t k = 0; k < n; ++k) {
    acc = LogAddExp<Acc>{}(acc, static_cast<Acc>(in[k * inner]));
    out[k * inner] = static_cast<T>(acc);
  }
}

// The running maximum (kMax) or minimum and where it was: a NaN wins and
// stays (a later NaN moves the index), ties move the index, as torch.cummax.
template <typename T, bool kMax>
EMBER_HOST_DEVICE void cum_extreme_line(const T* in, T* values, int64_t* indices, int64_t n,
                                        int64_t inner) {
  T best = n > 0 ? in[0] : T(0);
  int64_t at = 0;
  for (int64_t k = 0; k < n; ++k) {
    const T x = in[k * inner];
    const bool replaces = x != x || (best == best && (kMax ? x >= best : x <= best));
    if (replaces) {
      best = x;
      at = k;
    }
    values[k * inner] = best;
    indices[k * inner] = at;
  }
}

}  // namespace ember::functors
