#pragma once
// What the packed GEMMs share whatever their instruction set (the AVX-512 float and bfloat16
// kernels, sgemm_avx512_tile.h; the AVX2 float kernel, sgemm_avx2.cpp): how c is split over
// the threads in blocks of whole register tiles, and the per-thread packing buffers.
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
  // About 4 MFLOP per thread before a second thread pays for waking up.
  int threads = static_cast<int>(std::min<int64_t>(ember::detail::threads_for_loop(get_num_threads()),
                                                   std::max<int64_t>(1, m * n * k / (int64_t(1) << 21))));
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

}  // namespace ember::cpu::gemm_blocking
