#pragma once
// The CPU kernels of core/ops/bucketing.cpp, on contiguous tensors. The maths
// per element is kernels/common/bucketing_functors.h's.
#include "ember/core/tensor.h"

namespace ember::cpu {

// out (int64, values' shape) = the insertion points of values (rows, m) in the
// ascending rows of seq (rows, n) (one row shared by all values when seq has
// one row and rows_of_values says how many value rows there are); sorter:
// undefined or int64 (seq's shape).
void searchsorted(const Tensor& out, const Tensor& seq, const Tensor& values, const Tensor& sorter,
                  int64_t seq_rows, int64_t n, bool right);
// out[x[i]] += w[i] (or 1 without weights); out zeroed, of out's dtype.
void bincount(const Tensor& out, const Tensor& x, const Tensor& weights);
// out[bin] += 1 for each element of x in [lo, hi]; out zeroed, x's dtype.
void histc(const Tensor& out, const Tensor& x, double lo, double hi);

}  // namespace ember::cpu
