// Direct convolution: loops over the taps, no GEMM. For few channels per group
// (the first layer of an image model, C = 1 or 3) the GEMM's reduction length
// C*R*S is too short for packing to pay. The forward reads a padded, phase-split
// copy of the input (Note [Phase-split input]) and keeps blocks of output
// channels in vector registers; backward-weight unfolds one image at a time from
// that copy and takes dot products (Note [Direct backward-weight]); backward-data
// is plain loops, parallel over the planes it writes.
#include "ember/kernels/common/unary_functors.h"
#include "ember/kernels/cpu/conv.h"
#include "ember/kernels/cpu/conv_phase_split.h"
#include "ember/kernels/cpu/conv_util.h"
#include "ember/kernels/cpu/simd_vector.h"

namespace ember::cpu {

using conv_detail::ConvShape;
using conv_detail::copy_strided;
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
// gw[k, t] = the sum over images and output positions p of gy[k, p] * u[t, p], where u is an
// image's unfolded input: row t = (c, r, s) holds what tap t reads at each output position
// (zeros in the padding), as one image's share of im2col. With a short reduction (C*R*S = 27
// in an RGB first layer) a GEMM's packing costs about as much as its products, so each
// thread unfolds one image at a time into a buffer that stays in cache and takes dot
// products along p: a block of kChannelBlock output channels times kTapBlock taps is that
// many vector accumulators, walking the image's positions with one load per channel's gy and
// one per tap's u. Between blocks the accumulators wait in the thread's scratch as
// acc[k][t][lane]; the lanes and the threads' sums are added at the end in a fixed order, so
// a thread count gives the same bits at every run.
// conv_bench, the sample model's first layer (3x32x32->32, batch 64, a Zen host with AVX2,
// median of 21, ms): 0.52-0.53 on one thread against im2col + GEMM's 0.84-0.85 and the
// 0.93-0.95 of the kernel before it (which read the phase-split input in place, two vectors
// per output row, for runs of 8 images); on two threads 0.28-0.34 against 0.45-0.48.
// Fashion-MNIST's (1x28x28->32): 0.19 against 0.35 on one thread, 0.16 against 0.18 on two.

// Channels and taps per block: 4 x 3 accumulators, 3 tap vectors and a gy vector fill
// AVX2's 16 registers; AVX-512's 32 take 4 x 6.
constexpr int kChannelBlock = 4;
#if defined(__AVX512F__)
constexpr int kTapBlock = 6;
#else
constexpr int kTapBlock = 3;
#endif

// Rows [0, C*R*S) of u from one image's group, phase-split (Note [Phase-split input]) at
// planes: rows of `ld` elements, zeros past OH*OW. taps[t]: tap t's offset in the planes.
// Each output row is copied as whole vectors: the part past OW lands on the next output
// row, written after it, or past OH*OW, zeroed after; the last tap's may reach rows past
// C*R*S, whose sums are never read, and up to a vector past them (u has that much room).
template <typename T>
void unfold_image(const ConvShape& g, const PhaseSplitLayout<T>& in, const T* planes,
                  const int64_t* taps, int64_t ld, T* u) {
  constexpr int64_t L = simd::kLanesOf<T>;
  const int64_t row_step = g.sh * in.phases * in.len, ow = g.ow, ohw = g.ohw;
  for (int64_t t = 0; t < g.crs_g; ++t) {
    T* row = u + t * ld;
    for (int64_t oh = 0; oh < g.oh; ++oh) {
      const T* src = planes + taps[t] + oh * row_step;
      T* dst = row + oh * ow;
      for (int64_t j = 0; j < ow; j += L) simd::store(dst + j, simd::load<T>(src + j));
    }
    std::fill(row + ohw, row + ld, T(0));
  }
}

// acc[kk][tt] (at acc + (kk * acc_ld + tt) * lanes) += the lanes of the dot product of
// gy's row kk (rows gy_ld apart) and u's row tt (rows ld apart) over their first len
// elements, a whole number of vectors.
template <typename T, int KB>
void dot_block(const T* gy, int64_t gy_ld, const T* u, int64_t ld, int64_t len, T* acc,
               int64_t acc_ld) {
  constexpr int64_t L = simd::kLanesOf<T>;
  simd::Vec<T> sum[KB][kTapBlock];
  for (int kk = 0; kk < KB; ++kk)
    for (int tt = 0; tt < kTapBlock; ++tt) sum[kk][tt] = simd::load(acc + (kk * acc_ld + tt) * L);
#pragma GCC unroll 2  // the first layer's pass 0.59 -> 0.55 ms, one thread
  for (int64_t p = 0; p < len; p += L) {
    simd::Vec<T> uv[kTapBlock];
    for (int tt = 0; tt < kTapBlock; ++tt) uv[tt] = simd::load(u + tt * ld + p);
    for (int kk = 0; kk < KB; ++kk) {
      const simd::Vec<T> d = simd::load(gy + kk * gy_ld + p);
      for (int tt = 0; tt < kTapBlock; ++tt) sum[kk][tt] += d * uv[tt];
    }
  }
  for (int kk = 0; kk < KB; ++kk)
    for (int tt = 0; tt < kTapBlock; ++tt) simd::store(acc + (kk * acc_ld + tt) * L, sum[kk][tt]);
}

}  // namespace

// Note [Direct backward-weight]: image ranges (times channel-block ranges) per part, vector
// partial sums per image range, one fixed-order reduction.
template <typename T>
void conv_direct_backward_weight(const ConvParams& p, const ConvBackwardWeightArgs<T>& a) {
  constexpr int64_t L = simd::kLanesOf<T>;
  const ConvShape g(p);
  const int64_t ld = (g.ohw + L - 1) / L * L;  // u's and padded gy's row length
  const int64_t taps = (g.crs_g + kTapBlock - 1) / kTapBlock * kTapBlock;  // u's rows
  const int64_t kblocks = (g.kg + kChannelBlock - 1) / kChannelBlock;
  const int64_t threads = ember::detail::in_parallel_region() ? 1 : get_num_threads();
  const int64_t image_parts = std::min<int64_t>(threads, g.n);
  const int64_t block_parts =
      std::min<int64_t>(std::max<int64_t>(1, threads / image_parts), kblocks);
  const int64_t parts = image_parts * block_parts;
  // Output planes that are not whole vectors are read from a copy of gy's rows padded with
  // zeros (one per part).
  const bool padded = ld != g.ohw;
  const PhaseSplitLayout<T> in(g);
  const int64_t* taps_of = tap_offset_table(g, in);
  const int64_t acc_size = g.k * taps * L, u_size = taps * ld + L, planes_size = g.cg * in.plane;
  const int64_t part_size = u_size + planes_size + (padded ? g.kg * ld : 0);
  const Tensor scratch = conv_detail::scratch<T>(image_parts * acc_size + parts * part_size);
  T* acc = scratch.data_ptr<T>();
  std::fill(acc, acc + image_parts * acc_size, T(0));
  parallel_for(0, parts, 1, [&](int64_t begin, int64_t end) {
    for (int64_t part = begin; part < end; ++part) {
      const int64_t ip = part / block_parts, bp = part % block_parts;
      const int64_t b0 = kblocks * bp / block_parts, b1 = kblocks * (bp + 1) / block_parts;
      T* u = acc + image_parts * acc_size + part * part_size;
      T* planes = u + u_size;
      T* pad = planes + planes_size;
      // gy's columns past OH*OW stay zero; u's rows past C*R*S start at zero (unfold_image
      // may copy input into them, whose sums are never read).
      std::fill(u + g.crs_g * ld, u + u_size, T(0));
      if (padded) std::fill(pad, pad + g.kg * ld, T(0));
      for (int64_t img = g.n * ip / image_parts; img < g.n * (ip + 1) / image_parts; ++img)
        for (int64_t grp = 0; grp < g.groups; ++grp) {
          in.split(g, a.x + (img * g.c + grp * g.cg) * g.hw, g.cg, planes);
          unfold_image(g, in, planes, taps_of, ld, u);
          const int64_t k0 = b0 * kChannelBlock, k1 = std::min(g.kg, b1 * kChannelBlock);
          const T* gy = a.gy + (img * g.k + grp * g.kg) * g.ohw;
          int64_t gy_ld = g.ohw;
          if (padded) {
            for (int64_t k = k0; k < k1; ++k)
              std::copy(gy + k * g.ohw, gy + (k + 1) * g.ohw, pad + k * ld);
            gy = pad, gy_ld = ld;
          }
          for (int64_t k = k0; k < k1; k += kChannelBlock) {
            T* acc_k = acc + ip * acc_size + (grp * g.kg + k) * taps * L;
            const auto blocks = [&]<int KB>() {
              for (int64_t t = 0; t < taps; t += kTapBlock)
                dot_block<T, KB>(gy + k * gy_ld, gy_ld, u + t * ld, ld, ld, acc_k + t * L,
                                 taps);
            };
            static_assert(kChannelBlock == 4);
            switch (std::min<int64_t>(kChannelBlock, k1 - k)) {
              case 4: blocks.template operator()<4>(); break;
              case 3: blocks.template operator()<3>(); break;
              case 2: blocks.template operator()<2>(); break;
              default: blocks.template operator()<1>(); break;
            }
          }
        }
    }
  });
  parallel_for(0, g.k * g.crs_g, row_grain(image_parts * L), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t at = (i / g.crs_g * taps + i % g.crs_g) * L;
      T sum = 0;
      for (int64_t ip = 0; ip < image_parts; ++ip)
        for (int64_t v = 0; v < L; ++v) sum += acc[ip * acc_size + at + v];
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
