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

#include "ember/kernels/cpu/conv_util.h"
#include "ember/kernels/cpu/gemm_blocking.h"
#include "ember/kernels/cpu/sgemm_avx2_tile.h"
#endif

namespace ember::cpu {

#if !defined(__AVX512F__) && defined(__AVX2__) && defined(__FMA__)
namespace {

using conv_detail::ConvShape;
using namespace sgemm_avx2_detail;

constexpr int64_t kLanes = 8;  // pixels per vector
// Depth of a k block: the reduction is cut into near-equal blocks of at most this many rows,
// so a panel (kc x 16 floats) stays in L1.
constexpr int64_t kMaxKc = 256;
// Phase planes of a chunk of images, in floats: the chunk's planes stay in L2 (next to the
// packed weights) while its panels are filled.
constexpr int64_t kChunkFloats = int64_t(1) << 16;
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
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(src)), _mm_loadu_ps(src + p.half),
                                1);
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

// A problem's phase planes, columns and blocks.
struct Sizes {
  ConvShape g;
  int64_t hq, wq, plane, channel, image;  // phase planes: channel = sh*sw planes, image = Cg
  int64_t span, columns, panels, kc_blocks, chunk_images;

  explicit Sizes(const ConvShape& shape)
      : g(shape), hq((g.h + 2 * g.ph + g.sh - 1) / g.sh), wq((g.w + 2 * g.pw + g.sw - 1) / g.sw),
        plane(hq * wq), channel(g.sh * g.sw * plane), image(g.cg * channel),
        span((g.ohw + kLanes - 1) / kLanes * kLanes), columns(g.n * span),
        panels((columns + kNR - 1) / kNR), kc_blocks((g.crs_g + kMaxKc - 1) / kMaxKc),
        chunk_images(std::max<int64_t>(1, kChunkFloats / image)) {}
};

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
      : Sizes(shape), short_rows(g.w <= 2 * kLanes && wq <= 2 * kLanes && g.sw <= kMaxStride) {
    thread_local std::vector<int64_t> rows, pixels;
    thread_local std::vector<VectorPattern> vector_patterns;
    rows.clear(), pixels.clear(), vector_patterns.clear();
    for (int64_t c = 0; c < g.cg; ++c)
      for (int64_t r = 0; r < g.r; ++r)
        for (int64_t s = 0; s < g.s; ++s)
          rows.push_back(c * channel + (r * g.dh % g.sh * g.sw + s * g.dw % g.sw) * plane +
                         r * g.dh / g.sh * wq + s * g.dw / g.sw);
    const auto offset = [&](int64_t q) { return q / g.ow * wq + q % g.ow; };
    for (int64_t q0 = 0; q0 < span; q0 += kLanes) {
      int32_t lane_offsets[kLanes] = {};
      const int64_t count = std::min(kLanes, g.ohw - q0);
      for (int l = 0; l < count; ++l)
        lane_offsets[l] = static_cast<int32_t>(offset(q0 + l) - offset(q0));
      vector_patterns.push_back(make_pattern(lane_offsets, count));
      pixels.push_back(offset(q0));
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

// The phase planes of `images` images of one group (x: the group's first channel of the
// first image) into dst (images * plan.image floats).
void build_planes(const Plan& plan, const float* x, int64_t images, float* dst) {
  const ConvShape& g = plan.g;
  for (int64_t img = 0; img < images; ++img) {
    for (int64_t c = 0; c < g.cg; ++c) {
      const float* in = x + (img * g.c + c) * g.hw;
      float* out_channel = dst + (img * g.cg + c) * plan.channel;
      // The rows of each phase that no input row fills: the padding above and below.
      for (int64_t a = 0; a < g.sh; ++a) {
        const auto [first, last] = conv_detail::valid_range(plan.hq, g.h, g.sh, a - g.ph);
        for (int64_t b = 0; b < g.sw; ++b) {
          float* phase = out_channel + (a * g.sw + b) * plan.plane;
          std::fill(phase, phase + first * plan.wq, 0.0f);
          std::fill(phase + last * plan.wq, phase + plan.plane, 0.0f);
        }
      }
      int64_t a = g.ph % g.sh, row = g.ph / g.sh;  // padded row ih + ph: phase a, row `row`
      for (int64_t ih = 0; ih < g.h; ++ih) {
        const float* src = in + ih * g.w;
        float* out = out_channel + a * g.sw * plan.plane + row * plan.wq;
        if (++a == g.sh) a = 0, ++row;
        if (plan.short_rows) {
          split_short_row(plan, src, out);
          continue;
        }
        for (int64_t b = 0; b < g.sw; ++b) {
          const auto [lo, hi] = conv_detail::valid_range(plan.wq, g.w, g.sw, b - g.pw);
          float* o = out + b * plan.plane;
          std::fill(o, o + lo, 0.0f);
          conv_detail::copy_strided(o + lo, src + lo * g.sw + b - g.pw, hi - lo, g.sw);
          std::fill(o + hi, o + plan.wq, 0.0f);
        }
      }
    }
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

// A thread's scratch: the group's w packed block by block (block b starts at kg * p0(b)),
// and a chunk's planes. Its first and last images may be shared with the neighbouring
// chunks (whose planes are then built twice), hence chunk_images + 1, and kSlack floats for
// the window reads past the last plane.
int64_t part_scratch_floats(const Plan& plan) {
  return plan.g.kg * plan.g.crs_g + (plan.chunk_images + 1) * plan.image + kSlack;
}

// relu of 8 floats: max(0, x) keeps a NaN x, as relu, because vmaxps returns its second
// operand when either is NaN.
inline __m256 relu_ps(__m256 x) { return _mm256_max_ps(_mm256_setzero_ps(), x); }

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
  thread_local gemm_blocking::Scratch panel_buffer;
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
    std::fill(planes + (img1 - img0) * plan.image,
              planes + (img1 - img0) * plan.image + kSlack, 0.0f);
    // Column j is pixel q of image img (span a multiple of 8: a vector is in one image).
    int64_t img = c0 * kNR / plan.span, q = c0 * kNR % plan.span;
    for (int64_t j = c0 * kNR; j < c1 * kNR; j += kNR) {
      PanelVector vec[kNV];
      TileOut out{{}, {}, g.ohw, nullptr};
      for (int v = 0; v < kNV; ++v, q += kLanes) {
        if (q == plan.span) q = 0, ++img;
        const int64_t q0 = q;
        const bool inside = img < g.n;
        vec[v] = {inside ? planes + (img - img0) * plan.image + plan.pixel[q0 / kLanes] : nullptr,
                  inside ? &plan.patterns[q0 / kLanes] : nullptr,
                  inside ? y + img * g.k * g.ohw + q0 : y};
        out.lanes[v] = inside ? std::min(kLanes, g.ohw - q0) : 0;
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
        for (int v = 0; v < kNV; ++v)
          for (int64_t i = 0; out.lanes[v] > 0 && i < g.kg; ++i) {
            float* row = vec[v].out + i * g.ohw;
            avx2::store_lanes(row, out.lanes[v], relu_ps(avx2::load_lanes(row, out.lanes[v])));
          }
    }
  }
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
  const Sizes sizes{ConvShape(p)};
  const ConvShape& g = sizes.g;
  return g.ohw == sizes.span && g.r * g.s > 1 && g.cg >= kMinChannels &&
         sizes.image <= kChunkFloats;
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

#endif

}  // namespace ember::cpu
