#pragma once
// The bucketing kernel family (Note [Kernel tables]): searchsorted (and
// bucketize through it), bincount and histc. The op (core/ops/indexing/bucketing.cpp)
// has checked the arguments and passes every tensor contiguous and on one
// device; outputs to count into come zeroed. The per-element maths is
// kernels/common/bucketing_functors.h's. Each kernel takes the dtypes of its
// set below, dispatched with dispatch_dtypes on both backends (so they take
// the same ones), and raises that dispatch's Error naming the op for others.
#include <cstdint>

#include "ember/core/tensor.h"
#include "ember/kernels/common/dtype_set.h"
#include "ember/kernels/common/kernel_table.h"

namespace ember {

inline constexpr DtypeSet kSearchsortedDtypes = DtypeSet::kAll;   // of seq and values
inline constexpr DtypeSet kBincountDtypes = DtypeSet::kNumeric;   // of out (and weights)
inline constexpr DtypeSet kHistcDtypes = DtypeSet::kFloating;     // of x (and out)

struct BucketingKernels {
  // out (int64, values' shape) = the insertion points of values (seq_rows
  // rows of values, or any number when seq has one row) in the ascending rows
  // of seq (seq_rows, n), one dtype; sorter: undefined or int64 (seq's shape).
  Kernel<void(const Tensor& out, const Tensor& seq, const Tensor& values, const Tensor& sorter,
              int64_t seq_rows, int64_t n, bool right)>
      searchsorted;
  // out[x[i]] += weights[i] (1 without weights): x int64, every value in
  // [0, out.numel()); weights undefined or of out's dtype.
  Kernel<void(const Tensor& out, const Tensor& x, const Tensor& weights)> bincount;
  // out[bin] += 1 for each element of x in [lo, hi] (bins of equal width,
  // out.numel() of them); out of x's dtype.
  Kernel<void(const Tensor& out, const Tensor& x, double lo, double hi)> histc;
};

}  // namespace ember
