// The three conv passes for bfloat16 tensors (autocast's convolutions on the
// CPU): im2col + GEMM as conv_im2col.cpp, with the unfold in bfloat16 and its
// products on the bfloat16 GEMM (bf16gemm_avx512.h, vdpbf16ps). Every sum is
// float32 until it is stored: the GEMMs write float32 (the forward's bias and
// the backward-data's overlapping taps are added to them there), the weight
// gradient sums the chunks and threads of a batch in float32, and each
// output element rounds to bfloat16 once.
#include <algorithm>

#include "ember/core/parallel.h"
#include "ember/kernels/cpu/bf16gemm_avx512.h"
#include "ember/kernels/cpu/conv.h"
#include "ember/kernels/cpu/conv_unfold.h"
#include "ember/kernels/cpu/conv_util.h"
#include "ember/kernels/cpu/convert_16bit.h"

#if defined(__AVX512F__) && defined(__AVX512BW__)
#include "ember/kernels/cpu/bf16_rounding.h"
#endif

namespace ember::cpu {
namespace {

using conv_detail::channel_major;
using conv_detail::ConvShape;
using conv_detail::images_per_chunk;
using conv_detail::row_grain;
using conv_detail::scratch;
using conv_detail::split_batch;

// The parts split_batch may use and the images of each chunk of a part.
struct Chunking {
  const ConvShape& g;
  int64_t parts, chunk;
  explicit Chunking(const ConvShape& shape)
      : g(shape), parts(std::min<int64_t>(get_num_threads(), shape.n)),
        chunk(images_per_chunk(shape, (shape.n + parts - 1) / parts)) {}

  // f(n0, nb, part, first) for every chunk of the batch, nb images from n0, in the part
  // split_batch runs it in (first: the part's first chunk); returns the part count.
  template <typename F>
  int64_t each(const F& f) const {
    return split_batch(g, [&](int64_t first, int64_t end, int64_t part) {
      for (int64_t n0 = first; n0 < end; n0 += chunk)
        f(n0, std::min(chunk, end - n0), part, n0 == first);
    });
  }
};

// The group grp's rows of a chunk's gy (nb, K, OH*OW) from image n0, as runs of OH*OW columns.
MatrixRuns gy_runs_of(const ConvShape& g, const BFloat16* gy, int64_t n0, int64_t grp) {
  return {gy + (n0 * g.k + grp * g.kg) * g.ohw, g.ohw, g.ohw, g.k * g.ohw};
}

// One scratch tensor cut into `parts` slices of `size` elements.
template <typename T>
struct Slices {
  int64_t size;
  Tensor storage;
  Slices(int64_t parts, int64_t size) : size(size), storage(scratch<T>(parts * size)) {}
  T* operator[](int64_t part) const { return storage.data_ptr<T>() + part * size; }
};

// A bias (n bfloat16, or null) in float32.
struct WidenedBias {
  Tensor storage;
  const float* data = nullptr;
  WidenedBias(const BFloat16* bias, int64_t n) {
    if (!bias) return;
    storage = scratch<float>(n);
    float* f = storage.data_ptr<float>();
    for (int64_t i = 0; i < n; ++i) f[i] = static_cast<float>(bias[i]);
    data = f;
  }
};

// y (nb, K, P) = round(acc (K, nb*P) + bias[k]), through ReLU when `relu`.
void store_forward(const ConvShape& g, const float* acc, int64_t nb, const float* bias, bool relu,
                   BFloat16* y) {
  parallel_for(0, nb * g.k, row_grain(g.ohw), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t img = i / g.k, ch = i % g.k;
      const float* in = acc + (ch * nb + img) * g.ohw;
      const float b = bias ? bias[ch] : 0.0f;
      BFloat16* out = y + i * g.ohw;
      int64_t j = 0;
#if defined(__AVX512F__) && defined(__AVX512BW__)
      for (const __m512 vb = _mm512_set1_ps(b); j < g.ohw; j += 16) {
        const __mmask16 lanes = conv_detail::low_lanes(static_cast<int>(g.ohw - j));
        __m512 v = _mm512_add_ps(_mm512_maskz_loadu_ps(lanes, in + j), vb);
        if (relu) v = conv_detail::relu_ps(v);
        _mm256_mask_storeu_epi16(out + j, lanes, round_to_bf16(v));
      }
#endif
      for (; j < g.ohw; ++j) {
        const float v = in[j] + b;
        out[j] = BFloat16(relu && v < 0.0f ? 0.0f : v);  // relu keeps NaN, as torch.relu
      }
    }
  });
}

// dst[i] = round(src[i]) for n elements.
void round_into(const float* src, int64_t n, BFloat16* dst) {
  parallel_for(0, n, kGrainSize, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) dst[i] = BFloat16(src[i]);
  });
}

// Whether backward-data folds by phase straight into bfloat16 (Note [Stride-2 fold by phase]):
// then it needs no float32 input buffer and no rounding pass.
bool folds_by_phase([[maybe_unused]] const ConvShape& g) {
#if defined(__AVX512F__)
  return conv_detail::fold_by_phase_applies(g);
#else
  return false;
#endif
}

// Whether the backward passes' GEMMs read gy (nb, K, OH*OW) in place, as runs of OH*OW
// columns (bf16gemm_a_runs, bf16gemm_b_runs), instead of a channel-major copy: whole vectors
// of 16 per run, on the AVX-512 BF16 kernel.
bool reads_gy_in_runs(const ConvShape& g) { return g.ohw % 16 == 0 && bf16gemm_available(); }

#if defined(__AVX512BW__) && defined(__AVX512VL__)
// The forward on the bfloat16 GEMM's panels, unfolded from x as it packs them (Note [Unfold
// into panels]): no col buffer. Up to kPanelOutputDepth taps of a sum the GEMM's tiles go
// straight to y, bias, ReLU and rounding included; deeper sums (more than one k block) add up
// in float32 first.
void forward_from_panels(const ConvShape& g, const conv_detail::PanelUnfold& unfold, bool relu,
                         const ConvForwardArgs<BFloat16>& a) {
  const Chunking c(g);
  const bool direct = g.crs_g <= kPanelOutputDepth;
  const Slices<float> acc_buf(c.parts, direct ? 0 : g.k * c.chunk * g.ohw);
  const WidenedBias bias(a.bias, g.k);
  c.each([&](int64_t n0, int64_t nb, int64_t part, bool) {
    const int64_t cols = nb * g.ohw;
    const BFloat16* x = a.x + n0 * g.c * g.hw;
    const auto panels = [&](int64_t p0, int64_t kc, int64_t j0, int64_t nc, uint16_t* dst) {
      unfold.write(x, p0, kc, j0, nc, dst);
    };
    BFloat16* y = a.y + n0 * g.k * g.ohw;
    // y or acc (K, cols) = w (K, C*R*S) @ col (C*R*S, cols)
    if (direct) {
      bf16gemm_panels(g.k, cols, g.crs_g, {a.w, g.crs_g, false}, panels,
                      {y, g.ohw, g.ohw, g.k * g.ohw, bias.data, relu});
      return;
    }
    float* acc = acc_buf[part];
    bf16gemm_panels(g.k, cols, g.crs_g, 1.0f, {a.w, g.crs_g, false}, panels, 0.0f, acc, cols);
    store_forward(g, acc, nb, bias.data, relu, y);
  });
}
#endif

}  // namespace

bool conv_bf16_available() { return bf16gemm_available(); }

void conv_im2col_bf16_forward(const ConvParams& p, const ConvForwardArgs<BFloat16>& a) {
  const ConvShape g(p);
#if defined(__AVX512BW__) && defined(__AVX512VL__)
  if (bf16gemm_available()) {
    if (const conv_detail::PanelUnfold unfold(g); unfold)
      return forward_from_panels(g, unfold, p.relu, a);
  }
#endif
  const Chunking c(g);
  const Slices<BFloat16> cols_buf(c.parts, g.c * g.r * g.s * c.chunk * g.ohw);
  const Slices<float> acc_buf(c.parts, g.k * c.chunk * g.ohw);
  const WidenedBias bias(a.bias, g.k);
  c.each([&](int64_t n0, int64_t nb, int64_t part, bool) {
    BFloat16* col = cols_buf[part];
    float* acc = acc_buf[part];
    const int64_t cols = nb * g.ohw;
    conv_detail::im2col(g, a.x + n0 * g.c * g.hw, nb, col);
    // acc_g (Kg, cols) = w_g (Kg, Cg*R*S) @ col_g (Cg*R*S, cols)
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      bf16gemm(g.kg, cols, g.crs_g, 1.0f, {a.w + grp * g.kg * g.crs_g, g.crs_g, false},
               {col + grp * g.crs_g * cols, cols, false}, 0.0f, acc + grp * g.kg * cols, cols);
    }
    store_forward(g, acc, nb, bias.data, p.relu, a.y + n0 * g.k * g.ohw);
  });
}

void conv_im2col_bf16_backward_data(const ConvParams& p, const ConvBackwardDataArgs<BFloat16>& a) {
  const ConvShape g(p);
  const Chunking c(g);
  const bool gy_runs = reads_gy_in_runs(g);
  const Slices<BFloat16> gy_buf(c.parts, c.chunk > 1 && !gy_runs ? g.k * c.chunk * g.ohw : 0);
  const Slices<float> col_buf(c.parts, g.c * g.r * g.s * c.chunk * g.ohw);
  const bool fold = folds_by_phase(g);
  const Slices<float> gx_buf(c.parts, fold ? 0 : c.chunk * g.c * g.hw);
  const WidenedBias bias(a.bias, g.c);
  c.each([&](int64_t n0, int64_t nb, int64_t part, bool) {
    float* col = col_buf[part];
    const int64_t cols = nb * g.ohw;
    const BFloat16* gy =
        gy_runs ? nullptr : channel_major(g, a.gy + n0 * g.k * g.ohw, nb, gy_buf[part]);
    // col_g (Cg*R*S, cols) = w_g^T (Cg*R*S, Kg) @ gy_g (Kg, cols), w_g^T read column-major
    // and gy_g as its images' runs, or reordered to channel-major
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const MatrixRef<BFloat16> wt{a.w + grp * g.kg * g.crs_g, g.crs_g, true};
      float* out = col + grp * g.crs_g * cols;
      if (gy_runs) {
        bf16gemm_b_runs(g.crs_g, cols, g.kg, 1.0f, wt, gy_runs_of(g, a.gy, n0, grp), 0.0f, out,
                        cols);
      } else {
        bf16gemm(g.crs_g, cols, g.kg, 1.0f, wt, {gy + grp * g.kg * cols, cols, false}, 0.0f,
                 out, cols);
      }
    }
#if defined(__AVX512F__)
    if (fold) return conv_detail::fold_by_phase(g, col, nb, bias.data, a.gx + n0 * g.c * g.hw);
#endif
    conv_detail::col2im(g, col, nb, bias.data, gx_buf[part]);
    round_into(gx_buf[part], nb * g.c * g.hw, a.gx + n0 * g.c * g.hw);
  });
}

void conv_im2col_bf16_backward_weight(const ConvParams& p,
                                      const ConvBackwardWeightArgs<BFloat16>& a) {
  const ConvShape g(p);
  const Chunking c(g);
  const int64_t wsize = g.k * g.crs_g;
  const Slices<BFloat16> col_buf(c.parts, g.c * g.r * g.s * c.chunk * g.ohw);
  const bool gy_runs = reads_gy_in_runs(g);
  const Slices<BFloat16> gy_buf(c.parts, c.chunk > 1 && !gy_runs ? g.k * c.chunk * g.ohw : 0);
  const Slices<float> sums(c.parts, wsize);  // each part's float32 sum over its images
  const int64_t parts = c.each([&](int64_t n0, int64_t nb, int64_t part, bool first) {
    BFloat16* col = col_buf[part];
    const int64_t cols = nb * g.ohw;
    conv_detail::im2col(g, a.x + n0 * g.c * g.hw, nb, col);
    const BFloat16* gy =
        gy_runs ? nullptr : channel_major(g, a.gy + n0 * g.k * g.ohw, nb, gy_buf[part]);
    // gw_g (Kg, Cg*R*S) (+)= gy_g (Kg, cols) @ col_g^T (cols, Cg*R*S), gy_g as its images'
    // runs or reordered to channel-major; the part's first chunk starts its sum
    const float beta = first ? 0.0f : 1.0f;
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const MatrixRef<BFloat16> colt{col + grp * g.crs_g * cols, cols, true};
      float* out = sums[part] + grp * g.kg * g.crs_g;
      if (gy_runs) {
        bf16gemm_a_runs(g.kg, g.crs_g, cols, 1.0f, gy_runs_of(g, a.gy, n0, grp), colt, beta, out,
                        g.crs_g);
      } else {
        bf16gemm(g.kg, g.crs_g, cols, 1.0f, {gy + grp * g.kg * cols, cols, false}, colt, beta,
                 out, g.crs_g);
      }
    }
  });
  // The parts' sums added and rounded, split over the threads (the parts' order is fixed).
  parallel_for(0, wsize, kGrainSize, [&](int64_t begin, int64_t end) {
    float* total = sums[0] + begin;
    for (int64_t part = 1; part < parts; ++part) {
      const float* sum = sums[part] + begin;
      for (int64_t i = 0; i < end - begin; ++i) total[i] += sum[i];
    }
    narrow(total, a.gw + begin, end - begin);
  });
}

}  // namespace ember::cpu
