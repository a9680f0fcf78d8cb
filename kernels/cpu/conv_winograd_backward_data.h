#pragma once
// The stride-2 Winograd's backward-data pass (Note [Stride-2 Winograd backward-data]), on
// the forward's pieces (conv_winograd_algorithm.h).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "ember/kernels/cpu/conv_winograd_algorithm.h"

namespace ember::cpu::winograd {

// Note [Stride-2 Winograd backward-data]
// gx_pad[i][j] is the sum over k, r, s with i = 2 oh + r, j = 2 ow + s of
// w[k][c][r][s] gy[k][oh][ow]. Phase (a, b) of gx_pad, G_ab[u][v] = gx_pad[2u + a][2v + b],
// takes the taps r = a + 2e (r <= 2), which read oh = u - e: along a 2-tap direction (a = 0)
// G[u] = w[2] gy[u - 1] + w[0] gy[u], a correlation of gy from row u - 1 with the turned line
// (w[2], w[0]); along a 1-tap direction (a = 1) G[u] = w[1] gy[u]. So the four phases are
// the forward's four correlations (Note [Stride-2 Winograd]) with the kernel turned by 180
// degrees and the channels' roles swapped, M_t (C, columns) = U'_t (C, K) @ V_t (K, columns)
// for the same 81 points, with two differences: every phase reads the one plane of gy (5 rows
// from u0 - 1 along a 2-tap direction, 4 from u0 along a 1-tap one), and each phase has its
// own output, AT applied along its 2-tap directions only. A phase's tiles start at its first
// row inside gx (the least u with 2u + a >= padding): the sample model's 16x16 gx with
// padding 1 has 8 rows per phase, two tiles with no waste. The phases' outputs go to planes
// of image vectors, stored to gx as build_planes reads the forward's input, transposed.
template <class Isa>
struct DataPlan : Tiling {
  static constexpr int64_t kWidth = Isa::kWidth;  // images per vector
  static_assert(Isa::kNR == 2 * kWidth);
  static constexpr int64_t kBlockRows = 2 * Isa::kMR;  // input channels per block

  ConvShape g;
  int64_t first_u[2], first_v[2];  // phase row a (column b): its first row (column) in gx
  int64_t row0[2], col0[2];        // where tile 0 of phase row a (column b) reads the gy plane
  int64_t hq, wq;                  // the gy plane: gy (oh, ow) at (oh + 1, ow + 1)
  // (OH*OW): a gy element's offset in its plane, -1 where no tile reads it; (H*W): a gx
  // element's offset in the four output phase planes of 4 th x 4 tw. thread_local storage of
  // the thread that made the plan.
  const int64_t* gy_place;
  const int64_t* gx_place;

  // The least u with 2u + a >= pad, and how many u have 2u + a in [pad, pad + size).
  static int64_t first_of(int64_t pad, int64_t a) { return (pad - a + 1) / 2; }
  static int64_t count_of(int64_t pad, int64_t size, int64_t a) {
    const int64_t last = pad + size - 1 - a;  // 2u <= last
    return last < 0 ? 0 : std::max<int64_t>(0, last / 2 - first_of(pad, a) + 1);
  }
  static int64_t tiles_of(int64_t pad, int64_t size) {
    return (std::max(count_of(pad, size, 0), count_of(pad, size, 1)) + 3) / 4;
  }

  explicit DataPlan(const ConvShape& shape)
      : Tiling(tiles_of(shape.ph, shape.h), tiles_of(shape.pw, shape.w), shape.n, kWidth),
        g(shape) {
    for (int a = 0; a < 2; ++a) {
      first_u[a] = first_of(g.ph, a), first_v[a] = first_of(g.pw, a);
      // plane row of gy row first - 1 (2-tap) or first (1-tap)
      row0[a] = first_u[a] + a, col0[a] = first_v[a] + a;
    }
    hq = std::max(row0[0] + 4 * th + 1, row0[1] + 4 * th);
    wq = std::max(col0[0] + 4 * tw + 1, col0[1] + 4 * tw);
    thread_local std::vector<int64_t> gy_places, gx_places;
    gy_places.resize(g.ohw);
    for (int64_t oh = 0; oh < g.oh; ++oh)
      for (int64_t ow = 0; ow < g.ow; ++ow)
        gy_places[oh * g.ow + ow] = oh + 1 < hq && ow + 1 < wq ? (oh + 1) * wq + ow + 1 : -1;
    gx_places.resize(g.hw);
    for (int64_t ih = 0; ih < g.h; ++ih)
      for (int64_t iw = 0; iw < g.w; ++iw) {
        const int64_t i = ih + g.ph, j = iw + g.pw, a = i % 2, b = j % 2;
        gx_places[ih * g.w + iw] =
            ((a * 2 + b) * 4 * th + i / 2 - first_u[a]) * 4 * tw + j / 2 - first_v[b];
      }
    gy_place = gy_places.data();
    gx_place = gx_places.data();
  }
  int64_t q_floats() const { return hq * wq * group_images; }  // one channel of gy
  int64_t v_floats() const { return kPoints * point_stride(g.k, columns); }
  int64_t m_floats() const { return kPoints * std::min<int64_t>(g.c, kBlockRows) * columns; }
  int64_t o_floats() const { return 4 * 16 * tiles * group_images; }  // one channel of gx
};

// Channel c's four output phase planes of the group, from m (rows [c0, c1), point t's rows at
// m + t * (c1 - c0) * columns), plus bias[c] when bias is set: per tile and phase, AT along
// the phase's 2-tap directions.
template <class Isa>
void phase_outputs(const DataPlan<Isa>& plan, const float* m, int64_t c0, int64_t c1,
                   int64_t c, const float* bias, float* o) {
  using V = typename Isa::V;
  constexpr int64_t kWidth = Isa::kWidth;
  const int64_t point = (c1 - c0) * plan.columns;  // floats per point in m
  const int64_t lanes = plan.lanes, hp = 4 * plan.th, wp = 4 * plan.tw;
  const V b = Isa::set1(bias ? bias[c] : 0.0f);
  for (int64_t ti = 0; ti < plan.th; ++ti)
    for (int64_t tj = 0; tj < plan.tw; ++tj)
      for (int64_t lane = 0; lane < lanes; ++lane) {
        const int64_t col = (ti * plan.tw + tj) * plan.group_images + lane * kWidth;
        const float* src = m + (c - c0) * plan.columns + col;
        const auto at = [&](int t) { return Isa::load(src + t * point); };
        // element (i, j) of phase ph's tile
        const auto put = [&](int ph, int i, int j, V value) {
          Isa::store(o + (((ph * hp + 4 * ti + i) * wp + 4 * tj + j) * lanes + lane) * kWidth,
                     value + b);
        };
        V x[5], line[4];
        // phase 00, 5 x 5 points: AT along both directions
        V z[5][4];
#pragma GCC unroll 5
        for (int p = 0; p < 5; ++p) {
#pragma GCC unroll 5
          for (int q = 0; q < 5; ++q) x[q] = at(p * 5 + q);
          at_line<Isa>(x, 1, z[p], 1);
        }
#pragma GCC unroll 4
        for (int j = 0; j < 4; ++j) {
          at_line<Isa>(&z[0][j], 4, line, 1);
#pragma GCC unroll 4
          for (int i = 0; i < 4; ++i) put(0, i, j, line[i]);
        }
        // A phase with one 2-tap direction: AT along each of its 4 lines of 5 points, line l's
        // points from first + l * line_step, p_step apart; the outputs run down a column of
        // the tile (down) or along a row.
        const auto lines = [&](int ph, int first, int line_step, int p_step, bool down) {
#pragma GCC unroll 4
          for (int l = 0; l < 4; ++l) {
#pragma GCC unroll 5
            for (int p = 0; p < 5; ++p) x[p] = at(first + l * line_step + p * p_step);
            at_line<Isa>(x, 1, line, 1);
#pragma GCC unroll 4
            for (int o = 0; o < 4; ++o) down ? put(ph, o, l, line[o]) : put(ph, l, o, line[o]);
          }
        };
        lines(1, 25, 1, 4, true);   // phase 01, 5 x 4 points: down each column
        lines(2, 45, 5, 1, false);  // phase 10, 4 x 5 points: along each row
        // phase 11, 4 x 4 points: the products themselves
#pragma GCC unroll 16
        for (int e = 0; e < 16; ++e) put(3, e / 4, e % 4, at(65 + e));
      }
}

// Channel c of the group's images (first image `first`) of gx from its phase planes o: the
// inverse of build_planes (every element of gx has a place).
template <class Isa>
void store_planes(const PlaneMap& map, const float* o, int64_t first, int64_t c, float* gx) {
  using V = typename Isa::V;
  constexpr int64_t kWidth = Isa::kWidth;
  const int64_t images = std::min<int64_t>(map.images - first, map.lanes * kWidth);
  for (int64_t lane = 0; lane * kWidth < images; ++lane)
    for (int64_t e0 = 0; e0 < map.hw; e0 += kWidth) {
      const int64_t count = std::min<int64_t>(kWidth, map.hw - e0);
      V r[kWidth];
      for (int64_t e = 0; e < kWidth; ++e)
        r[e] = e < count ? Isa::load(o + (map.place[e0 + e] * map.lanes + lane) * kWidth)
                         : Isa::set1(0.0f);
      Isa::transpose(r);  // r[i]: elements e0.. of image lane * kWidth + i
      for (int64_t i = 0; i < std::min<int64_t>(kWidth, images - lane * kWidth); ++i)
        Isa::store_first(gx + ((first + lane * kWidth + i) * map.channels + c) * map.hw + e0,
                         count, r[i]);
    }
}

// One group of images: the gy plane and its input tiles per output channel k, then per block
// of input channels the 81 products and each channel's phases, stored to gx. scratch holds
// q_floats() + v_floats() + m_floats() + o_floats() floats, the gy plane zero.
template <class Isa>
void run_group_data(const DataPlan<Isa>& plan, const ConvBackwardDataArgs<float>& a,
                    const float* u_packed, int64_t group, float* scratch) {
  const ConvShape& g = plan.g;
  float* q = scratch;
  float* v = q + plan.q_floats();
  float* m = v + plan.v_floats();
  float* o = m + plan.m_floats();
  const int64_t first = group * plan.group_images;
  const PlaneMap gy_map{g.n, g.k, g.ohw, plan.gy_place, plan.lanes};
  for (int64_t k = 0; k < g.k; ++k) {
    build_planes<Isa>(gy_map, a.gy, first, k, q);
    input_phase<Isa, 0>(plan, q, plan.wq, plan.row0[0], plan.col0[0], g.k, k, v);
    input_phase<Isa, 1>(plan, q, plan.wq, plan.row0[0], plan.col0[1], g.k, k, v);
    input_phase<Isa, 2>(plan, q, plan.wq, plan.row0[1], plan.col0[0], g.k, k, v);
    input_phase<Isa, 3>(plan, q, plan.wq, plan.row0[1], plan.col0[1], g.k, k, v);
  }
  const PlaneMap gx_map{g.n, g.c, g.hw, plan.gx_place, plan.lanes};
  for (int64_t c0 = 0; c0 < g.c; c0 += DataPlan<Isa>::kBlockRows) {
    const int64_t c1 = std::min(g.c, c0 + DataPlan<Isa>::kBlockRows);
    products<Isa>(plan, g.c, g.k, u_packed, v, c0, c1, m);
    for (int64_t c = c0; c < c1; ++c) {
      phase_outputs(plan, m, c0, c1, c, a.bias, o);
      store_planes<Isa>(gx_map, o, first, c, a.gx);
    }
  }
}

}  // namespace ember::cpu::winograd
