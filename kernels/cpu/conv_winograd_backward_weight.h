#pragma once
// The stride-2 Winograd's backward-weight pass (Note [Stride-2 Winograd backward-weight]), on
// the forward's pieces (conv_winograd_algorithm.h).
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <thread>
#include <utility>
#include <vector>

#include "ember/kernels/cpu/conv_winograd_algorithm.h"

namespace ember::cpu::winograd {

// Note [Stride-2 Winograd backward-weight]
// The forward computes, per tile and point t, y = AT [U_t * V_t] summed over the phases
// (Note [Stride-2 Winograd]). Its transposition gives the weights' gradient: the gradient of
// the product at point t is Y_t = (A gy) at t, the transposed output transform of gy's 4x4
// tile (A along each 2-tap direction, the identity along a 1-tap one), so
//   M_t (K, C) = sum over every tile of every image of Y_t (K, column) V_t (C, column),
// and each tap's gradient is the transposed weight transform of the M_t: G^T along a 2-tap
// direction, and along a 1-tap one the sum of the 4 points that share the tap (the points
// that share a U, kWeightOf, are summed by the GEMMs into one M'_u). The GEMMs reduce over
// the batch's columns. The transforms produce vectors across images (columns), so Y_t comes
// out as rows of columns, which strided_tile reads in place, a broadcast per row and column;
// V_t is staged per block of kNR input channels and transposed in registers into the
// micro-kernel's b panels (kNR input channels per column). Transposing Y_t into a panels as
// well cost more than the products gained. Per 4x4 tile and channel pair 81 products where
// the direct pass has 144.
// Y and V are 5 and 1.3 times the size of gy and x (81 points per 16 outputs, per 9x9 input
// patch of stride 8), 8 MB for the whole batch of the sample model's second layer: written
// in full and read back by the products, they went to memory and back in a training step
// (the pass took 50% longer with the caches flushed before it than without). So one group of
// images at a time (GroupTasks): V is built whole (shared by the threads), Y a block of
// output channels at a time (WeightPlan::block_rows), each block on one thread, which then
// adds the block's products to its rows of every M'_u. Those rows' sums run on one thread in
// group order, so the bits do not depend on the thread count.
template <class Isa>
struct WeightPlan : Plan<Isa> {
  int64_t c_panels;     // of kNR input channels
  int64_t y_rows;       // output channels of a task's Y
  // (OH*OW): a gy element's offset in a plane of 4 th x 4 tw, thread_local storage.
  const int64_t* gy_place;

  // parts: the threads that share the tasks.
  WeightPlan(const ConvShape& shape, int64_t parts)
      : Plan<Isa>(shape), c_panels((shape.c + Isa::kNR - 1) / Isa::kNR),
        y_rows(block_rows(shape.k, this->columns, parts)) {
    thread_local std::vector<int64_t> places;
    places.resize(shape.ohw);
    for (int64_t oh = 0; oh < shape.oh; ++oh)
      for (int64_t ow = 0; ow < shape.ow; ++ow)
        places[oh * shape.ow + ow] = oh * 4 * this->tw + ow;
    gy_place = places.data();
  }
  int64_t gy_floats() const { return 16 * this->tiles * this->group_images; }  // one channel
  // a panel of input channels, staged
  int64_t stage_floats() const { return kPoints * point_stride(Isa::kNR, this->columns); }
  // Output channels per task of Y, in whole register tiles: a block of Y within kYBytes
  // (it stays in L2 while its products read it), and kTasksPerPart tasks per thread or more
  // (they balance); each task reads all of V, so not fewer rows than that.
  static int64_t block_rows(int64_t k, int64_t columns, int64_t parts) {
    constexpr int64_t kYBytes = 256 << 10, kTasksPerPart = 4;
    const int64_t fit = kYBytes / (kPoints * columns * int64_t(sizeof(float)));
    const int64_t share = (k + kTasksPerPart * parts - 1) / (kTasksPerPart * parts);
    const int64_t tiles = (std::min(fit, share) + Isa::kMR - 1) / Isa::kMR;
    return std::min(std::max<int64_t>(tiles, 1) * Isa::kMR, k);
  }
  // One group of images: Y of y_rows output channels, V
  int64_t y_point() const { return point_stride(y_rows, this->columns); }
  int64_t y_floats() const { return kPoints * y_point(); }
  int64_t v_floats() const { return kPoints * point_stride(c_panels * Isa::kNR, this->columns); }
  // per thread: the planes (zero), gy's planes, a task's Y
  int64_t scratch_floats() const { return this->q_floats() + gy_floats() + y_floats(); }
};

// A applied to the 4 vectors y[0], y[s], y[2s], y[3s]: the 5 values x[0], x[t], ..., x[4t]
// (the transpose of at_line).
template <class Isa, class V = typename Isa::V>
inline void a_line(const V* y, int stride, V* x, int x_stride) {
  const V y0 = y[0], y1 = y[stride], y2 = y[2 * stride], y3 = y[3 * stride];
  const V even = y0 + y2, odd = y1 + y3;
  x[0] = y0;
  x[x_stride] = even + odd;                                                    // y0+y1+y2+y3
  x[2 * x_stride] = even - odd;                                                // y0-y1+y2-y3
  x[3 * x_stride] = Isa::fma(Isa::set1(2.0f), Isa::fma(Isa::set1(4.0f), y3, y1),
                             Isa::fma(Isa::set1(4.0f), y2, y0));               // y0+2y1+4y2+8y3
  x[4 * x_stride] = y3;
}

// Y_t for one channel of gy (its plane, 4 th x 4 tw elements) and the group's columns: column
// col of point t at row + t * point + col (a row of the batch's columns per channel).
template <class Isa>
void gradient_points(const Tiling& tiling, const float* plane, float* row, int64_t point) {
  using V = typename Isa::V;
  constexpr int64_t kWidth = Isa::kWidth;
  const int64_t lanes = tiling.lanes, wp = 4 * tiling.tw;
  for (int64_t ti = 0; ti < tiling.th; ++ti)
    for (int64_t tj = 0; tj < tiling.tw; ++tj)
      for (int64_t lane = 0; lane < lanes; ++lane) {
        const float* src = plane + ((4 * ti * wp + 4 * tj) * lanes + lane) * kWidth;
        float* dst = row + (ti * tiling.tw + tj) * tiling.group_images + lane * kWidth;
        const auto put = [dst, point](int t, V value) { Isa::store(dst + t * point, value); };
        V gy[4][4];
#pragma GCC unroll 4
        for (int i = 0; i < 4; ++i)
#pragma GCC unroll 4
          for (int j = 0; j < 4; ++j) gy[i][j] = Isa::load(src + (i * wp + j) * lanes * kWidth);
        // phase 11: gy itself; phase 10 (4 x 5): A along each row
        V row[5], col5[5];
#pragma GCC unroll 4
        for (int i = 0; i < 4; ++i) {
#pragma GCC unroll 4
          for (int j = 0; j < 4; ++j) put(65 + i * 4 + j, gy[i][j]);
          a_line<Isa>(gy[i], 1, row, 1);
#pragma GCC unroll 5
          for (int q = 0; q < 5; ++q) put(45 + i * 5 + q, row[q]);
        }
        // phase 01 (5 x 4): A down each column; phase 00 (5 x 5): then A along each row
        V down[5][4];
#pragma GCC unroll 4
        for (int j = 0; j < 4; ++j) {
          a_line<Isa>(&gy[0][j], 4, col5, 1);
#pragma GCC unroll 5
          for (int p = 0; p < 5; ++p) put(25 + p * 4 + j, down[p][j] = col5[p]);
        }
#pragma GCC unroll 5
        for (int p = 0; p < 5; ++p) {
          a_line<Isa>(down[p], 1, row, 1);
#pragma GCC unroll 5
          for (int q = 0; q < 5; ++q) put(p * 5 + q, row[q]);
        }
      }
}

// The staging buffer's rows [0, rows) (input_phase's layout with d_count = kNR) for the
// group's columns, transposed into the micro-kernel's b panels: for every point and column,
// kNR floats at dst + t * dst_point + column * kNR, zeros past `rows` (a partial panel's last
// input channels), so the products never read unwritten memory.
template <class Isa>
void stage_to_panels(const Tiling& tiling, const float* stage, int64_t rows, int64_t dst_point,
                     float* dst) {
  using V = typename Isa::V;
  constexpr int64_t kWidth = Isa::kWidth, kNR = Isa::kNR;
  const int64_t point = point_stride(kNR, tiling.columns);  // floats per point in the stage
  for (int t = 0; t < kPoints; ++t)
    for (int64_t col = 0; col < tiling.columns; col += kWidth) {
      const float* src = stage + t * point + (col / kNR) * kNR * kNR + col % kNR;
      float* out = dst + t * dst_point + col * kNR;
      for (int64_t h = 0; h * kWidth < kNR; ++h) {  // kWidth rows at a time
        V r[kWidth];
        for (int64_t d = 0; d < kWidth; ++d)
          r[d] = h * kWidth + d < rows ? Isa::load(src + (h * kWidth + d) * kNR)
                                       : Isa::set1(0.0f);
        Isa::transpose(r);  // r[i]: column col + i's rows h * kWidth ...
        for (int64_t i = 0; i < kWidth; ++i) Isa::store(out + i * kNR + h * kWidth, r[i]);
      }
    }
}

// One group's Y for output channels [k0, k1), k1 - k0 <= y_rows (rows of columns: point t,
// output channel k, column col at y + t * y_point() + (k - k0) * columns + col).
template <class Isa>
void gradient_rows(const WeightPlan<Isa>& plan, const float* gy, int64_t group, int64_t k0,
                   int64_t k1, float* y, float* scratch) {
  const ConvShape& g = plan.g;
  float* gq = scratch + plan.q_floats();
  const PlaneMap gy_map{g.n, g.k, g.ohw, plan.gy_place, plan.lanes};
  for (int64_t k = k0; k < k1; ++k) {
    build_planes<Isa>(gy_map, gy, group * plan.group_images, k, gq);
    gradient_points<Isa>(plan, gq, y + (k - k0) * plan.columns, plan.y_point());
  }
}

// c (MR x cols, cols <= kNR, row stride ldc) = a (MR rows of kc floats, row stride lda) @ b
// (a packed kNR panel of kc rows), or += when accumulate is set: the packed GEMM's register
// tile, but a's rows are read where they lie, one broadcast per row and step (Y_t's rows, so
// that only V_t is transposed into panels).
template <class Isa, int MR>
void strided_tile(int64_t kc, const float* a, int64_t lda, const float* b, float* c,
                  int64_t ldc, int64_t cols, bool accumulate) {
  using V = typename Isa::V;
  constexpr int kWidth = Isa::kWidth, kVectors = Isa::kNR / Isa::kWidth;
  V acc[MR][kVectors];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v) acc[i][v] = Isa::set1(0.0f);
  for (int64_t p = 0; p < kc; ++p) {
    V bv[kVectors];
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v) bv[v] = Isa::load(b + p * Isa::kNR + v * kWidth);
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      const V ai = Isa::set1(a[i * lda + p]);
#pragma GCC unroll 4
      for (int v = 0; v < kVectors; ++v) acc[i][v] = Isa::fma(ai, bv[v], acc[i][v]);
    }
  }
  for (int i = 0; i < MR; ++i)
    for (int v = 0; v < kVectors; ++v) {
      const int64_t count = std::min<int64_t>(kWidth, cols - v * kWidth);
      if (count <= 0) break;
      float* out = c + i * ldc + v * kWidth;
      Isa::store_first(out, count, accumulate ? acc[i][v] + Isa::load_first(out, count)
                                              : acc[i][v]);
    }
}

template <class Isa, int... R>
constexpr auto strided_tiles(std::integer_sequence<int, R...>) {
  return std::array{&strided_tile<Isa, R + 1>...};
}

// Rows [k0, k1) of M'_u (K, C) for the distinct weight point u: the sum of Y_t V_t^T over
// the points t that share u and one group's columns (y: gradient_rows of those rows), added
// to m when accumulate is set. m: u's (K, C) at m + u * K * C.
template <class Isa>
void gradient_products(const WeightPlan<Isa>& plan, const float* y, const float* v, int u,
                       int64_t k0, int64_t k1, bool accumulate, float* m) {
  const ConvShape& g = plan.g;
  // Reduction blocks: a b panel of kc columns (kNR floats each) stays in L1.
  constexpr int64_t kMaxKc = 512;
  static constexpr auto kTiles = strided_tiles<Isa>(std::make_integer_sequence<int, Isa::kMR>{});
  const int64_t columns = plan.columns;
  float* out = m + u * g.k * g.c;
  for (int t = 0; t < kPoints; ++t) {
    if (kWeightOf[t] != u) continue;
    const float* yt = y + t * plan.y_point();
    const float* vt = v + t * point_stride(plan.c_panels * Isa::kNR, columns);
    for (int64_t p0 = 0; p0 < columns; p0 += kMaxKc) {
      const int64_t kc = std::min(kMaxKc, columns - p0);
      for (int64_t c0 = 0; c0 < g.c; c0 += Isa::kNR)
        for (int64_t r0 = k0; r0 < k1; r0 += Isa::kMR) {
          const int64_t mr = std::min<int64_t>(Isa::kMR, k1 - r0);
          kTiles[mr - 1](kc, yt + (r0 - k0) * columns + p0, columns,
                         vt + c0 * columns + p0 * Isa::kNR, out + r0 * g.c + c0, g.c, g.c - c0,
                         accumulate);
        }
      accumulate = true;
    }
  }
}

// One group's work, as tasks that the threads claim in turn (Note [Stride-2 Winograd
// backward-weight]): input channels staged (a few each), the staged panels transposed into
// V, then blocks of y_rows output channels, each its Y and, once V is complete, its rows of
// every M'_u (added to m after the first group). A task waits only for tasks claimed before
// it, by threads that are running, so the waits end.
template <class Isa>
class GroupTasks {
 public:
  static constexpr int64_t kStageChannels = 8;  // input channels per staging task
  static_assert(Isa::kNR % kStageChannels == 0);

  // stage: c_panels * stage_floats() floats; v: v_floats(); m: kWeightPoints * K * C.
  GroupTasks(const WeightPlan<Isa>& plan, const ConvBackwardWeightArgs<float>& a, int64_t group,
             float* stage, float* v, float* m)
      : plan_(plan), a_(a), group_(group), stage_(stage), v_(v), m_(m),
        stage_tasks_((plan.g.c + kStageChannels - 1) / kStageChannels),
        tasks_(stage_tasks_ + plan.c_panels + (plan.g.k + plan.y_rows - 1) / plan.y_rows),
        stage_pending_(stage_tasks_), v_pending_(plan.c_panels) {}

  // Claims and runs tasks until none is left; scratch: scratch_floats(), the planes zero.
  void run(float* scratch) {
    for (int64_t task = next_++; task < tasks_; task = next_++) {
      if (task < stage_tasks_) {
        stage_channels(task, scratch);
        stage_pending_.fetch_sub(1, std::memory_order_release);
      } else if (task < stage_tasks_ + plan_.c_panels) {
        wait_for(stage_pending_);
        transpose_panel(task - stage_tasks_);
        v_pending_.fetch_sub(1, std::memory_order_release);
      } else {
        const int64_t k0 = (task - stage_tasks_ - plan_.c_panels) * plan_.y_rows;
        const int64_t k1 = std::min(plan_.g.k, k0 + plan_.y_rows);
        float* y = scratch + plan_.q_floats() + plan_.gy_floats();  // after the planes
        gradient_rows(plan_, a_.gy, group_, k0, k1, y, scratch);
        wait_for(v_pending_);
        for (int u = 0; u < kWeightPoints; ++u)
          gradient_products(plan_, y, v_, u, k0, k1, group_ > 0, m_);
      }
    }
  }

 private:
  static void wait_for(const std::atomic<int64_t>& pending) {
    while (pending.load(std::memory_order_acquire) > 0) std::this_thread::yield();
  }
  // Input channels of task `task` into their panel's staging rows (input_phase's layout).
  void stage_channels(int64_t task, float* scratch) const {
    const int64_t c0 = task * kStageChannels, c1 = std::min(plan_.g.c, c0 + kStageChannels);
    for (int64_t c = c0; c < c1; ++c)
      input_channel(plan_, a_.x, group_ * plan_.group_images, c, scratch, Isa::kNR,
                    c % Isa::kNR, stage_ + c / Isa::kNR * plan_.stage_floats());
  }
  // V's b panels of input channels from panel * kNR: point t at v + t * point_stride(c_panels
  // * kNR, columns) + panel * kNR * columns, column col at + col * kNR.
  void transpose_panel(int64_t panel) const {
    const int64_t c0 = panel * Isa::kNR;
    stage_to_panels<Isa>(plan_, stage_ + panel * plan_.stage_floats(),
                         std::min<int64_t>(Isa::kNR, plan_.g.c - c0),
                         point_stride(plan_.c_panels * Isa::kNR, plan_.columns),
                         v_ + c0 * plan_.columns);
  }

  const WeightPlan<Isa>& plan_;
  const ConvBackwardWeightArgs<float>& a_;
  const int64_t group_;
  float* const stage_;
  float* const v_;
  float* const m_;
  const int64_t stage_tasks_, tasks_;
  std::atomic<int64_t> next_{0}, stage_pending_, v_pending_;
};

// gw[k][c] (9 taps) from the M'_u of output channel k: the transposed weight transform.
template <class Isa>
void gradient_taps(const ConvShape& g, const float* m, int64_t k, float* gw) {
  using V = typename Isa::V;
  constexpr int64_t kWidth = Isa::kWidth;
  const int64_t plane = g.k * g.c;  // floats per u in m
  for (int64_t c0 = 0; c0 < g.c; c0 += kWidth) {
    const int64_t count = std::min<int64_t>(kWidth, g.c - c0);
    const float* src = m + k * g.c + c0;
    const auto at = [&](int u) { return Isa::load_first(src + u * plane, count); };
    // G^T along a 2-tap line of 5 points: (tap 0, tap 2)
    const auto gt = [](const V (&x)[5], int f) {
      V sum = Isa::set1(kG[0][f]) * x[0];
      for (int p = 1; p < 5; ++p) sum = Isa::fma(Isa::set1(kG[p][f]), x[p], sum);
      return sum;
    };
    V taps[9];
    V h[5][2];  // P_00: G^T along each row, then down the columns
    for (int p = 0; p < 5; ++p) {
      const V x[5] = {at(p * 5), at(p * 5 + 1), at(p * 5 + 2), at(p * 5 + 3), at(p * 5 + 4)};
      h[p][0] = gt(x, 0), h[p][1] = gt(x, 1);
    }
    for (int e = 0; e < 2; ++e)
      for (int f = 0; f < 2; ++f) {
        const V x[5] = {h[0][f], h[1][f], h[2][f], h[3][f], h[4][f]};
        taps[2 * e * 3 + 2 * f] = gt(x, e);
      }
    const V rows[5] = {at(25), at(26), at(27), at(28), at(29)};  // P_01: taps (0|2, 1)
    const V cols[5] = {at(30), at(31), at(32), at(33), at(34)};  // P_10: taps (1, 0|2)
    taps[1] = gt(rows, 0), taps[7] = gt(rows, 1);
    taps[3] = gt(cols, 0), taps[5] = gt(cols, 1);
    taps[4] = at(35);
    alignas(64) float out[9][kWidth];
    for (int j = 0; j < 9; ++j) Isa::store(out[j], taps[j]);
    for (int64_t l = 0; l < count; ++l)
      for (int j = 0; j < 9; ++j) gw[(k * g.c + c0 + l) * 9 + j] = out[j][l];
  }
}

}  // namespace ember::cpu::winograd
