#pragma once
// What the packed GEMMs share whatever their instruction set (the AVX-512 float and bfloat16
// kernels, sgemm_avx512_tile.h; the AVX2 float kernel, sgemm_avx2.cpp): how c is split over
// the threads in blocks of whole register tiles, Goto's loop nest over one thread's block,
// the per-thread packing buffers, and the empty sum.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <tuple>
#include <utility>

#include "ember/core/error.h"
#include "ember/core/parallel.h"

namespace ember::cpu::gemm_blocking {

// Splits c (m x n) over `threads` threads as a tm x tn grid of blocks of whole mr x nr tiles
// (the micro-kernel's register tile; `lanes` floats per vector register). Cost of a block, in
// vector-instruction units: its padded multiply-adds over `lanes`, plus packing its own rows
// of a and columns of b (about 2 units an element: strided reads, transposes). Narrow products
// split the rows (each thread packing all of a wide b would dominate), wide ones the columns;
// ties split the columns (measured faster on Zen 4 at 1024^3).
inline std::pair<int, int> thread_grid(int64_t m, int64_t n, int64_t k, int threads, int mr,
                                       int nr, int lanes) {
  const int64_t row_tiles = (m + mr - 1) / mr, col_tiles = (n + nr - 1) / nr;
  std::pair<int, int> best{1, threads};
  double best_cost = -1;
  for (int tm = 1; tm <= threads; ++tm) {
    if (threads % tm != 0) continue;
    const int tn = threads / tm;
    const double rows = double((row_tiles + tm - 1) / tm * mr),
                 cols = double((col_tiles + tn - 1) / tn * nr);
    const double cost = rows * cols * double(k) / lanes + 2.0 * double(k) * (rows + cols);
    if (best_cost < 0 || cost < best_cost) best_cost = cost, best = {tm, tn};
  }
  return best;
}

// Runs block(m0, m1, n0, n1) over c (m x n) on up to get_num_threads() threads: one block of
// whole MR x NR tiles per thread, on the grid thread_grid picks (one block, inline, for a
// small product or inside a parallel region). The pool hands a block whose thread is late to
// one that is free (Note [Work-sharing thread pool]).
template <int MR, int NR, int Lanes, typename Block>
void run_blocks(int64_t m, int64_t n, int64_t k, const Block& block) {
  // About 0.5 MFLOP (2^18 multiply-adds, ~3 us) per thread: a worker that is awake takes
  // its block within a microsecond, and the caller never waits for one that is asleep (it
  // runs the unclaimed block itself). At 4 MFLOP, the sample model's classifier (64 x 2048 x
  // 10, three products a step) ran on one thread: its forward and backward with the loss took
  // 157 us at 2 threads in float32 and 241 us in bfloat16, 110 and 122 us split (with the
  // bfloat16 GEMM's transposed few-column products).
  const int64_t by_work = std::max<int64_t>(1, m * n * k / (int64_t(1) << 18));
  int threads = static_cast<int>(
      std::min<int64_t>(ember::detail::threads_for_loop(get_num_threads()), by_work));
  if (ember::detail::in_parallel_region()) threads = 1;
  if (threads == 1) return block(0, m, 0, n);
  // Not a structured binding: the lambda below captures tn, which clang 14 refuses.
  int tm, tn;
  std::tie(tm, tn) = thread_grid(m, n, k, threads, MR, NR, Lanes);
  const int64_t row_tiles = (m + MR - 1) / MR, col_tiles = (n + NR - 1) / NR;
  const int64_t rows_per = (row_tiles + tm - 1) / tm * MR,
                cols_per = (col_tiles + tn - 1) / tn * NR;
  ember::detail::run_chunks(int64_t(tm) * tn, [&](int64_t t) {
    const int64_t m0 = std::min(m, (t / tn) * rows_per), n0 = std::min(n, (t % tn) * cols_per);
    const int64_t m1 = std::min(m, m0 + rows_per), n1 = std::min(n, n0 + cols_per);
    if (m0 < m1 && n0 < n1) block(m0, m1, n0, n1);
  });
}

// Cache blocking of one thread's product: k in blocks of kc, b packed kc x nc at a time
// (L3), a mc x kc at a time (L2).
struct Blocks {
  int64_t kc, mc, nc;
};

// A 64-byte aligned scratch buffer, grown on demand and kept for later calls (one per
// thread: declare it thread_local).
class Scratch {
 public:
  Scratch() = default;
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() { std::free(data_); }
  float* get(size_t count) {
    if (count > capacity_) {
      std::free(data_);
      capacity_ = (count + 15) / 16 * 16;
      data_ = static_cast<float*>(std::aligned_alloc(64, capacity_ * sizeof(float)));
      EMBER_CHECK(data_ != nullptr, "matmul: out of memory for a ", capacity_ * 4,
                  "-byte packing buffer");
    }
    return data_;
  }

 private:
  float* data_ = nullptr;
  size_t capacity_ = 0;
};

// This thread's buffers for the packed a block (up to mc of `rows` x depth) and b block (up
// to nc of `cols`, rounded up to whole NR-column panels, x depth), in floats: depth is the
// k block's depth in the packed element's units (k-pairs for the bfloat16 kernel).
struct PackBuffers {
  float* a;
  float* b;
};
template <int NR>
PackBuffers pack_buffers(int64_t rows, int64_t cols, int64_t depth, const Blocks& blocks) {
  thread_local Scratch a_buffer, b_buffer;
  const int64_t nc = std::min(cols, blocks.nc);
  return {a_buffer.get(static_cast<size_t>(std::min(rows, blocks.mc) * depth)),
          b_buffer.get(static_cast<size_t>((nc + NR - 1) / NR * NR * depth))};
}

// One register tile of c for the micro-kernel: rows [i, i + mr), columns from j (cols of
// them before n ends: may exceed the tile's width), its panels at row ir of the packed a
// block and column jr of the packed b block, over a k block of depth kc; first: the first k
// block, which applies beta (later ones add to what it wrote).
struct TileJob {
  int64_t i, mr, j, cols, ir, jr, kc;
  bool first;
};

// Goto's loop nest over rows [m0, m1) x columns [n0, n1) of c on one thread: per (column
// block, k block) pack_b(pc, kc, jc, nc), per row block pack_a(ic, mc, pc, kc), then
// tile(TileJob) for every MR x NR tile of the block, the b panels outside.
template <int MR, int NR, typename PackB, typename PackA, typename Tile>
void blocked_product(int64_t m0, int64_t m1, int64_t n0, int64_t n1, int64_t k,
                     const Blocks& blocks, const PackB& pack_b, const PackA& pack_a,
                     const Tile& tile) {
  for (int64_t jc = n0; jc < n1; jc += blocks.nc) {
    const int64_t nc = std::min(blocks.nc, n1 - jc);
    for (int64_t pc = 0; pc < k; pc += blocks.kc) {
      const int64_t kc = std::min(blocks.kc, k - pc);
      pack_b(pc, kc, jc, nc);
      for (int64_t ic = m0; ic < m1; ic += blocks.mc) {
        const int64_t mc = std::min(blocks.mc, m1 - ic);
        pack_a(ic, mc, pc, kc);
        for (int64_t jr = 0; jr < nc; jr += NR)
          for (int64_t ir = 0; ir < mc; ir += MR)
            tile(TileJob{ic + ir, std::min<int64_t>(MR, mc - ir), jc + jr, nc - jr, ir, jr, kc,
                         pc == 0});
      }
    }
  }
}

// c (m x n, leading dimension ldc) = beta * c for a product with k == 0 (alpha times an
// empty sum); beta == 0 writes zeros without reading c.
template <typename C>
void empty_product(int64_t m, int64_t n, float beta, C* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      c[i * ldc + j] = beta == 0.0f ? C(0.0f) : C(beta * static_cast<float>(c[i * ldc + j]));
}

}  // namespace ember::cpu::gemm_blocking
