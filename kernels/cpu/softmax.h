#pragma once
// CPU softmax, log-softmax and logsumexp along the middle dim of a contiguous
// (outer, n, inner) tensor. Numerically stable: each line subtracts its
// maximum before exp(), so exp() never overflows; sums of exp() accumulate in
// double. Lines along the innermost dim (inner == 1: the usual last-dim
// softmax) are contiguous and handled one at a time; otherwise a block of
// neighbouring lines is processed row by row, walking memory contiguously.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ember/core/parallel.h"
#include "ember/core/tensor.h"
#include "ember/kernels/common/reduce_functors.h"
#include "ember/kernels/common/softmax_kernels.h"
#include "ember/kernels/cpu/loops.h"
#include "ember/kernels/cpu/reduce_loops.h"

namespace ember::cpu {

namespace softmax_detail {

constexpr int64_t kBlock = 1024;  // lines side by side when inner > 1

// shift[j] for the `width` lines starting at x, each n long with stride inner.
template <typename T>
void line_shifts(const T* x, int64_t n, int64_t inner, int64_t width, double* shift) {
  const functors::MaxOps<T> max_ops;
  if (inner == 1) {  // width is 1: one contiguous line
    shift[0] = functors::softmax_shift(reduce_detail::fold_run(max_ops.identity(), x, n, 1, max_ops));
    return;
  }
  T m[kBlock];
  for (int64_t j = 0; j < width; ++j) m[j] = x[j];
  for (int64_t k = 1; k < n; ++k)
    for (int64_t j = 0; j < width; ++j) m[j] = max_ops.step(m[j], x[k * inner + j]);
  for (int64_t j = 0; j < width; ++j) shift[j] = functors::softmax_shift(m[j]);
}

// Calls line(x_lines, y_lines, width) for blocks of `width` neighbouring
// lines, in parallel. y holds y_len values per line (n, or 1 for logsumexp).
template <typename T, typename LineFn>
void for_each_block(const T* x, T* y, int64_t outer, int64_t n, int64_t inner, int64_t y_len,
                    const LineFn& line) {
  const int64_t blocks = (inner + kBlock - 1) / kBlock;
  const int64_t grain =
      std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, n * std::min(kBlock, inner)));
  parallel_for(0, outer * blocks, grain, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / blocks, j0 = (t % blocks) * kBlock;
      line(x + o * n * inner + j0, y + o * y_len * inner + j0, std::min(kBlock, inner - j0));
    }
  });
}

// One contiguous line (inner == 1) of softmax / log_softmax.
template <typename T, bool Log>
void softmax_line(const T* x, T* y, int64_t n) {
  double shift;
  line_shifts(x, n, 1, 1, &shift);
  double sum = 0;
  for (int64_t k = 0; k < n; ++k) {
    const T e = std::exp(static_cast<T>(x[k] - shift));
    if constexpr (!Log) y[k] = e;
    sum += e;
  }
  if constexpr (Log) {
    const double total = shift + std::log(sum);
    for (int64_t k = 0; k < n; ++k) y[k] = static_cast<T>(x[k] - total);
  } else {
    const T scale = static_cast<T>(1.0 / sum);
    for (int64_t k = 0; k < n; ++k) y[k] *= scale;
  }
}

}  // namespace softmax_detail

// y = softmax(x) (log_softmax when Log) along n; x and y: (outer, n, inner).
template <typename T, bool Log>
void softmax(const T* x, T* y, int64_t outer, int64_t n, int64_t inner) {
  using namespace softmax_detail;
  if (outer * n * inner == 0) return;
  for_each_block(x, y, outer, n, inner, n, [&](const T* xl, T* yl, int64_t width) {
    if (inner == 1) return softmax_line<T, Log>(xl, yl, n);
    double shift[kBlock], sum[kBlock];
    line_shifts(xl, n, inner, width, shift);
    std::fill(sum, sum + width, 0.0);
    for (int64_t k = 0; k < n; ++k)
      for (int64_t j = 0; j < width; ++j) {
        const T e = std::exp(static_cast<T>(xl[k * inner + j] - shift[j]));
        if constexpr (!Log) yl[k * inner + j] = e;
        sum[j] += e;
      }
    // log_softmax subtracts log(sum) after the shift; softmax scales by 1/sum.
    for (int64_t j = 0; j < width; ++j) sum[j] = Log ? shift[j] + std::log(sum[j]) : 1.0 / sum[j];
    for (int64_t k = 0; k < n; ++k)
      for (int64_t j = 0; j < width; ++j) {
        if constexpr (Log)
          yl[k * inner + j] = static_cast<T>(xl[k * inner + j] - sum[j]);
        else
          yl[k * inner + j] = static_cast<T>(yl[k * inner + j] * sum[j]);
      }
  });
}

// y[o, j] = log(sum_k exp(x[o, k, j])): x (outer, n, inner), y (outer, inner).
// An empty line (n == 0) gives -inf.
template <typename T>
void logsumexp(const T* x, T* y, int64_t outer, int64_t n, int64_t inner) {
  using namespace softmax_detail;
  if (outer * inner == 0) return;
  if (n == 0) {
    std::fill(y, y + outer * inner, -std::numeric_limits<T>::infinity());
    return;
  }
  for_each_block(x, y, outer, n, inner, 1, [&](const T* xl, T* yl, int64_t width) {
    double shift[kBlock], sum[kBlock];
    line_shifts(xl, n, inner, width, shift);
    for (int64_t j = 0; j < width; ++j) shift[j] = functors::logsumexp_shift(shift[j]);
    std::fill(sum, sum + width, 0.0);
    for (int64_t k = 0; k < n; ++k)
      for (int64_t j = 0; j < width; ++j)
        sum[j] += std::exp(static_cast<T>(xl[k * inner + j] - shift[j]));
    for (int64_t j = 0; j < width; ++j) yl[j] = static_cast<T>(shift[j] + std::log(sum[j]));
  });
}

// The CPU entry points of the softmax family (kernels/common/
// softmax_kernels.h says what each computes), the templates above for each
// floating dtype (kernels/cpu/softmax.cpp), registered in
// kernels/cpu/register_kernels.cpp.
decltype(SoftmaxKernels::by_columns)::Signature softmax_by_columns;
decltype(SoftmaxKernels::columns)::Signature softmax_columns_kernel;
decltype(SoftmaxKernels::logsumexp)::Signature logsumexp_kernel;

}  // namespace ember::cpu
