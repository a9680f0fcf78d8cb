#pragma once
// Shared by the kernels/cpu/linalg_*.cpp files: Eigen maps over one matrix
// of a contiguous batch, and the loop that runs the batch in parallel.
#include <algorithm>
#include <cstdint>

// GCC 12 reports false "(may be) used uninitialized" warnings inside the
// AVX-512 intrinsics that Eigen's kernels inline (see kernels/cpu/gemm.cpp).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <Eigen/Core>

#include "ember/core/parallel.h"

namespace ember::cpu::linalg_detail {

template <typename T>
using RowMajorMap = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;

// f(i) for each matrix i of a batch of `count`, each costing about `flops`.
template <typename F>
void for_each_matrix(int64_t count, int64_t flops, const F& f) {
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(flops, 1));
  parallel_for(0, count, grain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) f(i);
  });
}

}  // namespace ember::cpu::linalg_detail
