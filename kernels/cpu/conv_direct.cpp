// Direct convolution: loops over the taps, no unfold and no GEMM. For few
// channels per group (the first layer of an image model, C = 1 or 3) the
// GEMM's reduction length C*R*S is too short for packing to pay. The forward
// and backward-weight passes read a padded, phase-split copy of the input
// (Note [Phase-split input]) and keep blocks of output channels in vector
// registers; backward-data is plain loops, parallel over the planes it writes.
#include "ember/kernels/common/unary_functors.h"
#include "ember/kernels/cpu/conv.h"
#include "ember/kernels/cpu/conv_phase_split.h"
#include "ember/kernels/cpu/conv_util.h"

namespace ember::cpu {

using conv_detail::ConvShape;
using conv_detail::PhaseSplitInput;
using conv_detail::PhaseSplitLayout;
using conv_detail::tap_offset_table;
using conv_detail::row_grain;
using conv_detail::valid_range;

namespace {

// Output channels per forward block: enough accumulators for independent FMAs
// to hide their latency, few enough to stay in registers. A block's row of
// outputs is one AVX-512 vector (PhaseSplitLayout::kVec): 16 channels are 16 of
// the 32 zmm registers; with AVX2 it is two ymm, so 6 channels fill 12 of 16
// (16 spilled to the stack: the first layer's forward took 0.73-0.79 ms against
// 0.57-0.71 ms, batch 64, 2 threads, on a Zen CPU with AVX2).
#if defined(__AVX512F__)
constexpr int kDirectBlock = 16;
#else
constexpr int kDirectBlock = 6;
#endif

// y[k0 + kk, oh, ow0 .. ow0 + V) for kk < KB: KB output channels times one
// vector of outputs held in registers while every tap of the group adds in.
// src: the phase-split input at (oh * sh, ow0); tap t = (c, r, s) reads src + taps[t].
// relu: ReLU on the way out (ConvParams::relu).
template <typename T, int KB>
void direct_block(const ConvShape& g, const T* src, const int64_t* taps, const T* w,
                  const T* bias, bool relu, T* y, int64_t oh, int64_t ow0) {
  constexpr int64_t V = PhaseSplitLayout<T>::kVec;
  T acc[KB][V];
  for (int kk = 0; kk < KB; ++kk)
    for (int64_t v = 0; v < V; ++v) acc[kk][v] = bias ? bias[kk] : T(0);
  for (int64_t t = 0; t < g.crs_g; ++t) {
    const T* in = src + taps[t];
    for (int kk = 0; kk < KB; ++kk) {
      const T wv = w[kk * g.crs_g + t];
#pragma omp simd
      for (int64_t v = 0; v < V; ++v) acc[kk][v] += wv * in[v];
    }
  }
  // Constant-length stores for a full block: a loop of runtime length compiles
  // to `rep movs`, whose start-up cost would exceed the block's FMAs.
  const int64_t n = std::min<int64_t>(V, g.ow - ow0);
  if (relu)
    for (int kk = 0; kk < KB; ++kk)
#pragma omp simd
      for (int64_t v = 0; v < V; ++v) acc[kk][v] = functors::Relu<T>{}(acc[kk][v]);
  for (int kk = 0; kk < KB; ++kk) {
    T* out = y + kk * g.ohw + oh * g.ow + ow0;
    if (n == V) {
#pragma omp simd
      for (int64_t v = 0; v < V; ++v) out[v] = acc[kk][v];
    } else {
#pragma omp simd
      for (int64_t v = 0; v < n; ++v) out[v] = acc[kk][v];
    }
  }
}

// Blocks of kDirectBlock output channels, then the rest of a group: with AVX-512 in blocks of
// 8, 4 and 1; otherwise as one block of its own size (at most 5 channels, all in registers:
// a first layer's 32 channels as 5 blocks of 6 and one of 2, not 2 of 1; conv_bench's
// 3x32x32->32 forward 0.39-0.49 ms against 0.44-0.62, three alternating pairs, AVX2).
template <typename T>
void direct_channels(const ConvShape& g, const T* src, const int64_t* taps, const T* w,
                     const T* bias, bool relu, T* y, int64_t nk, int64_t oh, int64_t ow0) {
  for (int64_t kk = 0; kk < nk;) {
    const T* wk = w + kk * g.crs_g;
    const T* bk = bias ? bias + kk : nullptr;
    T* yk = y + kk * g.ohw;
    const auto block = [&]<int KB>() {
      direct_block<T, KB>(g, src, taps, wk, bk, relu, yk, oh, ow0);
      kk += KB;
    };
    const int64_t left = nk - kk;
    if (left >= kDirectBlock) block.template operator()<kDirectBlock>();
#if defined(__AVX512F__)
    else if (left >= 8) block.template operator()<8>();
    else if (left >= 4) block.template operator()<4>();
    else block.template operator()<1>();
#else
    else if (left == 5) block.template operator()<5>();
    else if (left == 4) block.template operator()<4>();
    else if (left == 3) block.template operator()<3>();
    else if (left == 2) block.template operator()<2>();
    else block.template operator()<1>();
#endif
  }
}

}  // namespace

// Tasks are (image, group, block of output channels), split into one contiguous
// range per thread. Each thread phase-splits the (image, group) inputs of its
// own tasks into its own buffer as it reaches them, so the split copy stays in
// L1/L2 and no pass over the whole batch (nor a barrier after it) comes first.
template <typename T>
void conv_direct_forward(const ConvParams& p, const ConvForwardArgs<T>& a) {
  constexpr int64_t V = PhaseSplitLayout<T>::kVec;
  const ConvShape g(p);
  const PhaseSplitLayout<T> in(g);
  const int64_t* tap_offsets = tap_offset_table(g, in);
  const int64_t kblocks = (g.kg + kDirectBlock - 1) / kDirectBlock;
  const int64_t tasks = g.n * g.groups * kblocks;
  int64_t parts = std::min<int64_t>(get_num_threads(), tasks);
  if (ember::detail::in_parallel_region()) parts = 1;
  const int64_t per_part = g.cg * in.plane;
  const Tensor scratch = conv_detail::scratch<T>(parts * per_part);
  const auto run_part = [&](int64_t part) {
    T* x_group = scratch.data_ptr<T>() + part * per_part;
    int64_t split_of = -1;  // the (image, group) whose input x_group holds
    for (int64_t t = tasks * part / parts; t < tasks * (part + 1) / parts; ++t) {
      const int64_t img_grp = t / kblocks, img = img_grp / g.groups, grp = img_grp % g.groups;
      if (img_grp != split_of) {
        in.split(g, a.x + (img * g.c + grp * g.cg) * g.hw, g.cg, x_group);
        split_of = img_grp;
      }
      const int64_t k0 = grp * g.kg + t % kblocks * kDirectBlock;
      const int64_t nk = std::min<int64_t>(kDirectBlock, (grp + 1) * g.kg - k0);
      T* y = a.y + (img * g.k + k0) * g.ohw;
      for (int64_t oh = 0; oh < g.oh; ++oh)
        for (int64_t ow0 = 0; ow0 < g.ow; ow0 += V)
          direct_channels(g, x_group + oh * g.sh * in.phases * in.len + ow0, tap_offsets,
                          a.w + k0 * g.crs_g, a.bias ? a.bias + k0 : nullptr, p.relu, y, nk,
                          oh, ow0);
    }
  };
  if (parts == 1) return run_part(0);
  parallel_for(0, parts, 1, [&](int64_t begin, int64_t end) {
    for (int64_t part = begin; part < end; ++part) run_part(part);
  });
}

template <typename T>
void conv_direct_backward_data(const ConvParams& p, const ConvBackwardDataArgs<T>& a) {
  const ConvShape g(p);
  parallel_for(0, g.n * g.c, row_grain(g.ohw * g.kg * g.r * g.s), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t img = i / g.c, c = i % g.c, grp = c / g.cg, cl = c % g.cg;
      T* gx = a.gx + i * g.hw;
      std::fill(gx, gx + g.hw, a.bias ? a.bias[c] : T(0));
      for (int64_t k = grp * g.kg; k < (grp + 1) * g.kg; ++k) {
        const T* gy = a.gy + (img * g.k + k) * g.ohw;
        const T* w = a.w + k * g.crs_g + cl * g.r * g.s;
        for (int64_t r = 0; r < g.r; ++r) {
          for (int64_t s = 0; s < g.s; ++s) {
            const T wv = w[r * g.s + s];
            const int64_t off_w = s * g.dw - g.pw;
            const auto [lo, hi] = valid_range(g.ow, g.w, g.sw, off_w);
            for (int64_t oh = 0; oh < g.oh; ++oh) {
              const int64_t ih = oh * g.sh - g.ph + r * g.dh;
              if (ih < 0 || ih >= g.h) continue;
              T* dst = gx + ih * g.w + off_w;
              const T* src = gy + oh * g.ow;
              for (int64_t ow = lo; ow < hi; ++ow) dst[ow * g.sw] += wv * src[ow];
            }
          }
        }
      }
    }
  });
}

namespace {

// acc[kk][v] += gy[kk * ohw + v] * src[v] over n <= V lanes: one output row
// segment of KB output channels against one tap's input row. The full-vector
// case has constant trip counts so the accumulators stay in registers.
template <typename T, int KB>
inline void weight_row(T (&acc)[KB][PhaseSplitLayout<T>::kVec], const T* gy, int64_t ohw,
                       const T* src, int64_t n) {
  constexpr int64_t V = PhaseSplitLayout<T>::kVec;
  if (n == V) {
#pragma GCC unroll 8
    for (int kk = 0; kk < KB; ++kk) {
#pragma omp simd
      for (int64_t v = 0; v < V; ++v) acc[kk][v] += gy[kk * ohw + v] * src[v];
    }
    return;
  }
  for (int kk = 0; kk < KB; ++kk)
    for (int64_t v = 0; v < n; ++v) acc[kk][v] += gy[kk * ohw + v] * src[v];
}

// gw[k0 + kk, tap] for kk < KB: vector accumulators over every image and
// output, reduced across lanes at the end.
template <typename T, int KB>
void weight_block(const ConvShape& g, const PhaseSplitInput<T>& in, const T* x_tap,
                  const T* gy, T* gw) {
  constexpr int64_t V = PhaseSplitLayout<T>::kVec;
  T acc[KB][V] = {};
  for (int64_t img = 0; img < g.n; ++img) {
    const T* x_img = x_tap + img * g.c * in.plane;
    const T* gy_img = gy + img * g.k * g.ohw;
    for (int64_t oh = 0; oh < g.oh; ++oh) {
      const T* src = x_img + oh * g.sh * in.phases * in.len;
      for (int64_t ow0 = 0; ow0 < g.ow; ow0 += V)
        weight_row<T, KB>(acc, gy_img + oh * g.ow + ow0, g.ohw, src + ow0,
                          std::min<int64_t>(V, g.ow - ow0));
    }
  }
  for (int kk = 0; kk < KB; ++kk) {
    T sum = 0;
    for (int64_t v = 0; v < V; ++v) sum += acc[kk][v];
    gw[kk * g.crs_g] = sum;
  }
}

}  // namespace

// One task per (block of 8 output channels, tap): the same phase-split input
// as the forward pass, so the inner loop is a vector FMA along an output row.
template <typename T>
void conv_direct_backward_weight(const ConvParams& p, const ConvBackwardWeightArgs<T>& a) {
  constexpr int KB = 8;
  const ConvShape g(p);
  const PhaseSplitInput<T> in(g, a.x, g.n);
  const int64_t* tap_offsets = tap_offset_table(g, in);
  const int64_t kblocks = (g.kg + KB - 1) / KB, tasks = g.groups * kblocks * g.crs_g;
  parallel_for(0, tasks, row_grain(KB * g.n * g.ohw), [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t tap = t % g.crs_g, grp = t / g.crs_g / kblocks;
      const int64_t k0 = grp * g.kg + t / g.crs_g % kblocks * KB;
      const int64_t nk = std::min<int64_t>(KB, (grp + 1) * g.kg - k0);
      const T* x_tap = in.data() + grp * g.cg * in.plane + tap_offsets[tap];
      const T* gy = a.gy + k0 * g.ohw;
      T* gw = a.gw + k0 * g.crs_g + tap;
      if (nk == KB) {
        weight_block<T, KB>(g, in, x_tap, gy, gw);
      } else {
        for (int64_t kk = 0; kk < nk; ++kk)
          weight_block<T, 1>(g, in, x_tap, gy + kk * g.ohw, gw + kk * g.crs_g);
      }
    }
  });
}

#define EMBER_INSTANTIATE(T)                                                                       \
  template void conv_direct_forward<T>(const ConvParams&, const ConvForwardArgs<T>&);              \
  template void conv_direct_backward_data<T>(const ConvParams&,                                    \
                                             const ConvBackwardDataArgs<T>&);                      \
  template void conv_direct_backward_weight<T>(const ConvParams&,                                  \
                                               const ConvBackwardWeightArgs<T>&);
EMBER_INSTANTIATE(float)
EMBER_INSTANTIATE(double)
#undef EMBER_INSTANTIATE

}  // namespace ember::cpu
