#pragma once
// Helpers shared by the CPU conv algorithms (kernels/cpu/conv_*.cpp): the
// derived sizes of a problem, the range of outputs that read inside the
// input, scratch buffers, and the (N, K, P) <-> (K, N*P) reorders that let a
// whole chunk of images share one GEMM.
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <utility>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "ember/core/ops/factory.h"
#include "ember/core/parallel.h"
#include "ember/kernels/cpu/conv_params.h"
#include "ember/kernels/cpu/loops.h"

namespace ember::cpu::conv_detail {

// Sizes every algorithm derives from ConvParams.
struct ConvShape {
  int64_t n, c, h, w, k, r, s, groups;
  int64_t cg, kg;        // channels per group: input, output
  int64_t oh, ow, ohw;   // output plane
  int64_t hw;            // input plane
  int64_t crs_g;         // cg * r * s: a group's reduction length
  int64_t sh, sw, ph, pw, dh, dw;

  explicit ConvShape(const ConvParams& p)
      : n(p.n), c(p.c), h(p.h), w(p.w), k(p.k), r(p.r), s(p.s), groups(p.groups),
        cg(p.c / p.groups), kg(p.k / p.groups), oh(p.out_h()), ow(p.out_w()),
        ohw(p.out_h() * p.out_w()), hw(p.h * p.w), crs_g(p.c / p.groups * p.r * p.s),
        sh(p.stride[0]), sw(p.stride[1]), ph(p.padding[0]), pw(p.padding[1]),
        dh(p.dilation[0]), dw(p.dilation[1]) {}
};

// The outputs o in [0, out) whose input index o * stride + offset lies in [0, in).
inline std::pair<int64_t, int64_t> valid_range(int64_t out, int64_t in, int64_t stride,
                                               int64_t offset) {
  const int64_t lo = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
  const int64_t hi = in - 1 - offset < 0 ? 0 : std::min(out, (in - 1 - offset) / stride + 1);
  return {std::min(lo, hi), hi};
}

#if defined(__AVX512F__)
// The mask of the lowest n of 16 lanes (none for n <= 0).
inline __mmask16 low_lanes(int n) {
  return n <= 0 ? 0 : n >= 16 ? 0xFFFF : static_cast<__mmask16>((1u << n) - 1);
}
#endif

// out[j] = in[j * stride] for j in [0, n).
template <typename T>
inline void copy_strided(T* out, const T* in, int64_t n, int64_t stride) {
  if (stride == 1) {
    for (int64_t j = 0; j < n; ++j) out[j] = in[j];
    return;
  }
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>) {
    if (stride == 2) {  // the usual downsampling conv: even lanes of 32 floats, masked at the end
      const __m512i evens = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26,
                                              28, 30);
      for (int64_t j = 0; j < n; j += 16) {
        const int m = static_cast<int>(std::min<int64_t>(16, n - j)), need = 2 * m - 1;
        const __m512 a = _mm512_maskz_loadu_ps(low_lanes(need), in + 2 * j);
        const __m512 b = _mm512_maskz_loadu_ps(low_lanes(need - 16), in + 2 * j + 16);
        _mm512_mask_storeu_ps(out + j, low_lanes(m), _mm512_permutex2var_ps(a, evens, b));
      }
      return;
    }
  }
#endif
  for (int64_t j = 0; j < n; ++j) out[j] = in[j * stride];
}

// A scratch buffer of `numel` T from the caching allocator (no zeroing).
template <typename T>
Tensor scratch(int64_t numel) {
  return empty({numel}, TensorOptions().dtype(scalar_type_of<T>));
}

// Rows of `len` elements per parallel task so that a task has about kGrainSize elements.
inline int64_t row_grain(int64_t len) {
  return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(len, 1));
}

// src: (nb, k, p) -> dst: (k, nb * p)
template <typename T>
void to_channel_major(const T* src, int64_t nb, int64_t k, int64_t p, T* dst) {
  parallel_for(0, nb * k, row_grain(p), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t img = i / k, ch = i % k;
      std::memcpy(dst + (ch * nb + img) * p, src + i * p, sizeof(T) * p);
    }
  });
}

// src: (k, nb * p) -> dst: (nb, k, p), plus bias[ch] on channel ch when bias is set.
template <typename T>
void from_channel_major(const T* src, int64_t nb, int64_t k, int64_t p, const T* bias, T* dst) {
  parallel_for(0, nb * k, row_grain(p), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t img = i / k, ch = i % k;
      const T* in = src + (ch * nb + img) * p;
      T* out = dst + i * p;
      if (bias) {
        const T b = bias[ch];
        for (int64_t j = 0; j < p; ++j) out[j] = in[j] + b;
      } else {
        std::memcpy(out, in, sizeof(T) * p);
      }
    }
  });
}

// y: (nb, k, p) += bias[ch] on channel ch.
template <typename T>
void add_channel_bias(T* y, int64_t nb, int64_t k, int64_t p, const T* bias) {
  parallel_for(0, nb * k, row_grain(p), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const T b = bias[i % k];
      T* row = y + i * p;
      for (int64_t j = 0; j < p; ++j) row[j] += b;
    }
  });
}

}  // namespace ember::cpu::conv_detail
