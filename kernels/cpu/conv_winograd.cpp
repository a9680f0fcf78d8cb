// Winograd forward for 3x3 convolutions with stride 2 (float32, AVX-512
// builds): 81 multiplications per 4x4 output tile and channel pair instead of
// 144 (Note [Stride-2 Winograd]).
#include "ember/kernels/cpu/conv.h"

#include "ember/core/error.h"

#if defined(__AVX512F__)
// GCC 12's AVX-512 headers make their "undefined" vectors by self-initialisation.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <cstring>
#include <list>
#include <memory>
#include <mutex>
#include <vector>

#include "ember/kernels/cpu/conv_util.h"
#include "ember/kernels/cpu/sgemm_avx512_tile.h"
#endif

namespace ember::cpu {

#if defined(__AVX512F__)
namespace {

using conv_detail::ConvShape;
using namespace sgemm_detail;

// Note [Stride-2 Winograd]
// Split the zero-padded input into its four phases, P_ab[i][j] = x_pad[2i + a][2j + b]. Tap
// (r, s) of output (oh, ow) reads x_pad[2 oh + r][2 ow + s] = P_ab[oh + u][ow + v] with
// r = 2u + a, s = 2v + b, so the stride-2 3x3 convolution is the sum of four stride-1
// correlations: P_00 with the 2x2 kernel of taps (0|2, 0|2), P_01 with 2x1, P_10 with 1x2,
// P_11 with 1x1. Each 2-tap direction uses F(4, 2): 4 outputs from 5 inputs with 5
// multiplications, y = AT [(G g) * (BT d)], from Toom-Cook on the points 0, 1, -1, 2 and
// infinity (AT evaluates a cubic at the points, G the kernel's line; BT is the transposed
// interpolation, its rows scaled by 2, 2, 6, 6, 1 and G's by the inverse); a 1-tap direction
// is the identity on 4 points. Per 4x4 tile and (input, output) channel pair: 25 + 20 + 20 +
// 16 = 81 products where direct convolution has 9 * 16 = 144.
// The products of one transform point t over all channel pairs form one GEMM,
//   M_t (K, columns) = U_t (K, C) @ V_t (C, columns),
// run by the packed GEMM's micro-kernel (sgemm_avx512_tile.h); a column is one (tile,
// image). Vectors run across 16 images, so every transform is plain vector arithmetic:
// the input is first copied to phase planes that hold 16 images per element.
// The matrices (bt_line and at_line spell out their rows):
//   BT = [2 -1 -2 1 0; 0 2 1 -1 0; 0 -2 3 -1 0; 0 -1 0 1 0; 0 2 -1 -2 1]
//   G  = [1/2 0; 1/2 1/2; 1/6 -1/6; 1/6 1/3; 0 1]
//   AT = [1 1 1 1 0; 0 1 -1 2 0; 0 1 1 4 0; 0 1 -1 8 1]
constexpr float kG[5][2] = {{0.5f, 0.0f},
                            {0.5f, 0.5f},
                            {1.0f / 6, -1.0f / 6},
                            {1.0f / 6, 1.0f / 3},
                            {0.0f, 1.0f}};

constexpr int kPoints = 81;
// Output channels per block of the GEMMs (two register tiles).
constexpr int64_t kBlockRows = 2 * kMR;
// Phase ph = 2a + b: its points along rows and columns and its first point index.
constexpr int kRowsOf[4] = {5, 5, 4, 4};
constexpr int kColsOf[4] = {5, 4, 5, 4};
constexpr int kFirstPoint[4] = {0, 25, 45, 65};

struct Plan {
  ConvShape g;
  int64_t th, tw, tiles;      // 4x4 tiles per image
  int64_t hq, wq;             // phase planes per channel: 4 of hq x wq elements
  int64_t lanes;              // vectors of 16 images per group: 2 when tiles is odd
  int64_t group_images;       // 16 * lanes
  int64_t groups;             // of images
  int64_t columns;            // per group: tiles * group_images, a multiple of 32
  // (H*W): an input element's phase plane offset, -1 if no output reads it. In
  // thread_local storage of the thread that made the plan (no allocation per call).
  const int64_t* place;

  explicit Plan(const ConvShape& shape)
      : g(shape), th((g.oh + 3) / 4), tw((g.ow + 3) / 4), tiles(th * tw), hq(4 * th + 1),
        wq(4 * tw + 1), lanes(tiles % 2 == 1 ? 2 : 1), group_images(16 * lanes),
        groups((g.n + group_images - 1) / group_images), columns(tiles * group_images) {
    thread_local std::vector<int64_t> places;
    places.resize(g.hw);
    for (int64_t ih = 0; ih < g.h; ++ih)
      for (int64_t iw = 0; iw < g.w; ++iw) {
        const int64_t r = ih + g.ph, s = iw + g.pw;
        places[ih * g.w + iw] =
            r / 2 < hq && s / 2 < wq ? ((r % 2 * 2 + s % 2) * hq + r / 2) * wq + s / 2 : -1;
      }
    place = places.data();
  }
  int64_t q_floats() const { return 4 * hq * wq * group_images; }  // one channel
  int64_t v_floats() const { return kPoints * g.c * columns; }
  int64_t m_floats() const { return kPoints * std::min<int64_t>(g.k, kBlockRows) * columns; }
};

// U_t (K, C) for every point t, packed as the micro-kernel's a panels (kc = C) at
// u_packed + t*K*C: panels of kMR output channels, element (k, c) of the panel from k0 at
// c * mr + k - k0. Vectors run across a panel's output channels, so each point's values
// for one input channel are one store into the panel.
void transform_weights(const Plan& plan, const float* w, float* u_packed) {
  const ConvShape& g = plan.g;
  const int64_t panels = (g.k + kMR - 1) / kMR;
  parallel_for(0, panels * g.c, 16, [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      const int64_t panel = item / g.c, c = item % g.c;
      const int64_t k0 = panel * kMR, mr = std::min<int64_t>(kMR, g.k - k0);
      const __mmask16 lanes = low_mask(mr);
      // f[j]: tap j (r * 3 + s) of the panel's output channels
      alignas(64) float taps[9][16] = {};
      for (int64_t l = 0; l < mr; ++l)
        for (int j = 0; j < 9; ++j) taps[j][l] = w[((k0 + l) * g.c + c) * 9 + j];
      __m512 f[9];
      for (int j = 0; j < 9; ++j) f[j] = _mm512_load_ps(taps[j]);
      float* out = u_packed + k0 * g.c + c * mr;  // point t at out + t * K * C
      const auto put = [&](int t, __m512 value) {
        _mm512_mask_storeu_ps(out + t * g.k * g.c, lanes, value);
      };
      const auto line = [&](int p, __m512 first, __m512 second) {  // (G g)[p] of a 2-tap line
        return _mm512_fmadd_ps(_mm512_set1_ps(kG[p][0]), first,
                               _mm512_mul_ps(_mm512_set1_ps(kG[p][1]), second));
      };
      // P_00: taps (0|2, 0|2): G g G^T, 5 x 5
      __m512 gg[5][2];
      for (int p = 0; p < 5; ++p)
        for (int v = 0; v < 2; ++v) gg[p][v] = line(p, f[2 * v], f[6 + 2 * v]);
      for (int p = 0; p < 5; ++p)
        for (int q = 0; q < 5; ++q) put(p * 5 + q, line(q, gg[p][0], gg[p][1]));
      // P_01: taps (0|2, 1), 5 x 4; P_10: taps (1, 0|2), 4 x 5; P_11: tap (1, 1), 4 x 4
      for (int p = 0; p < 5; ++p) {
        const __m512 column = line(p, f[1], f[7]), row = line(p, f[3], f[5]);
        for (int i = 0; i < 4; ++i) put(25 + p * 4 + i, column), put(45 + i * 5 + p, row);
      }
      for (int t = 65; t < kPoints; ++t) put(t, f[4]);
    }
  });
}

// Note [Winograd weight cache]
// Transforming the weights writes 81 values per (output, input) channel pair,
// which for 64 -> 128 channels is 2.6 MB per call (3-4% of the sample model's
// training step). In inference forwards (ConvParams::inference) the weights
// usually repeat from call to call, so the transformed weights are kept, with a
// copy of the weights they came from: a call whose weights compare equal, bit
// for bit, reuses them (the comparison reads the weights once, 9x less than the
// transform writes), and any change, in place or not, makes a new entry. The
// few most recent entries are kept, within a bound on their total size.
// Training forwards, whose weights change at every step, transform into
// scratch instead and keep nothing; benchmark mode's timing of them includes
// the transform.
class WeightCache {
 public:
  struct Entry {
    int64_t k, c;
    std::vector<float> weights, packed;
  };

  std::shared_ptr<const Entry> get(const Plan& plan, const float* w) {
    const int64_t k = plan.g.k, c = plan.g.c, count = k * c * 9;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto it = entries_.begin(); it != entries_.end(); ++it) {
        const Entry& e = **it;
        if (e.k == k && e.c == c && std::memcmp(e.weights.data(), w, count * 4) == 0) {
          entries_.splice(entries_.begin(), entries_, it);  // most recent first
          return entries_.front();
        }
      }
    }
    auto entry = std::make_shared<Entry>(Entry{k, c, std::vector<float>(w, w + count),
                                               std::vector<float>(kPoints * k * c)});
    transform_weights(plan, w, entry->packed.data());
    if (floats(*entry) > kMaxFloats) return entry;  // too large to keep
    std::lock_guard<std::mutex> lock(mutex_);
    entries_.push_front(entry);
    int64_t total = 0, kept = 0;
    for (auto it = entries_.begin(); it != entries_.end();) {
      total += floats(**it);
      if (kept < kMaxEntries && total <= kMaxFloats) ++kept, ++it;
      else it = entries_.erase(it);
    }
    return entry;
  }

 private:
  static constexpr int64_t kMaxEntries = 16;
  static constexpr int64_t kMaxFloats = int64_t(1) << 24;  // 64 MiB in all
  static int64_t floats(const Entry& e) {
    return static_cast<int64_t>(e.weights.size() + e.packed.size());
  }
  std::mutex mutex_;
  std::list<std::shared_ptr<Entry>> entries_;
};

WeightCache& weight_cache() {
  static WeightCache cache;
  return cache;
}

// Channel c of the group's images (first image `first`) as phase planes of 16-image
// vectors: q[((phase * hq + i) * wq + j) * lanes + lane] (16 floats each).
void build_planes(const Plan& plan, const float* x, int64_t first, int64_t c, float* q) {
  const ConvShape& g = plan.g;
  const int64_t lanes = plan.lanes;
  std::fill(q, q + plan.q_floats(), 0.0f);
  for (int64_t lane = 0; lane < lanes; ++lane)
    for (int64_t e0 = 0; e0 < g.hw; e0 += 16) {
      const __mmask16 part = low_mask(g.hw - e0);
      __m512 r[16];
      for (int i = 0; i < 16; ++i) {
        const int64_t img = first + lane * 16 + i;
        r[i] = img < g.n ? _mm512_maskz_loadu_ps(part, x + (img * g.c + c) * g.hw + e0)
                         : _mm512_setzero_ps();
      }
      transpose16(r);  // r[e]: element e0 + e of the 16 images
      const int64_t count = std::min<int64_t>(16, g.hw - e0);
      for (int64_t e = 0; e < count; ++e)
        if (plan.place[e0 + e] >= 0)
          _mm512_store_ps(q + (plan.place[e0 + e] * lanes + lane) * 16, r[e]);
    }
}

// BT applied to the 5 vectors x[0], x[s], ..., x[4s] (one line of a tile), in place.
inline void bt_line(__m512* x, int stride) {
  const __m512 x0 = x[0], x1 = x[stride], x2 = x[2 * stride], x3 = x[3 * stride],
               x4 = x[4 * stride];
  const __m512 two = _mm512_set1_ps(2.0f), three = _mm512_set1_ps(3.0f);
  x[0] = _mm512_add_ps(_mm512_fmsub_ps(two, _mm512_sub_ps(x0, x2), x1), x3);  // 2x0-x1-2x2+x3
  x[stride] = _mm512_sub_ps(_mm512_fmadd_ps(two, x1, x2), x3);               // 2x1+x2-x3
  x[2 * stride] = _mm512_sub_ps(_mm512_fnmadd_ps(two, x1, _mm512_mul_ps(three, x2)),
                                x3);                                          // -2x1+3x2-x3
  x[3 * stride] = _mm512_sub_ps(x3, x1);                                      // -x1+x3
  x[4 * stride] =
      _mm512_add_ps(_mm512_sub_ps(_mm512_mul_ps(two, _mm512_sub_ps(x1, x3)), x2), x4);
  //                                                                         2x1-x2-2x3+x4
}

// AT applied to the 5 vectors x[0], x[s], ..., x[4s]: the 4 values y[0], y[t], ..., y[3t].
inline void at_line(const __m512* x, int stride, __m512* y, int y_stride) {
  const __m512 x0 = x[0], x1 = x[stride], x2 = x[2 * stride], x3 = x[3 * stride],
               x4 = x[4 * stride];
  const __m512 sum = _mm512_add_ps(x1, x2), diff = _mm512_sub_ps(x1, x2);
  y[0] = _mm512_add_ps(_mm512_add_ps(x0, sum), x3);                            // x0+x1+x2+x3
  y[y_stride] = _mm512_fmadd_ps(_mm512_set1_ps(2.0f), x3, diff);               // x1-x2+2x3
  y[2 * y_stride] = _mm512_fmadd_ps(_mm512_set1_ps(4.0f), x3, sum);            // x1+x2+4x3
  y[3 * y_stride] = _mm512_add_ps(_mm512_fmadd_ps(_mm512_set1_ps(8.0f), x3, diff), x4);
  //                                                                          x1-x2+8x3+x4
}

// d (rows x cols vectors, row stride 5) -> BT d BT^T in place, BT along each 5-point
// direction (a 4-point direction is the identity).
template <int Rows, int Cols>
void transform_input(__m512 (&d)[5][5]) {
  if constexpr (Rows == 5)
#pragma GCC unroll 5
    for (int j = 0; j < Cols; ++j) bt_line(&d[0][j], 5);
  if constexpr (Cols == 5)
#pragma GCC unroll 5
    for (int i = 0; i < Rows; ++i) bt_line(&d[i][0], 1);
}

// V_t, as the micro-kernel's b panels: column col of point t, channel c at
// v + t * C * columns + (col / 32) * C * 32 + c * 32 + col % 32.
template <int Phase>
void input_phase(const Plan& plan, const float* q, int64_t c, float* v) {
  constexpr int kRows = kRowsOf[Phase], kCols = kColsOf[Phase];
  const ConvShape& g = plan.g;
  const int64_t lanes = plan.lanes;
  for (int64_t ti = 0; ti < plan.th; ++ti)
      for (int64_t tj = 0; tj < plan.tw; ++tj)
        for (int64_t lane = 0; lane < lanes; ++lane) {
          __m512 d[5][5];
          const float* src =
              q + (((Phase * plan.hq + 4 * ti) * plan.wq + 4 * tj) * lanes + lane) * 16;
          for (int i = 0; i < kRows; ++i)
            for (int j = 0; j < kCols; ++j)
              d[i][j] = _mm512_load_ps(src + (i * plan.wq + j) * lanes * 16);
          transform_input<kRows, kCols>(d);
          const int64_t col = (ti * plan.tw + tj) * plan.group_images + lane * 16;
          float* dst = v + (col / 32) * g.c * 32 + c * 32 + col % 32;
          for (int i = 0; i < kRows; ++i)
            for (int j = 0; j < kCols; ++j)
              _mm512_store_ps(dst + (kFirstPoint[Phase] + i * kCols + j) * g.c * plan.columns,
                              d[i][j]);
        }
}

// Output channels [k0, k1) of y for the group's images, from m (the block's M_t: point t's
// rows at m + t * (k1 - k0) * columns): the sum over the phases of AT M_t A, plus the bias, as
// AT (M_00 A + M_01) + M_10 A + M_11 (each transform applied once per line); then ReLU
// when relu is set.
void output_tiles(const Plan& plan, const float* m, int64_t k0, int64_t k1, const float* bias,
                  bool relu, int64_t first, float* y) {
  const ConvShape& g = plan.g;
  const int64_t point = (k1 - k0) * plan.columns;  // floats per point in m
  for (int64_t k = k0; k < k1; ++k)
    for (int64_t ti = 0; ti < plan.th; ++ti)
      for (int64_t tj = 0; tj < plan.tw; ++tj)
        for (int64_t lane = 0; lane < plan.lanes; ++lane) {
          const int64_t col = (ti * plan.tw + tj) * plan.group_images + lane * 16;
          const float* src = m + (k - k0) * plan.columns + col;
          __m512 x[25];
          // z (5 x 4) = M_00 A + M_01
          __m512 z[5][4];
#pragma GCC unroll 5
          for (int p = 0; p < 5; ++p) {
#pragma GCC unroll 5
            for (int q = 0; q < 5; ++q) x[q] = _mm512_loadu_ps(src + (p * 5 + q) * point);
            at_line(x, 1, z[p], 1);
#pragma GCC unroll 4
            for (int j = 0; j < 4; ++j)
              z[p][j] = _mm512_add_ps(z[p][j], _mm512_loadu_ps(src + (25 + p * 4 + j) * point));
          }
          // out (4 x 4) = AT z + M_10 A + M_11 + bias
          __m512 out[4][4];
#pragma GCC unroll 4
          for (int j = 0; j < 4; ++j) at_line(&z[0][j], 4, &out[0][j], 4);
          const __m512 b = _mm512_set1_ps(bias ? bias[k] : 0.0f);
#pragma GCC unroll 4
          for (int i = 0; i < 4; ++i) {
            __m512 row[4];
#pragma GCC unroll 5
            for (int q = 0; q < 5; ++q) x[q] = _mm512_loadu_ps(src + (45 + i * 5 + q) * point);
            at_line(x, 1, row, 1);
#pragma GCC unroll 4
            for (int j = 0; j < 4; ++j)
              out[i][j] = _mm512_add_ps(
                  _mm512_add_ps(out[i][j], row[j]),
                  _mm512_add_ps(_mm512_loadu_ps(src + (65 + i * 4 + j) * point), b));
          }
          // 16 pixels x 16 images -> per image its 4x4 tile, row by row
          __m512 r[16];
#pragma GCC unroll 16
          for (int e = 0; e < 16; ++e)
            r[e] = relu ? conv_detail::relu_ps(out[e / 4][e % 4]) : out[e / 4][e % 4];
          transpose16(r);
          const __mmask8 row_lanes =
              static_cast<__mmask8>(low_mask(std::min<int64_t>(4, g.ow - 4 * tj)));
          const int64_t rows = std::min<int64_t>(4, g.oh - 4 * ti);
          const int64_t images = std::min<int64_t>(16, g.n - first - lane * 16);
          for (int64_t l = 0; l < images; ++l) {
            float* dst = y + (((first + lane * 16 + l) * g.k + k) * g.oh + 4 * ti) * g.ow + 4 * tj;
            const __m512 tile = r[l];
            if (rows > 0) _mm_mask_storeu_ps(dst, row_lanes, _mm512_extractf32x4_ps(tile, 0));
            if (rows > 1)
              _mm_mask_storeu_ps(dst + g.ow, row_lanes, _mm512_extractf32x4_ps(tile, 1));
            if (rows > 2)
              _mm_mask_storeu_ps(dst + 2 * g.ow, row_lanes, _mm512_extractf32x4_ps(tile, 2));
            if (rows > 3)
              _mm_mask_storeu_ps(dst + 3 * g.ow, row_lanes, _mm512_extractf32x4_ps(tile, 3));
          }
        }
}

// One group of images: planes, input transform, 81 GEMMs, output transform.
void run_group(const Plan& plan, const ConvForwardArgs<float>& a, const float* u_packed,
               bool relu, int64_t group, float* scratch) {
  const ConvShape& g = plan.g;
  float* q = scratch;
  float* v = q + plan.q_floats();
  float* m = v + plan.v_floats();
  const int64_t first = group * plan.group_images;
  for (int64_t c = 0; c < g.c; ++c) {  // one channel's planes at a time: they stay in L1/L2
    build_planes(plan, a.x, first, c, q);
    input_phase<0>(plan, q, c, v);
    input_phase<1>(plan, q, c, v);
    input_phase<2>(plan, q, c, v);
    input_phase<3>(plan, q, c, v);
  }
  // A block of output channels at a time: its 81 products stay in L2 until the output
  // transform reads them.
  for (int64_t k0 = 0; k0 < g.k; k0 += kBlockRows) {
    const int64_t k1 = std::min(g.k, k0 + kBlockRows);
    for (int t = 0; t < kPoints; ++t) {
      const float* u = u_packed + t * g.k * g.c;
      const float* vt = v + t * g.c * plan.columns;
      float* mt = m + t * (k1 - k0) * plan.columns;
      for (int64_t j = 0; j < plan.columns; j += kNR) {
        const float* panel = vt + j * g.c;
        for (int64_t i0 = k0; i0 < k1; i0 += kMR) {
          const int64_t mr = std::min<int64_t>(kMR, k1 - i0);
          float* c = mt + (i0 - k0) * plan.columns + j;
          const TileOut out{{c, c + 16}, {__mmask16(0xFFFF), __mmask16(0xFFFF)}, plan.columns,
                            nullptr};
          kKernels[mr - 1](g.c, u + i0 * g.c, panel, out, 1.0f, 0.0f);
        }
      }
    }
    output_tiles(plan, m, k0, k1, a.bias, relu, first, a.y);
  }
}

}  // namespace

bool conv_winograd_applies(const ConvParams& p) {
  return p.dtype == ScalarType::Float && p.groups == 1 && p.r == 3 && p.s == 3 &&
         p.stride[0] == 2 && p.stride[1] == 2 && p.dilation[0] == 1 && p.dilation[1] == 1;
}

// 16+ input channels: the products' reduction is over the channels, and a first layer's
// 1 or 3 leave the micro-kernel idle; transformed weights of at most 16 MiB: larger ones
// stream from memory at every call.
bool conv_winograd_preferred(const ConvParams& p) {
  return conv_winograd_applies(p) && p.inference && p.c >= 16 &&
         kPoints * p.k * p.c <= (int64_t(1) << 22);
}

void conv_winograd_forward(const ConvParams& p, const ConvForwardArgs<float>& a) {
  EMBER_CHECK(conv_winograd_applies(p), "conv2d: the Winograd algorithm takes float32 3x3 "
              "convolutions with stride 2, no dilation and one group, got ", p.key());
  const Plan plan{ConvShape(p)};
  // Inference: the transformed weights are kept for the next call. Training: its
  // weights change at every step, so they are transformed into scratch each time.
  std::shared_ptr<const WeightCache::Entry> weights;
  Tensor transformed;
  const float* u_packed;
  if (p.inference) {
    weights = weight_cache().get(plan, a.w);
    u_packed = weights->packed.data();
  } else {
    transformed = conv_detail::scratch<float>(kPoints * p.k * p.c);
    transform_weights(plan, a.w, transformed.data_ptr<float>());
    u_packed = transformed.data_ptr<float>();
  }
  int64_t parts = std::min<int64_t>(get_num_threads(), plan.groups);
  if (ember::detail::in_parallel_region()) parts = 1;
  const int64_t per_part = plan.q_floats() + plan.v_floats() + plan.m_floats();
  const Tensor scratch = conv_detail::scratch<float>(parts * per_part);
  const auto run_part = [&](int64_t part) {
    float* own = scratch.data_ptr<float>() + part * per_part;
    for (int64_t group = plan.groups * part / parts; group < plan.groups * (part + 1) / parts;
         ++group)
      run_group(plan, a, u_packed, p.relu, group, own);
  };
  if (parts == 1) return run_part(0);
  parallel_for(0, parts, 1, [&](int64_t begin, int64_t end) {
    for (int64_t part = begin; part < end; ++part) run_part(part);
  });
}

#else  // no AVX-512 in this build

bool conv_winograd_applies(const ConvParams&) { return false; }

bool conv_winograd_preferred(const ConvParams&) { return false; }

void conv_winograd_forward(const ConvParams&, const ConvForwardArgs<float>&) {
  EMBER_ERROR("conv2d: this build has no AVX-512 Winograd convolution (compile with -mavx512f)");
}

#endif

}  // namespace ember::cpu
