#pragma once
// Helpers shared by the CPU conv algorithms (kernels/cpu/conv_*.cpp): the
// derived sizes of a problem, the range of outputs that read inside the
// input, scratch buffers, the (N, K, P) <-> (K, N*P) reorders that let a
// whole chunk of images share one GEMM, and the split of a batch over threads
// that both im2col algorithms use.
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <utility>

#if defined(__AVX__)
#include <immintrin.h>
#endif
#if defined(__AVX2__) && !defined(__AVX512F__)
#include "ember/kernels/cpu/avx2_lanes.h"
#endif

#include "ember/core/ops/creation/factory.h"
#include "ember/core/parallel.h"
#include "ember/kernels/common/conv_params.h"
#include "ember/kernels/common/unary_functors.h"
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

// relu of 16 floats (ConvParams::relu): max(0, x) keeps a NaN x, as relu, because
// vmaxps returns its second operand when either is NaN.
inline __m512 relu_ps(__m512 x) { return _mm512_max_ps(_mm512_setzero_ps(), x); }
#endif
#if defined(__AVX__)
// relu of 8 floats, as relu_ps of 16.
inline __m256 relu_ps(__m256 x) { return _mm256_max_ps(_mm256_setzero_ps(), x); }
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
#if defined(__AVX512BW__) && defined(__AVX512VL__)
  if constexpr (sizeof(T) == 2) {  // bfloat16 and float16, moved as bits
    if (stride == 2) {  // 16 outputs: the low halves of 16 32-bit words (vpmovdw)
      for (int64_t j = 0; j < n; j += 16) {
        const int m = static_cast<int>(std::min<int64_t>(16, n - j));
        // Reads in[2j .. 2j + 31]; the last block only up to in[2n - 2].
        const __m512i words =
            j + 16 < n ? _mm512_loadu_si512(in + 2 * j)
                       : _mm512_maskz_loadu_epi16(static_cast<__mmask32>((1u << (2 * m - 1)) - 1),
                                                  in + 2 * j);
        _mm256_mask_storeu_epi16(out + j, low_lanes(m), _mm512_maskz_cvtepi32_epi16(0xFFFF, words));
      }
      return;
    }
  }
#endif
#elif defined(__AVX2__)
  if constexpr (std::is_same_v<T, float>) {
    if (stride == 2) {  // 8 outputs from the evens of 16 floats, reading none past in[2n-2]
      const auto evens = [](__m256 a, __m256 b) {  // a0 a2 b0 b2 | a4 a6 b4 b6, then reordered
        const __m256 pairs = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
        return _mm256_castpd_ps(
            _mm256_permute4x64_pd(_mm256_castps_pd(pairs), _MM_SHUFFLE(3, 1, 2, 0)));
      };
      int64_t j = 0;
      for (; j + 9 <= n; j += 8)  // whole vectors: in[2j + 15] is still needed
        _mm256_storeu_ps(out + j, evens(_mm256_loadu_ps(in + 2 * j),
                                        _mm256_loadu_ps(in + 2 * j + 8)));
      if (j < n) {
        const int64_t need = 2 * (n - j) - 1;  // floats left to read, at most 15
        avx2::store_lanes(out + j, n - j, evens(avx2::load_lanes(in + 2 * j, need),
                                                avx2::load_lanes(in + 2 * j + 8, need - 8)));
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

// A chunk of gy (nb, K, OH*OW) as a (K, nb*OH*OW) matrix: gy itself for one image, else
// its reordered copy in buffer.
template <typename T>
const T* channel_major(const ConvShape& g, const T* gy, int64_t nb, T* buffer) {
  if (nb == 1) return gy;
  to_channel_major(gy, nb, g.k, g.ohw, buffer);
  return buffer;
}

// src: (k, nb * p) -> dst: (nb, k, p), plus bias[ch] on channel ch when bias is set, then
// ReLU when relu is set (ConvParams::relu). src == dst (nb == 1) adds in place.
template <typename T>
void from_channel_major(const T* src, int64_t nb, int64_t k, int64_t p, const T* bias, bool relu,
                        T* dst) {
  parallel_for(0, nb * k, row_grain(p), [&](int64_t begin, int64_t end) {
    const functors::Relu<T> relu_of;
    for (int64_t i = begin; i < end; ++i) {
      const int64_t img = i / k, ch = i % k;
      const T* in = src + (ch * nb + img) * p;
      T* out = dst + i * p;
      const T b = bias ? bias[ch] : T(0);
      if (relu) {
        for (int64_t j = 0; j < p; ++j) out[j] = relu_of(bias ? in[j] + b : in[j]);
      } else if (bias) {
        for (int64_t j = 0; j < p; ++j) out[j] = in[j] + b;
      } else if (out != in) {
        std::memcpy(out, in, sizeof(T) * p);
      }
    }
  });
}

// A chunk's GEMM output out (k, nb * p) into y (nb, k, p), plus the bias, then ReLU when
// relu is set: one pass while the chunk is in cache. For one image the GEMM wrote into y
// itself (out == y), and only the bias and ReLU are left.
template <typename T>
void store_chunk_output(const T* out, int64_t nb, int64_t k, int64_t p, const T* bias, bool relu,
                        T* y) {
  if (nb > 1 || bias || relu) from_channel_major(out, nb, k, p, bias, relu, y);
}

// Upper bound on a chunk's column buffer, in elements (1 MiB of float32: half an L2).
constexpr int64_t kColBudget = int64_t(1) << 18;

// Images per im2col chunk, out of n.
inline int64_t images_per_chunk(const ConvShape& g, int64_t n) {
  return std::clamp<int64_t>(kColBudget / std::max<int64_t>(g.c * g.r * g.s * g.ohw, 1), 1,
                             std::max<int64_t>(n, 1));
}

// Note [Conv batch split]
// With at least as many images as threads, each thread takes a contiguous
// range of images and runs im2col, GEMM and reorder on it alone (GEMM calls
// inside a parallel region are single-threaded): no barrier between the steps,
// and each core's column buffer stays in its own L2. With fewer images the
// whole batch runs on the calling thread and each step threads itself.
// Measured on the sample model's layers (batch 64, 2 threads, fastest of 41
// runs, ms, split vs one thread-level GEMM): 32x16x16->64 forward 1.24 vs 2.10,
// backward-data 1.10 vs 1.47, backward-weight 1.16 vs 1.66; 64x8x8->128 0.94
// vs 1.46, 1.12 vs 2.05, 1.04 vs 1.32.
// f(first image, end image, part) runs once per part; returns the part count.
template <typename F>
int64_t split_batch(const ConvShape& g, const F& f) {
  constexpr int64_t kMinFlopsPerThread = int64_t(1) << 20;
  const int64_t flops = g.n * g.k * g.ohw * g.crs_g;
  const int64_t parts = std::min<int64_t>(get_num_threads(), g.n);
  if (parts <= 1 || flops < parts * kMinFlopsPerThread || ember::detail::in_parallel_region()) {
    f(0, g.n, 0);
    return 1;
  }
  parallel_for(0, parts, 1, [&](int64_t begin, int64_t end) {
    for (int64_t part = begin; part < end; ++part)
      f(g.n * part / parts, g.n * (part + 1) / parts, part);
  });
  return parts;
}

}  // namespace ember::cpu::conv_detail
