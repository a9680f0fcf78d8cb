// im2col + GEMM: the general algorithm. A chunk of nb images is unfolded at
// once into col: (C*R*S, nb*OH*OW), so one GEMM per group covers the whole
// chunk (one product of nb*OH*OW columns runs far faster than nb small ones);
// the (K, nb*OH*OW) result is then reordered to NCHW. Chunks are sized so the
// column buffer stays in L2; threads split the batch (Note [Conv batch split] in
// conv_util.h).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "ember/kernels/cpu/conv.h"
#include "ember/kernels/cpu/conv_unfold.h"
#include "ember/kernels/cpu/conv_util.h"
#include "ember/kernels/cpu/gemm.h"

namespace ember::cpu {
namespace {

using conv_detail::ConvShape;
using conv_detail::images_per_chunk;
using conv_detail::split_batch;
using conv_detail::copy_strided;
#if defined(__AVX512F__)
using conv_detail::low_lanes;
#endif
using conv_detail::row_grain;
using conv_detail::scratch;
using conv_detail::valid_range;

// out[j * stride] += in[j] for j in [0, n).
template <typename T>
inline void add_strided(T* out, const T* in, int64_t n, int64_t stride) {
  if (stride == 1) {
    for (int64_t j = 0; j < n; ++j) out[j] += in[j];
    return;
  }
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>) {
    if (stride == 2) {  // 8 inputs spread to the even lanes of 16 outputs at a time
      for (int64_t j = 0; j < n; j += 8) {
        const int m = static_cast<int>(std::min<int64_t>(8, n - j));
        const __mmask16 lanes = low_lanes(2 * m - 1) & 0x5555;
        const __m256 src = _mm256_maskz_loadu_ps(low_lanes(m), in + j);
        const __m512 v = _mm512_maskz_expand_ps(0x5555, _mm512_castps256_ps512(src));
        const __m512 o = _mm512_maskz_loadu_ps(lanes, out + 2 * j);
        _mm512_mask_storeu_ps(out + 2 * j, lanes, _mm512_add_ps(o, v));
      }
      return;
    }
  }
#endif
  for (int64_t j = 0; j < n; ++j) out[j * stride] += in[j];
}

}  // namespace

#if defined(__AVX512F__)
const int32_t* conv_detail::tap_plane_offsets(const ConvShape& g) {
  thread_local std::vector<int32_t> offsets;
  offsets.resize(g.r * g.s * g.ohw);
  for (int64_t r = 0; r < g.r; ++r)
    for (int64_t s = 0; s < g.s; ++s)
      for (int64_t oh = 0; oh < g.oh; ++oh)
        for (int64_t ow = 0; ow < g.ow; ++ow) {
          const int64_t ih = oh * g.sh + r * g.dh - g.ph, iw = ow * g.sw + s * g.dw - g.pw;
          const bool inside = ih >= 0 && ih < g.h && iw >= 0 && iw < g.w;
          offsets[(r * g.s + s) * g.ohw + oh * g.ow + ow] =
              inside ? static_cast<int32_t>(ih * g.w + iw) : -1;
        }
  return offsets.data();
}
#endif

namespace {

#if defined(__AVX512F__)
using conv_detail::tap_plane_offsets;

// 16 output positions j of a tap table: the lanes that exist, their offsets,
// and the lanes that fall inside the plane.
struct TapLanes {
  __mmask16 lanes, inside;
  __m512i idx;
  TapLanes(const int32_t* table, int64_t j, int64_t n)
      : lanes(low_lanes(static_cast<int>(std::min<int64_t>(16, n - j)))),
        idx(_mm512_maskz_loadu_epi32(lanes, table + j)) {
    inside = _mm512_mask_cmpge_epi32_mask(lanes, idx, _mm512_setzero_si512());
  }
};

// Calls gather(t, plane, out) for every 16 output positions of every row and image of an
// unfold, t the positions' TapLanes, plane their input plane, out their place in col.
template <typename T, typename Gather>
void for_each_gather(const ConvShape& g, const T* x, int64_t nb, T* col, const Gather& gather) {
  const int64_t rs = g.r * g.s, cols = nb * g.ohw;
  const int32_t* tables = tap_plane_offsets(g);
  parallel_for(0, g.c * rs, row_grain(cols), [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const int32_t* table = tables + row % rs * g.ohw;
      for (int64_t img = 0; img < nb; ++img) {
        const T* plane = x + (img * g.c + row / rs) * g.hw;
        T* out = col + row * cols + img * g.ohw;
        for (int64_t j = 0; j < g.ohw; j += 16) gather(TapLanes(table, j, g.ohw), plane, out + j);
      }
    }
  });
}

// im2col for float output rows shorter than a vector (OW < 16, the deeper layers
// of a small-image model), where copying row by row is mostly loop overhead:
// 16 outputs at a time are one masked gather through the tap's offset table.
// Batch 64, 1 thread, ms, this vs row copies: OW = 4: 0.26 vs 0.59; OW = 8:
// 0.45 vs 0.58; OW = 16: 0.110 vs 0.082 (rows win).
void im2col_gather(const ConvShape& g, const float* x, int64_t nb, float* col) {
  for_each_gather(g, x, nb, col, [](const TapLanes& t, const float* plane, float* out) {
    const __m512 v = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), t.inside, t.idx, plane, 4);
    _mm512_mask_storeu_ps(out, t.lanes, v);
  });
}

#if defined(__AVX512BW__) && defined(__AVX512VL__)
// im2col_gather for 16-bit elements (the bfloat16 passes): each lane gathers the 32-bit word
// that holds its element, in the low half; for a plane's last element the word starts one
// element earlier and the element is its high half, so no lane reads past the plane (or
// before it: planes of one element do not come here). Batch 64, 1 thread, the model's
// stride-2 layers: see docs/benchmarks.md, "The bfloat16 training step on AVX-512 BF16".
template <typename T>
void im2col_gather_16bit(const ConvShape& g, const T* x, int64_t nb, T* col) {
  static_assert(sizeof(T) == 2);
  const __m512i last = _mm512_set1_epi32(static_cast<int32_t>(g.hw - 1));
  for_each_gather(g, x, nb, col, [&](const TapLanes& t, const T* plane, T* out) {
    const __mmask16 high = _mm512_mask_cmpeq_epi32_mask(t.inside, t.idx, last);
    const __m512i at = _mm512_mask_sub_epi32(t.idx, high, t.idx, _mm512_set1_epi32(1));
    const __m512i words =
        _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), t.inside, at, plane, 2);
    const __m512i halves = _mm512_mask_srli_epi32(words, high, words, 16);
    _mm256_mask_storeu_epi16(out, t.lanes, _mm512_maskz_cvtepi32_epi16(0xFFFF, halves));
  });
}

// 16 output positions of a tap whose inputs lie within 64 consecutive elements of their
// plane: where the window starts, which of its 32-lane halves may be read (not past the
// plane), each position's place in it, the positions that exist and those inside the plane.
struct TapWindow {
  int32_t base;
  __mmask32 read_lo, read_hi, inside, lanes;
  uint16_t place[32];
};

// The windows of every tap's 16-position blocks: (R*S, ceil(OH*OW / 16)); null when one
// block's inputs span more than 64 elements. thread_local as tap_plane_offsets.
const TapWindow* tap_windows(const ConvShape& g) {
  thread_local std::vector<TapWindow> windows;
  const int64_t blocks = (g.ohw + 15) / 16;
  const int32_t* offsets = tap_plane_offsets(g);
  windows.assign(static_cast<size_t>(g.r * g.s * blocks), TapWindow{});
  const auto read = [](int64_t n) {
    return n <= 0 ? __mmask32(0) : n >= 32 ? ~__mmask32(0) : __mmask32((1u << n) - 1);
  };
  for (int64_t tap = 0; tap < g.r * g.s; ++tap)
    for (int64_t b = 0; b < blocks; ++b) {
      const int32_t* off = offsets + tap * g.ohw + 16 * b;
      const int n = static_cast<int>(std::min<int64_t>(16, g.ohw - 16 * b));
      TapWindow& w = windows[tap * blocks + b];
      w.lanes = low_lanes(n);
      int32_t lo = INT32_MAX, hi = -1;
      for (int i = 0; i < n; ++i)
        if (off[i] >= 0) lo = std::min(lo, off[i]), hi = std::max(hi, off[i]);
      if (hi < 0) continue;  // all padding: zeros, nothing read
      if (hi - lo >= 64) return nullptr;
      w.base = lo;
      w.read_lo = read(g.hw - lo);
      w.read_hi = read(g.hw - lo - 32);
      for (int i = 0; i < n; ++i)
        if (off[i] >= 0) {
          w.inside |= __mmask32(1) << i;
          w.place[i] = static_cast<uint16_t>(off[i] - lo);
        }
    }
  return windows.data();
}

// im2col for 16-bit elements where every block of 16 positions reads within 64 elements
// (3x3 taps over rows of up to 32, stride 1 or 2, the sample model's layers): a block is two
// loads and one vpermt2w from its window, where a gather costs about four times as long.
template <typename T>
void im2col_window_16bit(const ConvShape& g, const TapWindow* windows, const T* x, int64_t nb,
                         T* col) {
  static_assert(sizeof(T) == 2);
  const int64_t rs = g.r * g.s, cols = nb * g.ohw, blocks = (g.ohw + 15) / 16;
  parallel_for(0, g.c * rs, row_grain(cols), [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const TapWindow* tap = windows + row % rs * blocks;
      for (int64_t img = 0; img < nb; ++img) {
        const T* plane = x + (img * g.c + row / rs) * g.hw;
        T* out = col + row * cols + img * g.ohw;
        for (int64_t b = 0; b < blocks; ++b) {
          const TapWindow& w = tap[b];
          const T* at = plane + w.base;
          const __m512i lo = _mm512_maskz_loadu_epi16(w.read_lo, at);
          const __m512i hi = _mm512_maskz_loadu_epi16(w.read_hi, at + 32);
          const __m512i v =
              _mm512_maskz_permutex2var_epi16(w.inside, lo, _mm512_loadu_si512(w.place), hi);
          _mm512_mask_storeu_epi16(out + 16 * b, w.lanes, v);
        }
      }
    }
  });
}
#endif

// col2im for float output rows of at most 4 (the sample model's last layer):
// per tap, 16 positions are gathered, added to and scattered back (a tap maps
// distinct outputs to distinct inputs, so lanes never collide). Scatters are
// slow, so this only pays for very short rows. Batch 64, 1 thread, ms, this vs
// row-wise adds: OW = 4: 0.49 vs 0.69 (C = 64, 8x8 input), 0.49 vs 0.79 (7x7);
// OW = 7: 0.91 vs 0.52; OW = 8: 0.93 vs 0.55.
void col2im_scatter(const ConvShape& g, const float* col, int64_t nb, const float* bias,
                    float* x) {
  const int64_t rs = g.r * g.s, cols = nb * g.ohw;
  const int32_t* tables = tap_plane_offsets(g);
  parallel_for(0, nb * g.c, row_grain(g.hw * rs), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t img = i / g.c, c = i % g.c;
      float* plane = x + i * g.hw;
      std::fill(plane, plane + g.hw, bias ? bias[c] : 0.0f);
      for (int64_t tap = 0; tap < rs; ++tap) {
        const int32_t* table = tables + tap * g.ohw;
        const float* in = col + (c * rs + tap) * cols + img * g.ohw;
        for (int64_t j = 0; j < g.ohw; j += 16) {
          const TapLanes t(table, j, g.ohw);
          const __m512 v = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), t.inside, t.idx, plane, 4);
          const __m512 sum = _mm512_add_ps(v, _mm512_maskz_loadu_ps(t.lanes, in + j));
          _mm512_mask_i32scatter_ps(plane, t.inside, t.idx, sum, 4);
        }
      }
    }
  });
}
#endif

// im2col one output row at a time: zeros for the padding, a strided copy inside.
template <typename T>
void im2col_rows(const ConvShape& g, const T* x, int64_t nb, T* col) {
  const int64_t rs = g.r * g.s, cols = nb * g.ohw;
  parallel_for(0, g.c * rs, row_grain(cols), [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const int64_t c = row / rs, r = row % rs / g.s, s = row % g.s;
      const int64_t off_h = r * g.dh - g.ph, off_w = s * g.dw - g.pw;
      const auto [oh_lo, oh_hi] = valid_range(g.oh, g.h, g.sh, off_h);
      const auto [lo, hi] = valid_range(g.ow, g.w, g.sw, off_w);
      for (int64_t img = 0; img < nb; ++img) {
        const T* plane = x + (img * g.c + c) * g.hw;
        T* out = col + row * cols + img * g.ohw;
        // Rows of the padding above and below are zeros; inside, zeros left and right.
        std::fill(out, out + oh_lo * g.ow, T(0));
        std::fill(out + oh_hi * g.ow, out + g.ohw, T(0));
        for (int64_t oh = oh_lo; oh < oh_hi; ++oh) {
          T* o = out + oh * g.ow;
          for (int64_t ow = 0; ow < lo; ++ow) o[ow] = T(0);
          copy_strided(o + lo, plane + (oh * g.sh + off_h) * g.w + lo * g.sw + off_w, hi - lo,
                       g.sw);
          for (int64_t ow = hi; ow < g.ow; ++ow) o[ow] = T(0);
        }
      }
    }
  });
}

}  // namespace

namespace conv_detail {

template <typename T>
void im2col(const ConvShape& g, const T* x, int64_t nb, T* col) {
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>) {
    if (g.ow < 16 && g.hw < (int64_t(1) << 31)) return im2col_gather(g, x, nb, col);
  }
#endif
#if defined(__AVX512BW__) && defined(__AVX512VL__)
  if constexpr (std::is_same_v<T, BFloat16>) {
    if (im2col_pairs(g, x, nb, col)) return;
  }
  if constexpr (sizeof(T) == 2) {
    if (g.hw < (int64_t(1) << 31)) {
      if (const TapWindow* windows = tap_windows(g))
        return im2col_window_16bit(g, windows, x, nb, col);
      if (g.ow < 16 && g.hw >= 2) return im2col_gather_16bit(g, x, nb, col);
    }
  }
#endif
  im2col_rows(g, x, nb, col);
}

template <typename T>
void col2im(const ConvShape& g, const T* col, int64_t nb, const T* bias, T* x) {
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>) {
    if (g.ow <= 4 && g.hw < (int64_t(1) << 31)) return col2im_scatter(g, col, nb, bias, x);
  }
#endif
  const int64_t cols = nb * g.ohw;
  parallel_for(0, nb * g.c, row_grain(g.hw * g.r * g.s), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t img = i / g.c, c = i % g.c;
      T* plane = x + i * g.hw;
      std::fill(plane, plane + g.hw, bias ? bias[c] : T(0));
      for (int64_t r = 0; r < g.r; ++r) {
        const int64_t off_h = r * g.dh - g.ph;
        const auto [oh_lo, oh_hi] = valid_range(g.oh, g.h, g.sh, off_h);
        for (int64_t s = 0; s < g.s; ++s) {
          const T* in = col + ((c * g.r + r) * g.s + s) * cols + img * g.ohw;
          const int64_t off_w = s * g.dw - g.pw;
          const auto [lo, hi] = valid_range(g.ow, g.w, g.sw, off_w);
          for (int64_t oh = oh_lo; oh < oh_hi; ++oh) {
            add_strided(plane + (oh * g.sh + off_h) * g.w + lo * g.sw + off_w, in + oh * g.ow + lo,
                        hi - lo, g.sw);
          }
        }
      }
    }
  });
}

template void im2col<float>(const ConvShape&, const float*, int64_t, float*);
template void im2col<double>(const ConvShape&, const double*, int64_t, double*);
template void im2col<BFloat16>(const ConvShape&, const BFloat16*, int64_t, BFloat16*);
template void col2im<float>(const ConvShape&, const float*, int64_t, const float*, float*);
template void col2im<double>(const ConvShape&, const double*, int64_t, const double*, double*);

}  // namespace conv_detail

namespace {

using conv_detail::channel_major;
using conv_detail::col2im;
using conv_detail::im2col;

// Per-part scratch: the column buffer and the (K, nb*P) reorder buffer of each part.
template <typename T>
struct ChunkBuffers {
  int64_t chunk, col_size, mat_size;
  Tensor storage;
  ChunkBuffers(const ConvShape& g, int64_t parts)
      : chunk(images_per_chunk(g, (g.n + parts - 1) / parts)),
        col_size(g.c * g.r * g.s * chunk * g.ohw),
        mat_size(chunk > 1 ? g.k * chunk * g.ohw : 0),
        storage(scratch<T>(parts * (col_size + mat_size))) {}
  T* col(int64_t part) const { return storage.data_ptr<T>() + part * (col_size + mat_size); }
  T* mat(int64_t part) const { return col(part) + col_size; }
};

}  // namespace

template <typename T>
void conv_im2col_forward(const ConvParams& p, const ConvForwardArgs<T>& a) {
  const ConvShape g(p);
  const ChunkBuffers<T> buf(g, std::min<int64_t>(get_num_threads(), g.n));
  split_batch(g, [&](int64_t first, int64_t end, int64_t part) {
    T* col = buf.col(part);
    for (int64_t n0 = first; n0 < end; n0 += buf.chunk) {
      const int64_t nb = std::min(buf.chunk, end - n0), cols = nb * g.ohw;
      im2col(g, a.x + n0 * g.c * g.hw, nb, col);
      T* y = a.y + n0 * g.k * g.ohw;
      T* out = nb == 1 ? y : buf.mat(part);  // out: (K, nb*OH*OW)
      for (int64_t grp = 0; grp < g.groups; ++grp) {
        gemm<T>(g.kg, cols, g.crs_g, T(1), {a.w + grp * g.kg * g.crs_g, g.crs_g, false},
                {col + grp * g.crs_g * cols, cols, false}, T(0), out + grp * g.kg * cols, cols);
      }
      conv_detail::store_chunk_output(out, nb, g.k, g.ohw, a.bias, p.relu, y);
    }
  });
}

template <typename T>
void conv_im2col_backward_data(const ConvParams& p, const ConvBackwardDataArgs<T>& a) {
  const ConvShape g(p);
  const ChunkBuffers<T> buf(g, std::min<int64_t>(get_num_threads(), g.n));
  split_batch(g, [&](int64_t first, int64_t end, int64_t part) {
    T* col = buf.col(part);
    for (int64_t n0 = first; n0 < end; n0 += buf.chunk) {
      const int64_t nb = std::min(buf.chunk, end - n0), cols = nb * g.ohw;
      const T* gy = channel_major(g, a.gy + n0 * g.k * g.ohw, nb, buf.mat(part));
      // col_g (Cg*R*S, cols) = w_g^T (Cg*R*S, Kg) @ gy_g (Kg, cols)
      for (int64_t grp = 0; grp < g.groups; ++grp) {
        gemm<T>(g.crs_g, cols, g.kg, T(1), {a.w + grp * g.kg * g.crs_g, g.crs_g, true},
                {gy + grp * g.kg * cols, cols, false}, T(0), col + grp * g.crs_g * cols, cols);
      }
      col2im(g, col, nb, a.bias, a.gx + n0 * g.c * g.hw);
    }
  });
}

template <typename T>
void conv_im2col_backward_weight(const ConvParams& p, const ConvBackwardWeightArgs<T>& a) {
  const ConvShape g(p);
  const int64_t max_parts = std::min<int64_t>(get_num_threads(), g.n);
  const ChunkBuffers<T> buf(g, max_parts);
  // Part 0 sums into gw, the others into partials added at the end.
  const int64_t wsize = g.k * g.crs_g;
  const Tensor partial_buf = scratch<T>((max_parts - 1) * wsize);
  const int64_t parts = split_batch(g, [&](int64_t first, int64_t end, int64_t part) {
    T* gw = part == 0 ? a.gw : partial_buf.data_ptr<T>() + (part - 1) * wsize;
    T* col = buf.col(part);
    for (int64_t n0 = first; n0 < end; n0 += buf.chunk) {
      const int64_t nb = std::min(buf.chunk, end - n0), cols = nb * g.ohw;
      im2col(g, a.x + n0 * g.c * g.hw, nb, col);
      const T* gy = channel_major(g, a.gy + n0 * g.k * g.ohw, nb, buf.mat(part));
      // gw_g (Kg, Cg*R*S) (+)= gy_g (Kg, cols) @ col_g^T (cols, Cg*R*S)
      for (int64_t grp = 0; grp < g.groups; ++grp) {
        gemm<T>(g.kg, g.crs_g, cols, T(1), {gy + grp * g.kg * cols, cols, false},
                {col + grp * g.crs_g * cols, cols, true}, n0 == first ? T(0) : T(1),
                gw + grp * g.kg * g.crs_g, g.crs_g);
      }
    }
  });
  const T* partials = partial_buf.data_ptr<T>();
  for (int64_t part = 1; part < parts; ++part)
    for (int64_t i = 0; i < wsize; ++i) a.gw[i] += partials[(part - 1) * wsize + i];
}

#define EMBER_INSTANTIATE(T)                                                                       \
  template void conv_im2col_forward<T>(const ConvParams&, const ConvForwardArgs<T>&);              \
  template void conv_im2col_backward_data<T>(const ConvParams&,                                    \
                                             const ConvBackwardDataArgs<T>&);                      \
  template void conv_im2col_backward_weight<T>(const ConvParams&,                                  \
                                               const ConvBackwardWeightArgs<T>&);
EMBER_INSTANTIATE(float)
EMBER_INSTANTIATE(double)
#undef EMBER_INSTANTIATE

}  // namespace ember::cpu
