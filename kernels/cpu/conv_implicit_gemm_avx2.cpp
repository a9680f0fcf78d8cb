// Implicit GEMM on CPUs with AVX2 and FMA but no AVX-512: the forward of
// conv_implicit_gemm.cpp (its header says what the algorithm is; Note [Phase
// planes] there says how the panels are read) on the AVX2 GEMM's 6 x 16
// register tile (sgemm_avx2_tile.h). The differences come from the narrower
// vectors: a vector holds 8 pixels, so an image's columns are OH*OW rounded up
// to 8 (its span), and a panel's two vectors are read by the cheapest load
// their pixels allow (VectorPattern), as AVX2 has no two-register permute.
// Where the build has AVX-512, conv_implicit_gemm.cpp provides the algorithm
// and this file is empty.
#include "ember/kernels/cpu/conv.h"

#include "ember/core/error.h"

#if !defined(__AVX512F__) && defined(__AVX2__) && defined(__FMA__)
#include <vector>

#include "ember/kernels/cpu/conv_implicit_gemm_plan.h"
#include "ember/kernels/cpu/sgemm_avx2_tile.h"
#endif

namespace ember::cpu {

#if !defined(__AVX512F__) && defined(__AVX2__) && defined(__FMA__)
namespace {

using conv_detail::ConvShape;
using implicit_gemm::Sizes;
using namespace sgemm_avx2_detail;

constexpr int64_t kLanes = 8;  // pixels per vector
// Depth of a k block: the reduction is cut into near-equal blocks of at most this many rows
// (a panel of up to 36 KiB, in L1 and L2). Every block after the first reads and writes the
// tile again: one block for the sample model's 288 and 576 rows measured faster than blocks
// of at most 256 (batch 64, 1 thread, medians of 60, ms: 32x16x16->64 2.08-2.10 against
// 2.19-2.27; 64x8x8->128 1.94-1.99 against 2.04-2.14; blocks of 384 in between).
constexpr int64_t kMaxKc = 576;
// A window read loads 16 floats from a vector's first pixel: floats past the last plane.
constexpr int64_t kSlack = 16;
// Fewer input channels take the direct forward (conv_algo_heuristic.cpp).
constexpr int64_t kMinChannels = 5;
// Strides up to this split input rows of up to 16 floats with permutes.
constexpr int64_t kMaxStride = 4;

// How the 8 pixels of a vector read the planes, from the cheapest: one load (a row of 8+
// outputs), two 4-float loads (rows of 4 outputs, the sample model's last layer), two loads
// and a permute of each (every offset < 16), a gather.
enum class Read { kRun, kHalves, kWindow, kGather };

// The read pattern of the 8 pixels [q0, q0 + 8) of a span: offsets from pixel q0's, which
// lanes are pixels (q < OH*OW), and the cheapest read that gets them.
struct VectorPattern {
  __m256i offsets;
  __m256i high;   // kWindow: lanes whose offset is 8 or more (from the second load)
  __m256i lanes;  // all ones in the lanes that are pixels
  int64_t half;   // kHalves: the offset of the upper four lanes
  Read read;
};

VectorPattern make_pattern(const int32_t (&offsets)[kLanes], int64_t count) {
  alignas(32) int32_t high[kLanes] = {}, lanes[kLanes] = {};
  bool run = count == kLanes, halves = count == kLanes, window = true;
  for (int l = 0; l < kLanes; ++l) {
    if (l >= count) continue;
    lanes[l] = -1;
    high[l] = offsets[l] >= kLanes ? -1 : 0;
    run = run && offsets[l] == l;
    halves = halves && offsets[l] == offsets[l & 4] + (l & 3);
    window = window && offsets[l] < 2 * kLanes;
  }
  VectorPattern p;
  p.offsets = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(offsets));
  p.high = _mm256_load_si256(reinterpret_cast<const __m256i*>(high));
  p.lanes = _mm256_load_si256(reinterpret_cast<const __m256i*>(lanes));
  p.half = offsets[4];
  p.read = run ? Read::kRun : halves ? Read::kHalves : window ? Read::kWindow : Read::kGather;
  return p;
}

// The 8 pixels of pattern p whose first pixel reads src (lanes past the pixels zero).
template <Read R>
inline __m256 read_vector(const VectorPattern& p, const float* src) {
  if constexpr (R == Read::kRun) {
    return _mm256_loadu_ps(src);
  } else if constexpr (R == Read::kHalves) {
    const __m128 low = _mm_loadu_ps(src), high = _mm_loadu_ps(src + p.half);
    return _mm256_insertf128_ps(_mm256_castps128_ps256(low), high, 1);
  } else if constexpr (R == Read::kWindow) {
    const __m256 lo = _mm256_permutevar8x32_ps(_mm256_loadu_ps(src), p.offsets);
    const __m256 hi = _mm256_permutevar8x32_ps(_mm256_loadu_ps(src + kLanes), p.offsets);
    return _mm256_and_ps(_mm256_blendv_ps(lo, hi, _mm256_castsi256_ps(p.high)),
                         _mm256_castsi256_ps(p.lanes));
  } else {
    return _mm256_mask_i32gather_ps(_mm256_setzero_ps(), src, p.offsets,
                                    _mm256_castsi256_ps(p.lanes), 4);
  }
}

// Everything the threads share: the sizes, offset tables and read patterns. The tables live
// in thread_local storage of the thread that made the plan, so a steady stream of calls
// allocates nothing; the workers read them through the pointers.
struct Plan : Sizes {
  const int64_t* row;             // (Cg*R*S): offset of a row (c, r, s) in an image's planes
  const int64_t* pixel;           // (span / 8): offset of pixel q0 = 8 * index
  const VectorPattern* patterns;  // (span / 8)
  // Input rows of at most 16 floats, phases of at most 16 (short_rows): per column phase b
  // and vector u of its row, the input column of each element (lane index and whether it
  // lies in the upper 8 floats) and the elements whose column is inside the row.
  bool short_rows;
  struct PhaseLanes {
    __m256i index, high, inside;
  } phase_lanes[kMaxStride][2];

  explicit Plan(const ConvShape& shape)
      : Sizes(shape, kLanes, kNR, kMaxKc),
        short_rows(g.w <= 2 * kLanes && wq <= 2 * kLanes && g.sw <= kMaxStride) {
    thread_local std::vector<int64_t> rows, pixels;
    thread_local std::vector<VectorPattern> vector_patterns;
    implicit_gemm::row_offsets(*this, rows);
    pixels.clear(), vector_patterns.clear();
    for (int64_t q0 = 0; q0 < span; q0 += kLanes) {
      int32_t lane_offsets[kLanes] = {};
      const int64_t count = std::min(kLanes, g.ohw - q0);
      for (int l = 0; l < count; ++l)
        lane_offsets[l] = static_cast<int32_t>(pixel_offset(q0 + l) - pixel_offset(q0));
      vector_patterns.push_back(make_pattern(lane_offsets, count));
      pixels.push_back(pixel_offset(q0));
    }
    row = rows.data(), pixel = pixels.data(), patterns = vector_patterns.data();
    for (int64_t b = 0; short_rows && b < g.sw; ++b)
      for (int64_t u = 0; u < 2; ++u) {
        alignas(32) int32_t index[kLanes], high[kLanes], inside[kLanes];
        for (int64_t l = 0; l < kLanes; ++l) {
          const int64_t j = u * kLanes + l, column = j * g.sw + b - g.pw;
          index[l] = static_cast<int32_t>(column & (kLanes - 1));
          high[l] = column >= kLanes ? -1 : 0;
          inside[l] = j < wq && column >= 0 && column < g.w ? -1 : 0;
        }
        const auto load = [](const int32_t* v) {
          return _mm256_load_si256(reinterpret_cast<const __m256i*>(v));
        };
        phase_lanes[b][u] = {load(index), load(high), load(inside)};
      }
  }
};

// One input row of plan.g.w <= 16 floats split into its sw column phases, each wq floats
// written at out + b * plan.plane: two loads, then per phase two permutes of each.
void split_short_row(const Plan& plan, const float* src, float* out) {
  const int64_t w = plan.g.w, wq = plan.wq;
  const __m256 lo = avx2::load_lanes(src, w);
  const __m256 hi = w > kLanes ? avx2::load_lanes(src + kLanes, w - kLanes) : _mm256_setzero_ps();
  for (int64_t b = 0; b < plan.g.sw; ++b)
    for (int64_t u = 0; u * kLanes < wq; ++u) {
      const Plan::PhaseLanes& l = plan.phase_lanes[b][u];
      const __m256 x = _mm256_blendv_ps(_mm256_permutevar8x32_ps(lo, l.index),
                                        _mm256_permutevar8x32_ps(hi, l.index),
                                        _mm256_castsi256_ps(l.high));
      avx2::store_lanes(out + b * plan.plane + u * kLanes, wq - u * kLanes,
                        _mm256_and_ps(x, _mm256_castsi256_ps(l.inside)));
    }
}

// One 8-column vector of a panel: where its pixels' reads start in the planes, its read
// pattern (null past the last image), and where its outputs go (the group's first output
// channel).
struct PanelVector {
  const float* src;
  const VectorPattern* pattern;
  float* out;
};

// Rows [0, kc) of a panel whose two vectors read by R, at the plane offsets `row`.
template <Read R>
void fill_rows(const PanelVector (&vec)[kNV], const int64_t* row, int64_t kc, float* dst) {
  const VectorPattern p0 = *vec[0].pattern, p1 = *vec[1].pattern;
  const float* src0 = vec[0].src;
  const float* src1 = vec[1].src;
  for (int64_t p = 0; p < kc; ++p) {
    _mm256_store_ps(dst + p * kNR, read_vector<R>(p0, src0 + row[p]));
    _mm256_store_ps(dst + p * kNR + kLanes, read_vector<R>(p1, src1 + row[p]));
  }
}

inline __m256 read_any(const VectorPattern& p, const float* src) {
  switch (p.read) {
    case Read::kRun: return read_vector<Read::kRun>(p, src);
    case Read::kHalves: return read_vector<Read::kHalves>(p, src);
    case Read::kWindow: return read_vector<Read::kWindow>(p, src);
    case Read::kGather: break;
  }
  return read_vector<Read::kGather>(p, src);
}

// Rows [p0, p0 + kc) of the panel whose vectors are `vec` into dst (kc x kNR floats):
// dst[p * kNR + 8 v + lane] = col(p0 + p, the lane's column).
void fill_panel(const Plan& plan, const PanelVector (&vec)[kNV], int64_t p0, int64_t kc,
                float* dst) {
  static_assert(kNV == 2, "fill_panel reads two vectors");
  const int64_t* row = plan.row + p0;
  const VectorPattern* first = vec[0].pattern;
  const VectorPattern* second = vec[1].pattern;
  if (first && second && first->read == second->read) {
    // The usual case: both vectors read alike; their patterns stay in registers.
    switch (first->read) {
      case Read::kRun: return fill_rows<Read::kRun>(vec, row, kc, dst);
      case Read::kHalves: return fill_rows<Read::kHalves>(vec, row, kc, dst);
      case Read::kWindow: return fill_rows<Read::kWindow>(vec, row, kc, dst);
      case Read::kGather: return fill_rows<Read::kGather>(vec, row, kc, dst);
    }
  }
  for (int64_t p = 0; p < kc; ++p)
    for (int v = 0; v < kNV; ++v)
      _mm256_store_ps(dst + p * kNR + kLanes * v,
                      vec[v].pattern ? read_any(*vec[v].pattern, vec[v].src + row[p])
                                     : _mm256_setzero_ps());
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
    // Column j is pixel q of image img (span a multiple of 8: a vector is in one image).
    int64_t img = j / plan.span, q = j % plan.span;
    for (int v = 0; v < kNV; ++v, q += kLanes) {
      if (q == plan.span) q = 0, ++img;
      const int64_t q0 = q;
      const bool inside = img < g.n;
      const float* src = in.planes + (img - in.img0) * plan.image + plan.pixel[q0 / kLanes];
      vec[v] = {inside ? src : nullptr, inside ? &plan.patterns[q0 / kLanes] : nullptr,
                inside ? y + img * g.k * g.ohw + q0 : y};
      out.lanes[v] = inside ? std::min(kLanes, g.ohw - q0) : 0;
    }
    float* const vec_out[kNV] = {vec[0].out, vec[1].out};
    implicit_gemm::panel_product<kMR>(plan, in, bias, vec_out, out, kKernels,
                                      [&](int64_t p0, int64_t kc, float* dst) {
                                        fill_panel(plan, vec, p0, kc, dst);
                                      });
    if (relu)  // the panel's outputs are complete and still in L1/L2
      for (int v = 0; v < kNV; ++v)
        for (int64_t i = 0; out.lanes[v] > 0 && i < g.kg; ++i) {
          float* row = vec[v].out + i * g.ohw;
          avx2::store_lanes(row, out.lanes[v],
                            conv_detail::relu_ps(avx2::load_lanes(row, out.lanes[v])));
        }
  });
}

}  // namespace

bool conv_implicit_gemm_available() { return true; }

// Measured (conv_bench, batch 64, 2 threads, two runs, ms; docs/benchmarks.md) against the
// algorithm the heuristic takes otherwise: it wins on 16x16 inputs (32x16x16->64: 1.14-1.59
// vs 1.66-1.84 channels-last) and ties on 8x8 ones (64x8x8->128: 1.04-1.12 vs 1.07-1.11),
// where every vector is full: it takes both. It ties on 7x7 outputs too (an image's last
// vector 1 pixel of 8: 1.20-1.49 vs 1.44-1.52), where the channels-last unfold stays; it
// loses on a 1x1 layer (256x7x7->64: 1.20-1.40 vs 1.00-1.47 for the plain GEMM; one
// thread, 2.7 vs 2.0) and ties with the direct forward on 3 channels (0.33 vs 0.31).
bool conv_implicit_gemm_preferred(const ConvParams& p) {
  const Sizes sizes{ConvShape(p), kLanes, kNR, kMaxKc};
  const ConvShape& g = sizes.g;
  return g.ohw == sizes.span && g.r * g.s > 1 && g.cg >= kMinChannels &&
         sizes.image <= implicit_gemm::kChunkFloats;
}

void conv_implicit_gemm_forward(const ConvParams& p, const ConvForwardArgs<float>& a) {
  const Plan plan{ConvShape(p)};
  implicit_gemm::run_parts(plan, plan.part_scratch_floats(kSlack),
                           [&](int64_t grp, int64_t first, int64_t last, float* scratch) {
                             run_panels(plan, a, p.relu, grp, first, last, scratch);
                           });
}

#endif

}  // namespace ember::cpu
