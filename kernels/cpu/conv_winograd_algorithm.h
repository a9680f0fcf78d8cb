#pragma once
// The stride-2 Winograd forward for 3x3 convolutions (Note [Stride-2 Winograd]), written once
// over an instruction set's traits (conv_winograd_isa.h). conv_winograd.cpp instantiates it
// for the build's widest vectors: 16 images per vector with AVX-512, 8 with AVX2.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "ember/kernels/cpu/conv_util.h"

namespace ember::cpu::winograd {

using conv_detail::ConvShape;

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
// run by the packed GEMM's micro-kernel; a column is one (tile, image). Vectors run across
// the images (Isa::kWidth of them), so every transform is plain vector arithmetic: the input
// is first copied to phase planes that hold a vector of images per element.
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
// The weights' transforms repeat along a 1-tap direction (the identity keeps the tap's one
// value at all 4 points): 25 + 5 + 5 + 1 distinct ones. Point t multiplies U_{kWeightOf[t]}.
constexpr int kWeightPoints = 36;
constexpr auto kWeightOf = [] {
  std::array<int, kPoints> of{};
  for (int t = 0; t < 25; ++t) of[t] = t;                             // P_00: 5 x 5
  for (int p = 0; p < 5; ++p)
    for (int i = 0; i < 4; ++i) of[25 + p * 4 + i] = 25 + p;          // P_01: row p
  for (int i = 0; i < 4; ++i)
    for (int p = 0; p < 5; ++p) of[45 + i * 5 + p] = 30 + p;          // P_10: column p
  for (int t = 65; t < kPoints; ++t) of[t] = 35;                      // P_11
  return of;
}();
// Phase ph = 2a + b: its points along rows and columns and its first point index.
constexpr int kRowsOf[4] = {5, 5, 4, 4};
constexpr int kColsOf[4] = {5, 4, 5, 4};
constexpr int kFirstPoint[4] = {0, 25, 45, 65};

// Floats from one point's V_t (rows x columns) to the next's: one cache line more than the
// matrix, so that the 81 stores of a tile's points fall into different cache sets (at a
// multiple of 4 KiB, as 32 channels x 32 columns are, all of them land in one L1 set).
inline int64_t point_stride(int64_t rows, int64_t columns) { return rows * columns + 16; }

// How a group of images becomes GEMM columns: th x tw tiles of 4x4 per image, each a column
// per image, vectors of kWidth images side by side.
struct Tiling {
  int64_t th, tw, tiles;      // 4x4 tiles per image
  int64_t lanes;              // vectors of images per group: 2 when tiles is odd
  int64_t group_images;       // width * lanes
  int64_t groups;             // of images
  int64_t columns;            // per group: tiles * group_images, a multiple of 2 * width

  Tiling(int64_t tiles_h, int64_t tiles_w, int64_t images, int64_t width)
      : th(tiles_h), tw(tiles_w), tiles(th * tw), lanes(tiles % 2 == 1 ? 2 : 1),
        group_images(width * lanes), groups((images + group_images - 1) / group_images),
        columns(tiles * group_images) {}
};

// The forward: tiles of the output, phase planes of the input.
template <class Isa>
struct Plan : Tiling {
  static constexpr int64_t kWidth = Isa::kWidth;  // images per vector
  // A group's columns fill whole b panels of the micro-kernel.
  static_assert(Isa::kNR == 2 * kWidth);
  // Output channels per block of the GEMMs (two register tiles).
  static constexpr int64_t kBlockRows = 2 * Isa::kMR;

  ConvShape g;
  int64_t hq, wq;             // phase planes per channel: 4 of hq x wq elements
  // (H*W): an input element's phase plane offset, -1 if no output reads it. In
  // thread_local storage of the thread that made the plan (no allocation per call).
  const int64_t* place;

  explicit Plan(const ConvShape& shape)
      : Tiling((shape.oh + 3) / 4, (shape.ow + 3) / 4, shape.n, kWidth), g(shape),
        hq(4 * th + 1), wq(4 * tw + 1) {
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
  int64_t v_floats() const { return kPoints * point_stride(g.c, columns); }
  int64_t m_floats() const { return kPoints * std::min<int64_t>(g.k, kBlockRows) * columns; }
};

// (G g)[p] of a 2-tap kernel line (first, second).
template <class Isa, class V = typename Isa::V>
inline V g_line(int p, V first, V second) {
  return Isa::fma(Isa::set1(kG[p][0]), first, Isa::set1(kG[p][1]) * second);
}

// U_t (R, D) for every distinct point t of the weights (kWeightPoints), packed as the
// micro-kernel's a panels (kc = D) at u_packed + t*R*D: panels of kMR rows, element (row, d)
// of the panel from k0 at d * mr + row - k0. Tap j (3r + s) of (row, d) is
// w[row * row_stride + d * d_stride + j], or of the kernel turned by 180 degrees (tap 8 - j)
// when flip is set. The forward's rows are the output channels and D the input channels; the
// backward-data pass swaps them. Vectors run across a panel's rows, so each point's values
// for one d are one store. A task takes a panel and a block of d, gathers the block's points
// in a local buffer and copies each point's run out whole: stored one d at a time, the pieces
// lie R*D floats apart (32 KiB for 64 -> 128 channels), fall into the same few L2 sets and
// are evicted before the next d fills their lines (the transform took 30% of an AVX2
// training forward of that layer).
template <class Isa>
void transform_weights(int64_t k_count, int64_t c_count, int64_t row_stride, int64_t d_stride,
                       bool flip, const float* w, float* u_packed) {
  using V = typename Isa::V;
  static_assert(Isa::kMR <= Isa::kWidth);
  constexpr int64_t kBlock = std::max<int64_t>(1, 8192 / (kWeightPoints * Isa::kMR));  // 32 KiB
  const int64_t panels = (k_count + Isa::kMR - 1) / Isa::kMR;
  const int64_t blocks = (c_count + kBlock - 1) / kBlock;
  parallel_for(0, panels * blocks, 1, [&](int64_t begin, int64_t end) {
    // point t, channel c: (c - c0) * mr
    alignas(64) float local[kWeightPoints][kBlock * Isa::kMR];
    for (int64_t item = begin; item < end; ++item) {
      const int64_t panel = item / blocks;
      const int64_t c0 = item % blocks * kBlock, c1 = std::min(c_count, c0 + kBlock);
      const int64_t k0 = panel * Isa::kMR, mr = std::min<int64_t>(Isa::kMR, k_count - k0);
      for (int64_t c = c0; c < c1; ++c) {
        // f[j]: tap j (r * 3 + s) of the panel's output channels
        alignas(64) float taps[9][Isa::kWidth] = {};
        for (int64_t l = 0; l < mr; ++l)
          for (int j = 0; j < 9; ++j)
            taps[flip ? 8 - j : j][l] = w[(k0 + l) * row_stride + c * d_stride + j];
        V f[9];
        for (int j = 0; j < 9; ++j) f[j] = Isa::load(taps[j]);
        const auto put = [&](int t, V value) {
          Isa::store_first(local[t] + (c - c0) * mr, mr, value);
        };
        // P_00: taps (0|2, 0|2): G g G^T, 5 x 5
        V gg[5][2];
        for (int p = 0; p < 5; ++p)
          for (int v = 0; v < 2; ++v) gg[p][v] = g_line<Isa>(p, f[2 * v], f[6 + 2 * v]);
        for (int p = 0; p < 5; ++p)
          for (int q = 0; q < 5; ++q) put(p * 5 + q, g_line<Isa>(q, gg[p][0], gg[p][1]));
        // P_01: taps (0|2, 1), G g per row; P_10: taps (1, 0|2), per column; P_11: tap (1, 1)
        for (int p = 0; p < 5; ++p) {
          put(kWeightOf[25 + p * 4], g_line<Isa>(p, f[1], f[7]));
          put(kWeightOf[45 + p], g_line<Isa>(p, f[3], f[5]));
        }
        put(kWeightOf[65], f[4]);
      }
      for (int t = 0; t < kWeightPoints; ++t)
        std::copy_n(local[t], (c1 - c0) * mr,
                    u_packed + t * k_count * c_count + k0 * c_count + c0 * mr);
    }
  });
}

// The forward's U_t (K, C) from weights (K, C, 3, 3) (a WeightCache::Transform).
template <class Isa>
void transform_forward_weights(int64_t k_count, int64_t c_count, const float* w, float* u) {
  transform_weights<Isa>(k_count, c_count, c_count * 9, 9, false, w, u);
}

// Planes of image vectors and the NCHW tensor they are built from or stored to: element e
// of an image's (hw) plane sits at plane offset place[e] (-1: in no plane), a vector per
// offset and lane: q[(place[e] * lanes + lane) * kWidth + image in the lane].
struct PlaneMap {
  int64_t images, channels, hw;
  const int64_t* place;
  int64_t lanes;
};

// Channel c of the group's images (first image `first`) of x (images, channels, hw) into
// the planes q. Only the elements an element of x lands on are written, the same ones for
// every channel and group: the padding's zeros are written once, by the caller.
template <class Isa>
void build_planes(const PlaneMap& map, const float* x, int64_t first, int64_t c, float* q) {
  using V = typename Isa::V;
  constexpr int64_t kWidth = Isa::kWidth;
  for (int64_t lane = 0; lane < map.lanes; ++lane)
    for (int64_t e0 = 0; e0 < map.hw; e0 += kWidth) {
      V r[kWidth];
      for (int64_t i = 0; i < kWidth; ++i) {
        const int64_t img = first + lane * kWidth + i;
        r[i] = img < map.images
                   ? Isa::load_first(x + (img * map.channels + c) * map.hw + e0, map.hw - e0)
                   : Isa::set1(0.0f);
      }
      Isa::transpose(r);  // r[e]: element e0 + e of the images
      const int64_t count = std::min<int64_t>(kWidth, map.hw - e0);
      for (int64_t e = 0; e < count; ++e)
        if (map.place[e0 + e] >= 0)
          Isa::store(q + (map.place[e0 + e] * map.lanes + lane) * kWidth, r[e]);
    }
}

// BT applied to the 5 vectors x[0], x[s], ..., x[4s] (one line of a tile), in place.
template <class Isa, class V = typename Isa::V>
inline void bt_line(V* x, int stride) {
  const V x0 = x[0], x1 = x[stride], x2 = x[2 * stride], x3 = x[3 * stride], x4 = x[4 * stride];
  const V two = Isa::set1(2.0f);
  x[0] = Isa::fma(two, x0 - x2, x3 - x1);                             // 2x0-x1-2x2+x3
  x[stride] = Isa::fma(two, x1, x2 - x3);                             // 2x1+x2-x3
  x[2 * stride] = Isa::fma(Isa::set1(-2.0f), x1, Isa::set1(3.0f) * x2) - x3;  // -2x1+3x2-x3
  x[3 * stride] = x3 - x1;                                            // -x1+x3
  x[4 * stride] = Isa::fma(two, x1 - x3, x4 - x2);                    // 2x1-x2-2x3+x4
}

// AT applied to the 5 vectors x[0], x[s], ..., x[4s]: the 4 values y[0], y[t], ..., y[3t].
template <class Isa, class V = typename Isa::V>
inline void at_line(const V* x, int stride, V* y, int y_stride) {
  const V x0 = x[0], x1 = x[stride], x2 = x[2 * stride], x3 = x[3 * stride], x4 = x[4 * stride];
  const V sum = x1 + x2, diff = x1 - x2;
  y[0] = x0 + sum + x3;                                          // x0+x1+x2+x3
  y[y_stride] = Isa::fma(Isa::set1(2.0f), x3, diff);             // x1-x2+2x3
  y[2 * y_stride] = Isa::fma(Isa::set1(4.0f), x3, sum);          // x1+x2+4x3
  y[3 * y_stride] = Isa::fma(Isa::set1(8.0f), x3, diff) + x4;    // x1-x2+8x3+x4
}

// d (rows x cols vectors, row stride 5) -> BT d BT^T in place, BT along each 5-point
// direction (a 4-point direction is the identity).
template <class Isa, int Rows, int Cols, class V = typename Isa::V>
void transform_input(V (&d)[5][5]) {
  if constexpr (Rows == 5)
#pragma GCC unroll 5
    for (int j = 0; j < Cols; ++j) bt_line<Isa>(&d[0][j], 5);
  if constexpr (Cols == 5)
#pragma GCC unroll 5
    for (int i = 0; i < Rows; ++i) bt_line<Isa>(&d[i][0], 1);
}

// V_t, as the micro-kernel's b panels: column col of point t, channel d of D at
// v + t * D * columns + (col / kNR) * D * kNR + d * kNR + col % kNR. Tile (ti, tj) of the
// phase reads the plane's elements from (row0 + 4 ti, col0 + 4 tj), wq of them per row.
template <class Isa, int Phase>
void input_phase(const Tiling& tiling, const float* plane, int64_t wq, int64_t row0,
                 int64_t col0, int64_t d_count, int64_t d, float* v) {
  using V = typename Isa::V;
  constexpr int kRows = kRowsOf[Phase], kCols = kColsOf[Phase];
  constexpr int64_t kWidth = Isa::kWidth, kNR = Isa::kNR;
  const int64_t lanes = tiling.lanes, point = point_stride(d_count, tiling.columns);
  for (int64_t ti = 0; ti < tiling.th; ++ti)
    for (int64_t tj = 0; tj < tiling.tw; ++tj)
      for (int64_t lane = 0; lane < lanes; ++lane) {
        V in[5][5];
        const float* src = plane + (((row0 + 4 * ti) * wq + col0 + 4 * tj) * lanes + lane) * kWidth;
        for (int i = 0; i < kRows; ++i)
          for (int j = 0; j < kCols; ++j) in[i][j] = Isa::load(src + (i * wq + j) * lanes * kWidth);
        transform_input<Isa, kRows, kCols>(in);
        const int64_t col = (ti * tiling.tw + tj) * tiling.group_images + lane * kWidth;
        float* dst = v + (col / kNR) * d_count * kNR + d * kNR + col % kNR;
        for (int i = 0; i < kRows; ++i)
          for (int j = 0; j < kCols; ++j)
            Isa::store(dst + (kFirstPoint[Phase] + i * kCols + j) * point, in[i][j]);
      }
}

// Rows [k0, k1) of the 81 products M_t = U_t V_t (U_t: R x D packed by transform_weights, V_t:
// D x columns by input_phase) into m: point t's rows at m + t * (k1 - k0) * columns.
template <class Isa>
void products(const Tiling& tiling, int64_t r_count, int64_t d_count, const float* u_packed,
              const float* v, int64_t k0, int64_t k1, float* m) {
  for (int t = 0; t < kPoints; ++t) {
    const float* u = u_packed + kWeightOf[t] * r_count * d_count;
    const float* vt = v + t * point_stride(d_count, tiling.columns);
    float* mt = m + t * (k1 - k0) * tiling.columns;
    for (int64_t j = 0; j < tiling.columns; j += Isa::kNR)
      for (int64_t i0 = k0; i0 < k1; i0 += Isa::kMR)
        Isa::tile(std::min<int64_t>(Isa::kMR, k1 - i0), d_count, u + i0 * d_count, vt + j * d_count,
                  mt + (i0 - k0) * tiling.columns + j, tiling.columns);
  }
}

// Output channels [k0, k1) of y for the group's images, from m (the block's M_t: point t's
// rows at m + t * (k1 - k0) * columns): the sum over the phases of AT M_t A, plus the bias, as
// AT (M_00 A + M_01) + M_10 A + M_11 (each transform applied once per line); then ReLU
// when relu is set.
template <class Isa>
void output_tiles(const Plan<Isa>& plan, const float* m, int64_t k0, int64_t k1,
                  const float* bias, bool relu, int64_t first, float* y) {
  using V = typename Isa::V;
  constexpr int64_t kWidth = Isa::kWidth;
  constexpr int kRowsPerVector = kWidth / 4;  // of a tile's 4 rows of 4, after the transpose
  const ConvShape& g = plan.g;
  const int64_t point = (k1 - k0) * plan.columns;  // floats per point in m
  for (int64_t k = k0; k < k1; ++k)
    for (int64_t ti = 0; ti < plan.th; ++ti)
      for (int64_t tj = 0; tj < plan.tw; ++tj)
        for (int64_t lane = 0; lane < plan.lanes; ++lane) {
          const int64_t col = (ti * plan.tw + tj) * plan.group_images + lane * kWidth;
          const float* src = m + (k - k0) * plan.columns + col;
          V x[25];
          // z (5 x 4) = M_00 A + M_01
          V z[5][4];
#pragma GCC unroll 5
          for (int p = 0; p < 5; ++p) {
#pragma GCC unroll 5
            for (int q = 0; q < 5; ++q) x[q] = Isa::load(src + (p * 5 + q) * point);
            at_line<Isa>(x, 1, z[p], 1);
#pragma GCC unroll 4
            for (int j = 0; j < 4; ++j)
              z[p][j] = z[p][j] + Isa::load(src + (25 + p * 4 + j) * point);
          }
          // out (4 x 4) = AT z + M_10 A + M_11 + bias
          V out[4][4];
#pragma GCC unroll 4
          for (int j = 0; j < 4; ++j) at_line<Isa>(&z[0][j], 4, &out[0][j], 4);
          const V b = Isa::set1(bias ? bias[k] : 0.0f);
#pragma GCC unroll 4
          for (int i = 0; i < 4; ++i) {
            V row[4];
#pragma GCC unroll 5
            for (int q = 0; q < 5; ++q) x[q] = Isa::load(src + (45 + i * 5 + q) * point);
            at_line<Isa>(x, 1, row, 1);
#pragma GCC unroll 4
            for (int j = 0; j < 4; ++j)
              out[i][j] = (out[i][j] + row[j]) + (Isa::load(src + (65 + i * 4 + j) * point) + b);
          }
          // 16 pixels x kWidth images -> per image its 4x4 tile, kWidth pixels (kWidth / 4
          // rows) per transpose
          V r[16];
#pragma GCC unroll 16
          for (int e = 0; e < 16; ++e)
            r[e] = relu ? Isa::relu(out[e / 4][e % 4]) : out[e / 4][e % 4];
          const int64_t cols = std::min<int64_t>(4, g.ow - 4 * tj);
          const int64_t images = std::min<int64_t>(kWidth, g.n - first - lane * kWidth);
          for (int64_t part = 0; part < 16 / kWidth; ++part) {
            Isa::transpose(r + part * kWidth);
            const int64_t row0 = 4 * ti + part * kRowsPerVector;
            for (int64_t l = 0; l < images; ++l) {
              const int64_t image = first + lane * kWidth + l;
              float* dst = y + ((image * g.k + k) * g.oh + row0) * g.ow + 4 * tj;
              Isa::store_rows(dst, g.ow, r[part * kWidth + l], g.oh - row0, cols);
            }
          }
        }
}

// Channel c of the group's input: its phase planes into q (Plan::place), then each phase's
// input tiles into v as row d of d_count (input_phase).
template <class Isa>
void input_channel(const Plan<Isa>& plan, const float* x, int64_t first, int64_t c, float* q,
                   int64_t d_count, int64_t d, float* v) {
  const ConvShape& g = plan.g;
  const int64_t phase_floats = plan.hq * plan.wq * plan.group_images;
  build_planes<Isa>(PlaneMap{g.n, g.c, g.hw, plan.place, plan.lanes}, x, first, c, q);
  input_phase<Isa, 0>(plan, q, plan.wq, 0, 0, d_count, d, v);
  input_phase<Isa, 1>(plan, q + phase_floats, plan.wq, 0, 0, d_count, d, v);
  input_phase<Isa, 2>(plan, q + 2 * phase_floats, plan.wq, 0, 0, d_count, d, v);
  input_phase<Isa, 3>(plan, q + 3 * phase_floats, plan.wq, 0, 0, d_count, d, v);
}

// One group of images: planes, input transform, 81 GEMMs, output transform. scratch holds
// q_floats() + v_floats() + m_floats() floats, its planes zero (see build_planes).
template <class Isa>
void run_group(const Plan<Isa>& plan, const ConvForwardArgs<float>& a, const float* u_packed,
               bool relu, int64_t group, float* scratch) {
  const ConvShape& g = plan.g;
  float* q = scratch;
  float* v = q + plan.q_floats();
  float* m = v + plan.v_floats();
  const int64_t first = group * plan.group_images;
  // one channel's planes at a time: they stay in L1/L2
  for (int64_t c = 0; c < g.c; ++c) input_channel(plan, a.x, first, c, q, g.c, c, v);
  // A block of output channels at a time: its 81 products stay in L2 until the output
  // transform reads them.
  for (int64_t k0 = 0; k0 < g.k; k0 += Plan<Isa>::kBlockRows) {
    const int64_t k1 = std::min(g.k, k0 + Plan<Isa>::kBlockRows);
    products<Isa>(plan, g.k, g.c, u_packed, v, k0, k1, m);
    output_tiles(plan, m, k0, k1, a.bias, relu, first, a.y);
  }
}

// run(group, scratch) for every group of images, the groups split into one contiguous part
// per thread, each part with its own scratch of part_floats, the first zero_floats of it
// zeroed once (the planes' padding).
template <class Run>
void for_each_group(int64_t groups, int64_t part_floats, int64_t zero_floats, const Run& run) {
  int64_t parts = std::min<int64_t>(get_num_threads(), groups);
  if (ember::detail::in_parallel_region()) parts = 1;
  const Tensor scratch = conv_detail::scratch<float>(parts * part_floats);
  const auto run_part = [&](int64_t part) {
    float* own = scratch.data_ptr<float>() + part * part_floats;
    std::fill(own, own + zero_floats, 0.0f);
    for (int64_t group = groups * part / parts; group < groups * (part + 1) / parts; ++group)
      run(group, own);
  };
  if (parts == 1) return run_part(0);
  parallel_for(0, parts, 1, [&](int64_t begin, int64_t end) {
    for (int64_t part = begin; part < end; ++part) run_part(part);
  });
}

}  // namespace ember::cpu::winograd
