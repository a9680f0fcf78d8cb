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
#include "ember/kernels/cpu/simd_vector.h"

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

// Note [Direct backward-weight]
// gw[k, c, r, s] = sum over images and outputs of gy[k, oh, ow] * x at tap (c, r, s). Each
// thread takes a fixed range of images (and, with fewer images than threads, of output
// channel blocks) and keeps vector partial sums acc[k][tap][lane] in its own scratch; the
// lanes and the threads' sums are added at the end in a fixed order, so a thread count
// gives the same bits at every run. A run of a few images at a time (their gy planes and
// phase-split inputs stay in L2) is walked by every (channel block, c, r): KB output
// channels times a row of taps (s = 0..S-1) are KB * S vector accumulators.
// Before, one task per (8 channels, tap) streamed every image's gy and input from memory.
// conv_bench, the sample model's first layer (3x32x32->32, batch 64, 2 threads, median of
// 21, ms, three runs): 0.69-0.72 against 0.86-0.96 before, and im2col + GEMM's 0.78-0.89;
// on one thread 1.32-1.46 against im2col's 1.10-1.60. Timed alone in a calm hour of the host
// (median of 200): 0.92 vs 0.94 ms on one thread, 0.48 vs 0.50-0.53 on two. About level, so
// the heuristic keeps im2col and benchmark mode times both.

// Output channels per accumulator block: 4 x 3 accumulators, each a vector register (blocks
// of 3, which leave registers for the input vectors, measured no faster on AVX2).
constexpr int kWeightBlock = 4;
// Images per run: each accumulator block walks a run's rows (the sample model's first layer:
// 8 x 16 rows of 16 outputs) while its gy planes and inputs stay in L2.
constexpr int64_t kWeightImages = 8;

// The images of a run of them, as weight_taps reads them: gy's planes have rows of `ld`
// floats (zeros past ow up to a whole vector), one image every `gy_image` floats.
struct ImageRun {
  int64_t images, ld, gy_image;
};

// acc[kk][s] (in memory at acc + (kk * crs + s) * lanes) += the sums over the run's images and
// output rows of gy[kk] times the input row of tap (c, r, s): x_tap points at the first
// image's phase-split input at tap (c, r, 0), gy at its output channel k0's plane; tap s
// reads x_tap + s_offset[s].
template <typename T, int KB, int S>
void weight_taps(const ConvShape& g, const PhaseSplitLayout<T>& in, const ImageRun& run,
                 const T* x_tap, const int64_t* s_offset, const T* gy, T* acc) {
  constexpr int64_t L = simd::kLanesOf<T>;
  simd::Vec<T> sum[KB][S];
  for (int kk = 0; kk < KB; ++kk)
    for (int s = 0; s < S; ++s) sum[kk][s] = simd::load(acc + (kk * g.crs_g + s) * L);
  const int64_t row_step = g.sh * in.phases * in.len, plane = g.oh * run.ld;
  for (int64_t img = 0; img < run.images; ++img) {
    for (int64_t oh = 0; oh < g.oh; ++oh) {
      const T* x_row = x_tap + img * g.c * in.plane + oh * row_step;
      const T* gy_row = gy + img * run.gy_image + oh * run.ld;
      // The phase-split rows are padded past the last output's vector (PhaseSplitLayout).
      for (int64_t ow = 0; ow < g.ow; ow += L) {
        simd::Vec<T> xv[S];
        for (int s = 0; s < S; ++s) xv[s] = simd::load(x_row + s_offset[s] + ow);
        for (int kk = 0; kk < KB; ++kk) {
          const simd::Vec<T> d = simd::load(gy_row + kk * plane + ow);
          for (int s = 0; s < S; ++s) sum[kk][s] += d * xv[s];
        }
      }
    }
  }
  for (int kk = 0; kk < KB; ++kk)
    for (int s = 0; s < S; ++s)
      simd::store(acc + (kk * g.crs_g + s) * L, sum[kk][s]);
}

// Every (channel block, c, r) of output channels [k0, k1) of group grp against a run of
// images: x_img and gy at the first one's.
template <typename T>
void weight_images(const ConvShape& g, const PhaseSplitLayout<T>& in, const ImageRun& run,
                   const T* x_img, const T* gy, int64_t grp, int64_t k0, int64_t k1, T* acc) {
  constexpr int64_t L = simd::kLanesOf<T>;
  const int64_t plane = g.oh * run.ld;
  const auto s_offset = [&](int64_t s) { return s * g.dw % g.sw * in.len + s * g.dw / g.sw; };
  const int64_t row_offsets[3] = {s_offset(0), s_offset(1), s_offset(2)};
  for (int64_t k = k0; k < k1; k += kWeightBlock) {
    const int64_t kb = std::min<int64_t>(kWeightBlock, k1 - k);
    for (int64_t c = 0; c < g.cg; ++c)
      for (int64_t r = 0; r < g.r; ++r) {
        const T* x_tap = x_img + (grp * g.cg + c) * in.plane + r * g.dh * in.phases * in.len;
        T* a = acc + (k * g.crs_g + (c * g.r + r) * g.s) * L;
        if (g.s == 3 && kb == kWeightBlock) {
          weight_taps<T, kWeightBlock, 3>(g, in, run, x_tap, row_offsets, gy + k * plane, a);
          continue;
        }
        for (int64_t kk = 0; kk < kb; ++kk)
          for (int64_t s = 0; s < g.s; ++s) {
            const int64_t offset = s_offset(s);
            weight_taps<T, 1, 1>(g, in, run, x_tap, &offset, gy + (k + kk) * plane,
                                 a + (kk * g.crs_g + s) * L);
          }
      }
  }
}

}  // namespace

// Note [Direct backward-weight]: image ranges (times channel-block ranges) per part, vector
// partial sums per part, one fixed-order reduction.
template <typename T>
void conv_direct_backward_weight(const ConvParams& p, const ConvBackwardWeightArgs<T>& a) {
  constexpr int64_t L = simd::kLanesOf<T>;
  const ConvShape g(p);
  const PhaseSplitInput<T> in(g, a.x, g.n);
  const int64_t kblocks = (g.kg + kWeightBlock - 1) / kWeightBlock;
  const int64_t threads = ember::detail::in_parallel_region() ? 1 : get_num_threads();
  const int64_t image_parts = std::min<int64_t>(threads, g.n);
  const int64_t block_parts =
      std::min<int64_t>(std::max<int64_t>(1, threads / image_parts), kblocks);
  const int64_t part_size = g.k * g.crs_g * L;
  // Output rows that are not whole vectors are read from a copy of a run's gy with rows
  // padded by zeros (one per part).
  const bool padded = g.ow % L != 0;
  const int64_t gy_ld = (g.ow + L - 1) / L * L;
  const int64_t pad_size = padded ? kWeightImages * g.k * g.oh * gy_ld : 0;
  const Tensor scratch = conv_detail::scratch<T>(image_parts * block_parts * pad_size +
                                                 image_parts * part_size);
  T* acc = scratch.data_ptr<T>();
  T* pads = acc + image_parts * part_size;
  std::fill(acc, acc + image_parts * part_size, T(0));
  parallel_for(0, image_parts * block_parts, 1, [&](int64_t begin, int64_t end) {
    for (int64_t part = begin; part < end; ++part) {
      const int64_t ip = part / block_parts, bp = part % block_parts;
      const int64_t b0 = kblocks * bp / block_parts, b1 = kblocks * (bp + 1) / block_parts;
      T* pad = pads + part * pad_size;
      if (padded) std::fill(pad, pad + pad_size, T(0));
      const int64_t last = g.n * (ip + 1) / image_parts;
      for (int64_t img = g.n * ip / image_parts; img < last; img += kWeightImages) {
        const ImageRun run{std::min(kWeightImages, last - img), padded ? gy_ld : g.ow,
                           padded ? g.k * g.oh * gy_ld : g.k * g.ohw};
        const T* gy = a.gy + img * g.k * g.ohw;
        if (padded) {
          for (int64_t row = 0; row < run.images * g.k * g.oh; ++row)
            std::copy(gy + row * g.ow, gy + (row + 1) * g.ow, pad + row * gy_ld);
          gy = pad;
        }
        for (int64_t grp = 0; grp < g.groups; ++grp) {
          const int64_t k0 = grp * g.kg + b0 * kWeightBlock;
          const int64_t k1 = grp * g.kg + std::min(g.kg, b1 * kWeightBlock);
          weight_images(g, in, run, in.data() + img * g.c * in.plane, gy, grp, k0, k1,
                        acc + ip * part_size);
        }
      }
    }
  });
  parallel_for(0, g.k * g.crs_g, row_grain(image_parts * L), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      T sum = 0;
      for (int64_t ip = 0; ip < image_parts; ++ip)
        for (int64_t v = 0; v < L; ++v) sum += acc[ip * part_size + i * L + v];
      a.gw[i] = sum;
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
