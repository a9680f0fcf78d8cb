// Implicit GEMM: the forward of im2col + GEMM without the column matrix
// (float32, AVX-512 builds). The product is the same,
//   y (K, columns) = w (K, C*R*S) @ col (C*R*S, columns),
// but each kc x 32 panel of col is filled from the image straight into the
// packed layout the GEMM's micro-kernel reads (sgemm_avx512_tile.h), right
// before the kernel walks every row of w over it, so the panel is read back
// from L1; and the kernel's tiles are stored straight into the NCHW output,
// bias added. im2col + GEMM instead writes the column matrix, reads it again
// to pack it, and reorders the (K, columns) result into NCHW: three passes
// over memory that cost the sample model's layers a fifth of their time.
//
// Columns: output pixel q of image i is column i * span + q, where span is
// OH*OW rounded up to 16, so each 16-lane vector of a tile lies in one plane;
// lanes with q >= OH*OW are zero in the panels and masked in the stores.
// Threads split the columns into contiguous runs of whole panels, so a small
// batch of large images still uses every thread; each thread works through
// its run a chunk of images at a time (Note [Phase planes]).
#include "ember/kernels/cpu/conv.h"

#include "ember/core/error.h"

#if defined(__AVX512F__)
// GCC 12's AVX-512 headers make their "undefined" vectors by self-initialisation.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <vector>

#include "ember/kernels/cpu/conv_util.h"
#include "ember/kernels/cpu/sgemm_avx512_tile.h"
#endif

namespace ember::cpu {

#if defined(__AVX512F__)
namespace {

using conv_detail::ConvShape;
using namespace sgemm_detail;

// Depth of a k block: the reduction is cut into near-equal blocks of at most
// this many rows, so a panel (kc x 32 floats) stays in L1 and L2.
constexpr int64_t kMaxKc = 384;
// Phase planes of a chunk of images, in floats: the chunk's planes stay in L2
// (next to the packed weights) while its panels are filled.
constexpr int64_t kChunkFloats = int64_t(1) << 16;
// Strides up to this split short input rows with permutes.
constexpr int64_t kMaxStride = 4;

// Note [Phase planes]
// The panels are filled from a zero-padded copy of the input split by row and
// column phase: padded element (ih, iw) goes to phase (ih % sh, iw % sw) at
// (ih / sh, iw / sw). Output pixel (oh, ow) under tap (r, s) reads padded
// element (oh*sh + r*dh, ow*sw + s*dw), which is element (oh + r*dh / sh,
// ow + s*dw / sw) of phase ((r*dh) % sh, (s*dw) % sw): its offset is a pixel
// part, oh * wq + ow, plus a tap part, and no read falls outside. So the 16
// pixels of a vector read the same pattern of offsets for every channel and
// tap, from a window that for small images (wq up to about 16) spans at most
// 32 floats: two loads and one lane permute. A gather would cost several
// times more (on Zen 4 gathers took 40% of a layer's time). Each thread
// builds the planes of a chunk of its images, then fills that chunk's panels
// from them while they are in L2.

// The read pattern of the 16 pixels [q0, q0 + 16) of a span: offsets from
// pixel q0's, and the lanes that are pixels (q < OH*OW).
struct VectorPattern {
  __m512i offsets;
  __mmask16 lanes;
  bool window;  // every offset < 32: two loads and a permute, else a gather
};

// A problem's phase planes, columns and blocks.
struct Sizes {
  ConvShape g;
  int64_t hq, wq, plane, channel, image;  // phase planes: channel = sh*sw planes, image = Cg
  int64_t span, columns, panels, kc_blocks, chunk_images;

  explicit Sizes(const ConvShape& shape)
      : g(shape), hq((g.h + 2 * g.ph + g.sh - 1) / g.sh), wq((g.w + 2 * g.pw + g.sw - 1) / g.sw),
        plane(hq * wq), channel(g.sh * g.sw * plane), image(g.cg * channel),
        span((g.ohw + 15) / 16 * 16), columns(g.n * span), panels((columns + kNR - 1) / kNR),
        kc_blocks((g.crs_g + kMaxKc - 1) / kMaxKc),
        chunk_images(std::max<int64_t>(1, kChunkFloats / image)) {}
};

// Everything the threads share: the sizes, offset tables and read patterns. The tables live
// in thread_local storage of the thread that made the plan, so a steady stream of calls
// allocates nothing; the workers read them through the pointers.
struct Plan : Sizes {
  const int64_t* row;             // (Cg*R*S): offset of a row (c, r, s) in an image's planes
  const int64_t* pixel;           // (span / 16): offset of pixel q0 = 16 * index
  const VectorPattern* patterns;  // (span / 16)
  // Input rows of at most 32 floats, phases of at most 16 (short_rows): per column phase b,
  // the elements whose input column j * sw + b - pw is inside the row, and their columns.
  bool short_rows;
  __mmask16 inside[kMaxStride];
  __m512i index[kMaxStride];

  explicit Plan(const ConvShape& shape)
      : Sizes(shape), short_rows(g.w <= 32 && wq <= 16 && g.sw <= kMaxStride) {
    thread_local std::vector<int64_t> rows, pixels;
    thread_local std::vector<VectorPattern> vector_patterns;
    rows.clear(), pixels.clear(), vector_patterns.clear();
    for (int64_t c = 0; c < g.cg; ++c)
      for (int64_t r = 0; r < g.r; ++r)
        for (int64_t s = 0; s < g.s; ++s)
          rows.push_back(c * channel + (r * g.dh % g.sh * g.sw + s * g.dw % g.sw) * plane +
                         r * g.dh / g.sh * wq + s * g.dw / g.sw);
    const auto offset = [&](int64_t q) { return q / g.ow * wq + q % g.ow; };
    for (int64_t q0 = 0; q0 < span; q0 += 16) {
      alignas(64) int32_t lane_offsets[16] = {};
      VectorPattern pattern{{}, 0, true};
      for (int l = 0; l < 16 && q0 + l < g.ohw; ++l) {
        lane_offsets[l] = static_cast<int32_t>(offset(q0 + l) - offset(q0));
        pattern.lanes |= __mmask16(1u << l);
        pattern.window = pattern.window && lane_offsets[l] < 32;
      }
      pattern.offsets = _mm512_load_si512(lane_offsets);
      vector_patterns.push_back(pattern);
      pixels.push_back(q0 < g.ohw ? offset(q0) : 0);
    }
    row = rows.data(), pixel = pixels.data(), patterns = vector_patterns.data();
    for (int64_t b = 0; short_rows && b < g.sw; ++b) {
      const auto [first, last] = conv_detail::valid_range(wq, g.w, g.sw, b - g.pw);
      inside[b] = low_mask(last) & ~low_mask(first);
      alignas(64) int32_t columns_of[16];
      for (int j = 0; j < 16; ++j) columns_of[j] = static_cast<int32_t>(j * g.sw + b - g.pw);
      index[b] = _mm512_load_si512(columns_of);
    }
  }
};

// The phase planes of `images` images of one group (x: the group's first
// channel of the first image) into dst (images * plan.image floats).
void build_planes(const Plan& plan, const float* x, int64_t images, float* dst) {
  // Locals, not plan's fields: the vector stores below may alias anything, so the compiler
  // would reload every field after each store.
  const int64_t h = plan.g.h, w = plan.g.w, hw = plan.g.hw, c_in = plan.g.c, cg = plan.g.cg;
  const int64_t sh = plan.g.sh, sw = plan.g.sw, ph = plan.g.ph, pw = plan.g.pw;
  const int64_t wq = plan.wq, hq = plan.hq, plane = plan.plane, channel = plan.channel;
  const bool short_rows = plan.short_rows;
  const __mmask16 row_lanes = low_mask(wq), lo_lanes = low_mask(w), hi_lanes = low_mask(w - 16);
  for (int64_t img = 0; img < images; ++img) {
    for (int64_t c = 0; c < cg; ++c) {
      const float* in = x + (img * c_in + c) * hw;
      float* out_channel = dst + (img * cg + c) * channel;
      // The rows of each phase that no input row fills: the padding above and below.
      for (int64_t a = 0; a < sh; ++a) {
        const auto [first, last] = conv_detail::valid_range(hq, h, sh, a - ph);
        for (int64_t b = 0; b < sw; ++b) {
          float* phase = out_channel + (a * sw + b) * plane;
          std::fill(phase, phase + first * wq, 0.0f);
          std::fill(phase + last * wq, phase + plane, 0.0f);
        }
      }
      int64_t a = ph % sh, row = ph / sh;  // padded row ih + ph: phase a, row `row`
      for (int64_t ih = 0; ih < h; ++ih) {
        const float* src = in + ih * w;
        float* out = out_channel + a * sw * plane + row * wq;
        if (short_rows) {
          // two loads, then per column phase one permute and one store of the whole row
          const __m512 lo = _mm512_maskz_loadu_ps(lo_lanes, src);
          const __m512 hi = _mm512_maskz_loadu_ps(hi_lanes, src + 16);
          for (int64_t b = 0; b < sw; ++b)
            _mm512_mask_storeu_ps(
                out + b * plane, row_lanes,
                _mm512_maskz_permutex2var_ps(plan.inside[b], lo, plan.index[b], hi));
        } else {
          for (int64_t b = 0; b < sw; ++b) {
            const auto [lo, hi] = conv_detail::valid_range(wq, w, sw, b - pw);
            float* o = out + b * plane;
            std::fill(o, o + lo, 0.0f);
            conv_detail::copy_strided(o + lo, src + lo * sw + b - pw, hi - lo, sw);
            std::fill(o + hi, o + wq, 0.0f);
          }
        }
        if (++a == sh) a = 0, ++row;
      }
    }
  }
}

// One 16-column vector of a panel: where its pixels' reads start in the
// planes, its read pattern (null past the last image), and where its outputs
// go (the group's first output channel).
struct PanelVector {
  const float* src;
  const VectorPattern* pattern;
  float* out;
};

// Rows [p0, p0 + kc) of the panel whose vectors are `vec` into dst (kc x kNR
// floats): dst[p * kNR + 16 v + lane] = col(p0 + p, the lane's column).
void fill_panel(const Plan& plan, const PanelVector (&vec)[kNV], int64_t p0, int64_t kc,
                float* dst) {
  const int64_t* row = plan.row + p0;
  const VectorPattern* first = vec[0].pattern;
  const VectorPattern* second = vec[1].pattern;
  static_assert(kNV == 2, "fill_panel's fast path handles two vectors");
  if (first && second && first->window && second->window) {
    // The usual case: both vectors read windows; their patterns stay in registers.
    const float* src0 = vec[0].src;
    const float* src1 = vec[1].src;
    const __m512i idx0 = first->offsets, idx1 = second->offsets;
    const __mmask16 lanes0 = first->lanes, lanes1 = second->lanes;
    for (int64_t p = 0; p < kc; ++p) {
      const float* a = src0 + row[p];
      const float* b = src1 + row[p];
      _mm512_store_ps(dst + p * kNR, _mm512_maskz_permutex2var_ps(lanes0, _mm512_loadu_ps(a),
                                                                  idx0, _mm512_loadu_ps(a + 16)));
      _mm512_store_ps(dst + p * kNR + 16,
                      _mm512_maskz_permutex2var_ps(lanes1, _mm512_loadu_ps(b), idx1,
                                                   _mm512_loadu_ps(b + 16)));
    }
    return;
  }
  for (int64_t p = 0; p < kc; ++p) {
    for (int v = 0; v < kNV; ++v) {
      __m512 x = _mm512_setzero_ps();
      if (const VectorPattern* pattern = vec[v].pattern) {
        const float* src = vec[v].src + row[p];
        x = pattern->window
                ? _mm512_maskz_permutex2var_ps(pattern->lanes, _mm512_loadu_ps(src),
                                               pattern->offsets, _mm512_loadu_ps(src + 16))
                : _mm512_mask_i32gather_ps(x, pattern->lanes, pattern->offsets, src, 4);
      }
      _mm512_store_ps(dst + p * kNR + 16 * v, x);
    }
  }
}

// A thread's scratch: the group's w packed block by block (block b starts at
// kg * p0(b)), and a chunk's planes. Its first and last images may be shared
// with the neighbouring chunks (whose planes are then built twice), hence
// chunk_images + 1, and 32 floats of slack: a window's second load may read
// past the last plane.
int64_t part_scratch_floats(const Plan& plan) {
  return plan.g.kg * plan.g.crs_g + (plan.chunk_images + 1) * plan.image + 32;
}

// Panels [first, last) of group grp, on the calling thread, with `scratch`
// (part_scratch_floats) to itself; ReLU on each finished panel when relu is set.
void run_panels(const Plan& plan, const ConvForwardArgs<float>& a, bool relu, int64_t grp,
                int64_t first, int64_t last, float* scratch) {
  const ConvShape& g = plan.g;
  float* weights = scratch;
  float* planes = scratch + g.kg * g.crs_g;
  const auto block_start = [&](int64_t b) { return g.crs_g * b / plan.kc_blocks; };
  const MatrixRef<float> w{a.w + grp * g.kg * g.crs_g, g.crs_g, false};
  for (int64_t b = 0; b < plan.kc_blocks; ++b)
    pack_a(w, 0, g.kg, block_start(b), block_start(b + 1) - block_start(b),
           weights + g.kg * block_start(b));
  // The panel: small and aligned, so a per-thread buffer kept for later calls.
  thread_local Scratch panel_buffer;
  const int64_t kc_max = (g.crs_g + plan.kc_blocks - 1) / plan.kc_blocks;
  float* panel = panel_buffer.get(static_cast<size_t>(kNR * kc_max));
  const float* bias = a.bias ? a.bias + grp * g.kg : nullptr;
  float* y = a.y + grp * g.kg * g.ohw;
  const int64_t chunk_panels = std::max<int64_t>(1, plan.chunk_images * plan.span / kNR);
  for (int64_t c0 = first; c0 < last; c0 += chunk_panels) {
    const int64_t c1 = std::min(last, c0 + chunk_panels);
    const int64_t img0 = c0 * kNR / plan.span,
                  img1 = std::min(g.n, (std::min(c1 * kNR, plan.columns) - 1) / plan.span + 1);
    build_planes(plan, a.x + (img0 * g.c + grp * g.cg) * g.hw, img1 - img0, planes);
    std::fill(planes + (img1 - img0) * plan.image, planes + (img1 - img0) * plan.image + 32, 0.0f);
    for (int64_t j = c0 * kNR; j < c1 * kNR; j += kNR) {
      PanelVector vec[kNV];
      TileOut out{{}, {}, g.ohw, nullptr};
      for (int v = 0; v < kNV; ++v) {
        const int64_t col = j + 16 * v, img = col / plan.span, q0 = col % plan.span;
        const VectorPattern* pattern = col < plan.columns ? &plan.patterns[q0 / 16] : nullptr;
        vec[v] = {pattern ? planes + (img - img0) * plan.image + plan.pixel[q0 / 16] : nullptr,
                  pattern, pattern ? y + img * g.k * g.ohw + q0 : y};
        out.mask[v] = pattern ? pattern->lanes : __mmask16(0);
      }
      for (int64_t b = 0; b < plan.kc_blocks; ++b) {
        const int64_t p0 = block_start(b), kc = block_start(b + 1) - p0;
        fill_panel(plan, vec, p0, kc, panel);
        // The first k block writes the tile and adds the bias; later ones add to it.
        for (int64_t i0 = 0; i0 < g.kg; i0 += kMR) {
          const int64_t mr = std::min<int64_t>(kMR, g.kg - i0);
          for (int v = 0; v < kNV; ++v) out.col[v] = vec[v].out + i0 * g.ohw;
          out.row_add = bias && b == 0 ? bias + i0 : nullptr;
          kKernels[mr - 1](kc, weights + g.kg * p0 + i0 * kc, panel, out, 1.0f,
                           b == 0 ? 0.0f : 1.0f);
        }
      }
      if (relu)  // the panel's outputs are complete and still in L1/L2
        for (int v = 0; v < kNV; ++v) {
          if (!out.mask[v]) continue;
          for (int64_t i = 0; i < g.kg; ++i) {
            float* row = vec[v].out + i * g.ohw;
            _mm512_mask_storeu_ps(
                row, out.mask[v],
                conv_detail::relu_ps(_mm512_maskz_loadu_ps(out.mask[v], row)));
          }
        }
    }
  }
}

}  // namespace

bool conv_implicit_gemm_available() { return true; }

bool conv_implicit_gemm_preferred(const ConvParams& p) {
  const Sizes sizes{ConvShape(p)};
  return 8 * sizes.g.ohw >= 7 * sizes.span && sizes.image <= kChunkFloats;
}

void conv_implicit_gemm_forward(const ConvParams& p, const ConvForwardArgs<float>& a) {
  const Plan plan{ConvShape(p)};
  const ConvShape& g = plan.g;
  // About a million multiply-adds per thread before another thread pays for waking up.
  const int64_t macs = g.n * g.k * g.ohw * g.crs_g;
  int64_t parts =
      std::min<int64_t>({get_num_threads(), plan.panels, std::max<int64_t>(1, macs >> 20)});
  if (ember::detail::in_parallel_region()) parts = 1;
  // From the caching allocator, so large problems do not leave large buffers behind.
  const int64_t scratch_floats = part_scratch_floats(plan);
  const Tensor scratch = conv_detail::scratch<float>(parts * scratch_floats);
  const auto run_part = [&](int64_t part) {
    const int64_t first = plan.panels * part / parts, last = plan.panels * (part + 1) / parts;
    float* own = scratch.data_ptr<float>() + part * scratch_floats;
    for (int64_t grp = 0; grp < g.groups; ++grp)
      run_panels(plan, a, p.relu, grp, first, last, own);
  };
  if (parts == 1) return run_part(0);
  parallel_for(0, parts, 1, [&](int64_t begin, int64_t end) {
    for (int64_t part = begin; part < end; ++part) run_part(part);
  });
}

#elif !(defined(__AVX2__) && defined(__FMA__))
// Neither AVX-512 nor AVX2 in this build (with AVX2 alone, conv_implicit_gemm_avx2.cpp has
// the algorithm).

bool conv_implicit_gemm_available() { return false; }

bool conv_implicit_gemm_preferred(const ConvParams&) { return false; }

void conv_implicit_gemm_forward(const ConvParams&, const ConvForwardArgs<float>&) {
  EMBER_ERROR("conv2d: this build has no implicit GEMM (compile with -mavx512f or -mavx2 -mfma)");
}

#endif

}  // namespace ember::cpu
