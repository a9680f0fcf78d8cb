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

#include "ember/kernels/cpu/conv_implicit_gemm_plan.h"
#include "ember/kernels/cpu/sgemm_avx512_tile.h"
#endif

namespace ember::cpu {

#if defined(__AVX512F__)
namespace {

using conv_detail::ConvShape;
using implicit_gemm::Sizes;
using namespace sgemm_detail;

// Depth of a k block: the reduction is cut into near-equal blocks of at most
// this many rows, so a panel (kc x 32 floats) stays in L1 and L2.
constexpr int64_t kMaxKc = 384;
// A window read loads 32 floats from a vector's first pixel: floats past the last plane.
constexpr int64_t kSlack = 32;
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
      : Sizes(shape, 16, kNR, kMaxKc), short_rows(g.w <= 32 && wq <= 16 && g.sw <= kMaxStride) {
    thread_local std::vector<int64_t> rows, pixels;
    thread_local std::vector<VectorPattern> vector_patterns;
    implicit_gemm::row_offsets(*this, rows);
    pixels.clear(), vector_patterns.clear();
    for (int64_t q0 = 0; q0 < span; q0 += 16) {
      alignas(64) int32_t lane_offsets[16] = {};
      VectorPattern pattern{{}, 0, true};
      for (int l = 0; l < 16 && q0 + l < g.ohw; ++l) {
        lane_offsets[l] = static_cast<int32_t>(pixel_offset(q0 + l) - pixel_offset(q0));
        pattern.lanes |= __mmask16(1u << l);
        pattern.window = pattern.window && lane_offsets[l] < 32;
      }
      pattern.offsets = _mm512_load_si512(lane_offsets);
      vector_patterns.push_back(pattern);
      pixels.push_back(q0 < g.ohw ? pixel_offset(q0) : 0);
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

// One input row of plan.g.w <= 32 floats split into its sw column phases, each wq floats
// written at out + b * plan.plane: two loads, then per phase one permute and one store.
void split_short_row(const Plan& plan, const float* src, float* out) {
  const int64_t w = plan.g.w, plane = plan.plane;
  const __mmask16 row_lanes = low_mask(plan.wq);
  const __m512 lo = _mm512_maskz_loadu_ps(low_mask(w), src);
  const __m512 hi = _mm512_maskz_loadu_ps(low_mask(w - 16), src + 16);
  for (int64_t b = 0; b < plan.g.sw; ++b)
    _mm512_mask_storeu_ps(out + b * plane, row_lanes,
                          _mm512_maskz_permutex2var_ps(plan.inside[b], lo, plan.index[b], hi));
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

// Panels [first, last) of group grp, on the calling thread, with `scratch`
// (part_scratch_floats(kSlack)) to itself; ReLU on each finished panel when relu is set.
void run_panels(const Plan& plan, const ConvForwardArgs<float>& a, bool relu, int64_t grp,
                int64_t first, int64_t last, float* scratch) {
  const ConvShape& g = plan.g;
  const float* bias = a.bias ? a.bias + grp * g.kg : nullptr;
  float* y = a.y + grp * g.kg * g.ohw;
  const auto split_row = [&](const float* src, float* out) { split_short_row(plan, src, out); };
  implicit_gemm::run_group(plan, a.x, a.w + grp * g.kg * g.crs_g, grp, first, last, scratch, kSlack,
                           plan.short_rows, &pack_a, split_row,
                           [&](int64_t j, const implicit_gemm::PanelInputs& in) {
    PanelVector vec[kNV];
    TileOut out{{}, {}, g.ohw, nullptr};
    for (int v = 0; v < kNV; ++v) {
      const int64_t col = j + 16 * v, img = col / plan.span, q0 = col % plan.span;
      const VectorPattern* pattern = col < plan.columns ? &plan.patterns[q0 / 16] : nullptr;
      vec[v] = {pattern ? in.planes + (img - in.img0) * plan.image + plan.pixel[q0 / 16] : nullptr,
                pattern, pattern ? y + img * g.k * g.ohw + q0 : y};
      out.mask[v] = pattern ? pattern->lanes : __mmask16(0);
    }
    float* const vec_out[kNV] = {vec[0].out, vec[1].out};
    implicit_gemm::panel_product<kMR>(plan, in, bias, vec_out, out, kKernels,
                                      [&](int64_t p0, int64_t kc, float* dst) {
                                        fill_panel(plan, vec, p0, kc, dst);
                                      });
    if (relu)  // the panel's outputs are complete and still in L1/L2
      for (int v = 0; v < kNV; ++v) {
        if (!out.mask[v]) continue;
        for (int64_t i = 0; i < g.kg; ++i) {
          float* row = vec[v].out + i * g.ohw;
          _mm512_mask_storeu_ps(row, out.mask[v],
                                conv_detail::relu_ps(_mm512_maskz_loadu_ps(out.mask[v], row)));
        }
      }
  });
}

}  // namespace

bool conv_implicit_gemm_available() { return true; }

bool conv_implicit_gemm_preferred(const ConvParams& p) {
  const Sizes sizes{ConvShape(p), 16, kNR, kMaxKc};
  return 8 * sizes.g.ohw >= 7 * sizes.span && sizes.image <= implicit_gemm::kChunkFloats;
}

void conv_implicit_gemm_forward(const ConvParams& p, const ConvForwardArgs<float>& a) {
  const Plan plan{ConvShape(p)};
  implicit_gemm::run_parts(plan, plan.part_scratch_floats(kSlack),
                           [&](int64_t grp, int64_t first, int64_t last, float* scratch) {
                             run_panels(plan, a, p.relu, grp, first, last, scratch);
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
