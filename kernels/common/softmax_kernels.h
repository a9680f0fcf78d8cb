#pragma once
// The softmax kernel family (Note [Kernel tables]): softmax and log_softmax
// along one dim, and logsumexp over contiguous lines. The op
// (core/ops/nn_ops/softmax.cpp) has taken x to a floating dtype and lays it out as
// the device's kernels want it (by_columns): in place as (outer, n, inner),
// or as rows with the softmax dim innermost. Every line subtracts its maximum
// before exp() and sums exp() in double. Each kernel takes float32 and float64
// and raises dispatch_floating's Error (naming `op`, or logsumexp) for other dtypes.
#include <cstdint>

#include "ember/core/tensor.h"
#include "ember/kernels/common/kernel_table.h"

namespace ember {

struct SoftmaxKernels {
  // Whether the device's softmax of an (outer, n, inner) tensor along n runs
  // `columns` on it as it is; else `rows` on a copy with n innermost. The
  // CPU: always (its kernel walks any inner); CUDA: when many lines run along
  // a wide inner dim (softmax_by_columns in kernels/common/cuda_plans/reduce_plan.h).
  Kernel<bool(int64_t outer, int64_t inner)> by_columns;
  // y = softmax (log_softmax when log) along the middle dim: x and y
  // contiguous (outer, n, inner), one dtype.
  Kernel<void(const char* op, bool log, const Tensor& y, const Tensor& x, int64_t outer,
              int64_t n, int64_t inner)>
      columns;
  // y = softmax (log_softmax when log) of each row: x and y contiguous
  // (rows, n), one dtype. CUDA only (the CPU's `columns` takes every layout).
  Kernel<void(const char* op, bool log, const Tensor& y, const Tensor& x, int64_t rows,
              int64_t n)>
      rows;
  // y[r] = log(sum_k exp(x[r, k])): x contiguous (rows, n), y contiguous
  // (rows); an empty row gives -inf.
  Kernel<void(const Tensor& y, const Tensor& x, int64_t rows, int64_t n)> logsumexp;
};

}  // namespace ember
