#pragma once
// Shared by kernels/cpu/linalg_eigh.cpp, linalg_svd.cpp and linalg_qr.cpp (the
// kernels of kernels/cpu/linalg_spectral.h, one Eigen decomposition per file so
// the three compile in parallel): Eigen maps over one matrix of a contiguous
// batch, the sign rule of Note [Decomposition signs], and the batch loop.

// GCC 12's false "(may be) used uninitialized" warnings inside Eigen's AVX-512
// intrinsics, as kernels/cpu/gemm.cpp.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <Eigen/Core>
#include <atomic>

#include "ember/core/parallel.h"
#include "ember/core/tensor.h"

namespace ember::cpu::spectral_detail {

template <typename T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using MatMap = Eigen::Map<Mat<T>>;
template <typename T>
using ConstMatMap = Eigen::Map<const Mat<T>>;
template <typename T>
using VecMap = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>;

// Row `b` of a contiguous (batch, rows, cols) tensor as a matrix; null data
// (an undefined tensor) gives an empty map.
template <typename T>
MatMap<T> matrix(const Tensor& t, int64_t b, int64_t rows, int64_t cols) {
  T* base = t.defined() ? t.data_ptr<T>() : nullptr;
  return MatMap<T>(base ? base + b * rows * cols : nullptr, base ? rows : 0, base ? cols : 0);
}

// Negates column j of m when its largest-magnitude entry is negative
// (Note [Decomposition signs]); returns whether it did.
template <typename Derived>
bool make_column_positive(Eigen::MatrixBase<Derived>& m, Eigen::Index j) {
  Eigen::Index at = 0;
  if (m.rows() == 0) return false;
  m.col(j).cwiseAbs().maxCoeff(&at);  // the first of equal maxima
  if (m(at, j) >= 0) return false;
  m.col(j) = -m.col(j);
  return true;
}

// Runs f(b) for each matrix of the batch in parallel; false if any returned false.
template <typename F>
bool for_each_matrix(int64_t batch, const F& f) {
  std::atomic<bool> ok{true};
  parallel_for(0, batch, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b)
      if (!f(b)) ok = false;
  });
  return ok;
}

}  // namespace ember::cpu::spectral_detail
