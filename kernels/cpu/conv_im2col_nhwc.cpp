// im2col + GEMM on channels-last copies (Note [Channels-last im2col]).
#include <algorithm>
#include <cstring>
#include <type_traits>

#if defined(__AVX512F__)
#include <immintrin.h>
#elif defined(__AVX2__)
#include "ember/kernels/cpu/avx2_lanes.h"
#endif

#include "ember/kernels/cpu/conv.h"
#include "ember/kernels/cpu/conv_util.h"
#include "ember/kernels/cpu/gemm.h"

namespace ember::cpu {
namespace {

// Note [Channels-last im2col]
// A chunk of nb images is first copied to NHWC, so one output pixel's column
// row (r, s, c) is R runs of S*C contiguous floats (S*C: the taps of one
// kernel row are adjacent pixels when dilation is 1), plain copies instead of
// the strided or gathered reads of the NCHW unfold; zeros for the padding.
//   cols (nb*OH*OW, R*S*C), the weight reordered to wt (K, R*S*C):
//   forward          y  (K, nb*OH*OW) = wt @ cols^T      (then reordered to NCHW)
//   backward-data    gcols (nb*OH*OW, R*S*C) = gy^T @ wt (then folded: contiguous adds
//                    into an NHWC gradient, transposed back)
//   backward-weight  gwt (K, R*S*C) = gy @ cols          (then reordered to (K, C, R, S))
// The GEMM's packing reads cols along its rows in backward-weight and
// transposes it (16x16 tiles) in the forward. Threads split the batch as in
// im2col (Note [Conv batch split], conv_util.h).

using conv_detail::ConvShape;
using conv_detail::images_per_chunk;
using conv_detail::scratch;
using conv_detail::split_batch;

#if defined(__AVX512F__)
using conv_detail::low_lanes;

// The permutes of transpose_tile's stage with bit b = 8 >> stage: row i (bit b clear) keeps
// its lanes without bit b and takes row i+b's there; row i+b takes row i's lanes with bit b.
struct ButterflyIndices {
  alignas(64) int32_t idx[4][2][16];
  constexpr ButterflyIndices() : idx{} {
    for (int stage = 0; stage < 4; ++stage)
      for (int j = 0; j < 16; ++j) {
        const int b = 8 >> stage;
        idx[stage][0][j] = (j & b) ? 16 + j - b : j;
        idx[stage][1][j] = (j & b) ? 16 + j : j + b;
      }
  }
};
constexpr ButterflyIndices kButterfly;

// out (cols x rows, leading dimension out_ld) = the transpose of in (rows x cols, in_ld),
// rows, cols <= 16, plus add[i] on out's row i when add is set. Four butterfly stages:
// stage B swaps bit B of the row index with bit B of the column index, pairing rows
// i and i + B, so after B = 8, 4, 2, 1 element (i, j) sits at (j, i).
void transpose_tile(const float* in, int64_t in_ld, int64_t rows, int64_t cols, const float* add,
                    float* out, int64_t out_ld) {
  const __mmask16 row_lanes = low_lanes(static_cast<int>(cols)),
                  col_lanes = low_lanes(static_cast<int>(rows));
  __m512 v[16];
#pragma GCC unroll 16
  for (int i = 0; i < 16; ++i)
    v[i] = i < rows ? _mm512_maskz_loadu_ps(row_lanes, in + i * in_ld) : _mm512_setzero_ps();
#pragma GCC unroll 4
  for (int stage = 0; stage < 4; ++stage) {
    const int b = 8 >> stage;
    const __m512i lo = _mm512_load_si512(kButterfly.idx[stage][0]);
    const __m512i hi = _mm512_load_si512(kButterfly.idx[stage][1]);
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) {
      if (i & b) continue;
      const __m512 a = v[i], c = v[i + b];
      v[i] = _mm512_permutex2var_ps(a, lo, c);
      v[i + b] = _mm512_permutex2var_ps(a, hi, c);
    }
  }
  for (int64_t j = 0; j < cols; ++j) {
    const __m512 row = add ? _mm512_add_ps(v[j], _mm512_set1_ps(add[j])) : v[j];
    _mm512_mask_storeu_ps(out + j * out_ld, col_lanes, row);
  }
}
constexpr int64_t kTransposeTile = 16;
#elif defined(__AVX2__)
// transpose_tile's contract with rows, cols <= 8, for AVX2: one 8 x 8 register transpose,
// 2-5x faster than the scalar loop on a Zen CPU (a 32 x 256 plane 1.9 against 4.2 us, 32 x
// 1024 10 against 53 us).
void transpose_tile(const float* in, int64_t in_ld, int64_t rows, int64_t cols, const float* add,
                    float* out, int64_t out_ld) {
  __m256 v[8];
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i)
    v[i] = i < rows ? avx2::load_lanes(in + i * in_ld, cols) : _mm256_setzero_ps();
  avx2::transpose8(v);
  for (int64_t j = 0; j < cols; ++j) {
    const __m256 row = add ? _mm256_add_ps(v[j], _mm256_set1_ps(add[j])) : v[j];
    avx2::store_lanes(out + j * out_ld, rows, row);
  }
}
constexpr int64_t kTransposeTile = 8;
#else
constexpr int64_t kTransposeTile = 16;
#endif

// dst (cols, rows) = the transpose of src (rows, cols), plus add[i] on dst's row i when add is
// set; in tiles of a vector's width, so that both sides of a tile stay in L1.
template <typename T>
void transpose(const T* src, int64_t rows, int64_t cols, const T* add, T* dst) {
  constexpr int64_t kTile = kTransposeTile;
  for (int64_t r0 = 0; r0 < rows; r0 += kTile)
    for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
      const int64_t r1 = std::min(rows, r0 + kTile), c1 = std::min(cols, c0 + kTile);
#if defined(__AVX512F__) || defined(__AVX2__)
      if constexpr (std::is_same_v<T, float>) {
        transpose_tile(src + r0 * cols + c0, cols, r1 - r0, c1 - c0, add ? add + c0 : nullptr,
                       dst + c0 * rows + r0, rows);
        continue;
      }
#endif
      for (int64_t i = c0; i < c1; ++i) {
        const T b = add ? add[i] : T(0);
        for (int64_t j = r0; j < r1; ++j) dst[i * rows + j] = src[j * cols + i] + b;
      }
    }
}

// Output channels per chunk where a loop over them reorders a weight (a few thousand
// elements a chunk: the weights of a small layer stay on one thread).
int64_t channel_grain(const ConvShape& g) {
  return std::max<int64_t>(1, 4096 / (g.c * g.r * g.s));
}

// (K, C, R*S) -> (K, R*S, C): the weight in the channels-last reduction order, in a scratch
// tensor (backward_weight reorders its gradient the other way).
template <typename T>
Tensor channels_last_weight(const ConvShape& g, const T* w) {
  const int64_t size = g.c * g.r * g.s;
  Tensor wt = scratch<T>(g.k * size);
  T* out = wt.data_ptr<T>();
  parallel_for(0, g.k, channel_grain(g), [&](int64_t k0, int64_t k1) {
    for (int64_t k = k0; k < k1; ++k)
      transpose(w + k * size, g.c, g.r * g.s, static_cast<const T*>(nullptr), out + k * size);
  });
  return wt;
}

// Calls f(col offset, input pixel offset, length) for each contiguous run of a
// column row that reads inside the input (offsets in elements of the NHWC
// image and of the row), and z(col offset, length) for each run of padding.
template <typename F, typename Z>
void for_each_run(const ConvShape& g, int64_t oh, int64_t ow, const F& f, const Z& z) {
  const int64_t sc = g.s * g.c;
  const int64_t iw0 = ow * g.sw - g.pw;
  // Taps s in [s_lo, s_hi) read inside the row: iw0 + s*dw in [0, W).
  const auto [s_lo, s_hi] = conv_detail::valid_range(g.s, g.w, g.dw, iw0);
  for (int64_t r = 0; r < g.r; ++r) {
    const int64_t ih = oh * g.sh - g.ph + r * g.dh, col = r * sc;
    if (ih < 0 || ih >= g.h || s_lo == s_hi) {
      z(col, sc);
      continue;
    }
    if (s_lo > 0) z(col, s_lo * g.c);
    const int64_t pix = ih * g.w + iw0;
    if (g.dw == 1) {
      f(col + s_lo * g.c, (pix + s_lo) * g.c, (s_hi - s_lo) * g.c);
    } else {
      for (int64_t s = s_lo; s < s_hi; ++s) f(col + s * g.c, (pix + s * g.dw) * g.c, g.c);
    }
    if (s_hi < g.s) z(col + s_hi * g.c, (g.s - s_hi) * g.c);
  }
}

// x: (nb, C, H, W) -> cols: (nb*OH*OW, R*S*C), one image at a time through
// xt: (H, W, C), small enough to stay in L1/L2 between its write and its reads.
template <typename T>
void unfold_channels_last(const ConvShape& g, const T* x, int64_t nb, T* xt, T* cols) {
  const int64_t rsc = g.r * g.s * g.c;
  for (int64_t img = 0; img < nb; ++img) {
    transpose(x + img * g.c * g.hw, g.c, g.hw, static_cast<const T*>(nullptr), xt);
    for (int64_t oh = 0; oh < g.oh; ++oh)
      for (int64_t ow = 0; ow < g.ow; ++ow) {
        T* row = cols + ((img * g.oh + oh) * g.ow + ow) * rsc;
        for_each_run(
            g, oh, ow,
            [&](int64_t col, int64_t at, int64_t len) {
              std::memcpy(row + col, xt + at, sizeof(T) * len);
            },
            [&](int64_t col, int64_t len) { std::fill(row + col, row + col + len, T(0)); });
      }
  }
}

// gx: (nb, C, H, W) = bias[c] (or 0) + the sum of cols' (nb*OH*OW, R*S*C) entries at
// each input position, one image at a time through gxt: (H, W, C).
template <typename T>
void fold_channels_last(const ConvShape& g, const T* cols, int64_t nb, const T* bias, T* gxt,
                        T* gx) {
  const int64_t rsc = g.r * g.s * g.c;
  for (int64_t img = 0; img < nb; ++img) {
    std::fill(gxt, gxt + g.hw * g.c, T(0));
    for (int64_t oh = 0; oh < g.oh; ++oh)
      for (int64_t ow = 0; ow < g.ow; ++ow) {
        const T* row = cols + ((img * g.oh + oh) * g.ow + ow) * rsc;
        for_each_run(
            g, oh, ow,
            [&](int64_t col, int64_t at, int64_t len) {
              T* __restrict out = gxt + at;
              const T* __restrict in = row + col;
              for (int64_t j = 0; j < len; ++j) out[j] += in[j];
            },
            [](int64_t, int64_t) {});
      }
    transpose(gxt, g.hw, g.c, bias, gx + img * g.c * g.hw);
  }
}

// Per-part scratch: one NHWC image, the column buffer, the (K, nb*P) matrix.
template <typename T>
struct NhwcBuffers {
  int64_t chunk, image_size, col_size, mat_size;
  Tensor storage;
  NhwcBuffers(const ConvShape& g, int64_t parts)
      : chunk(images_per_chunk(g, (g.n + parts - 1) / parts)),
        image_size(g.hw * g.c),
        col_size(chunk * g.ohw * g.r * g.s * g.c),
        mat_size(chunk > 1 ? g.k * chunk * g.ohw : 0),
        storage(scratch<T>(parts * (image_size + col_size + mat_size))) {}
  T* image(int64_t part) const {
    return storage.data_ptr<T>() + part * (image_size + col_size + mat_size);
  }
  T* col(int64_t part) const { return image(part) + image_size; }
  T* mat(int64_t part) const { return col(part) + col_size; }
};

int64_t max_parts(const ConvShape& g) { return std::min<int64_t>(get_num_threads(), g.n); }

}  // namespace

template <typename T>
void conv_im2col_nhwc_forward(const ConvParams& p, const ConvForwardArgs<T>& a) {
  const ConvShape g(p);
  const int64_t rsc = g.r * g.s * g.c;
  const Tensor wt_buf = channels_last_weight(g, a.w);
  const T* wt = wt_buf.data_ptr<T>();
  const NhwcBuffers<T> buf(g, max_parts(g));
  split_batch(g, [&](int64_t first, int64_t end, int64_t part) {
    T* xt = buf.image(part);
    T* cols = buf.col(part);
    T* out = buf.mat(part);  // (K, nb*OH*OW); for one image y itself
    for (int64_t n0 = first; n0 < end; n0 += buf.chunk) {
      const int64_t nb = std::min(buf.chunk, end - n0), ncols = nb * g.ohw;
      unfold_channels_last(g, a.x + n0 * g.c * g.hw, nb, xt, cols);
      T* y = a.y + n0 * g.k * g.ohw;
      T* dst = nb == 1 ? y : out;
      gemm<T>(g.k, ncols, rsc, T(1), {wt, rsc, false}, {cols, rsc, true}, T(0), dst, ncols);
      conv_detail::store_chunk_output(dst, nb, g.k, g.ohw, a.bias, p.relu, y);
    }
  });
}

template <typename T>
void conv_im2col_nhwc_backward_data(const ConvParams& p, const ConvBackwardDataArgs<T>& a) {
  const ConvShape g(p);
  const int64_t rsc = g.r * g.s * g.c;
  const Tensor wt_buf = channels_last_weight(g, a.w);
  const T* wt = wt_buf.data_ptr<T>();
  const NhwcBuffers<T> buf(g, max_parts(g));
  split_batch(g, [&](int64_t first, int64_t end, int64_t part) {
    T* gxt = buf.image(part);
    T* cols = buf.col(part);
    for (int64_t n0 = first; n0 < end; n0 += buf.chunk) {
      const int64_t nb = std::min(buf.chunk, end - n0), ncols = nb * g.ohw;
      const T* gy = a.gy + n0 * g.k * g.ohw;
      if (nb > 1) {
        conv_detail::to_channel_major(gy, nb, g.k, g.ohw, buf.mat(part));
        gy = buf.mat(part);
      }
      // gcols (ncols, R*S*C) = gy^T (ncols, K) @ wt (K, R*S*C)
      gemm<T>(ncols, rsc, g.k, T(1), {gy, ncols, true}, {wt, rsc, false}, T(0), cols, rsc);
      fold_channels_last(g, cols, nb, a.bias, gxt, a.gx + n0 * g.c * g.hw);
    }
  });
}

template <typename T>
void conv_im2col_nhwc_backward_weight(const ConvParams& p, const ConvBackwardWeightArgs<T>& a) {
  const ConvShape g(p);
  const int64_t rsc = g.r * g.s * g.c, wsize = g.k * rsc;
  const NhwcBuffers<T> buf(g, max_parts(g));
  // One channels-last gradient per part, summed at the end.
  const Tensor gwt_buf = scratch<T>(max_parts(g) * wsize);
  T* gwt = gwt_buf.data_ptr<T>();
  const int64_t parts = split_batch(g, [&](int64_t first, int64_t end, int64_t part) {
    T* xt = buf.image(part);
    T* cols = buf.col(part);
    for (int64_t n0 = first; n0 < end; n0 += buf.chunk) {
      const int64_t nb = std::min(buf.chunk, end - n0), ncols = nb * g.ohw;
      unfold_channels_last(g, a.x + n0 * g.c * g.hw, nb, xt, cols);
      const T* gy = a.gy + n0 * g.k * g.ohw;
      if (nb > 1) {
        conv_detail::to_channel_major(gy, nb, g.k, g.ohw, buf.mat(part));
        gy = buf.mat(part);
      }
      // gwt (K, R*S*C) (+)= gy (K, ncols) @ cols (ncols, R*S*C)
      gemm<T>(g.k, rsc, ncols, T(1), {gy, ncols, false}, {cols, rsc, false},
              n0 == first ? T(0) : T(1), gwt + part * wsize, rsc);
    }
  });
  // Per output channel, split over the threads: the parts' sums (in a fixed order), then
  // the channels-last slice transposed into the weight's layout.
  parallel_for(0, g.k, channel_grain(g), [&](int64_t k0, int64_t k1) {
    T* slice = gwt + k0 * rsc;
    const int64_t n = (k1 - k0) * rsc;
    for (int64_t part = 1; part < parts; ++part)
      for (int64_t i = 0; i < n; ++i) slice[i] += slice[part * wsize + i];
    for (int64_t k = k0; k < k1; ++k)
      transpose(gwt + k * rsc, g.r * g.s, g.c, static_cast<const T*>(nullptr), a.gw + k * rsc);
  });
}

#define EMBER_INSTANTIATE(T)                                                                       \
  template void conv_im2col_nhwc_forward<T>(const ConvParams&, const ConvForwardArgs<T>&);         \
  template void conv_im2col_nhwc_backward_data<T>(const ConvParams&,                               \
                                                  const ConvBackwardDataArgs<T>&);                 \
  template void conv_im2col_nhwc_backward_weight<T>(const ConvParams&,                             \
                                                    const ConvBackwardWeightArgs<T>&);
EMBER_INSTANTIATE(float)
EMBER_INSTANTIATE(double)
#undef EMBER_INSTANTIATE

}  // namespace ember::cpu
