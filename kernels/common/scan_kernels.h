#pragma once
// The scan kernel family (Note [Kernel tables]): running sums, products,
// log-sum-exps, maxima and minima along one dim, one slot per device. The op
// has wrapped the dim, cast the input to the dtype it scans in and made it
// contiguous, and made the outputs: in and the outputs are contiguous, of
// in's shape, seen as (outer, n, inner) with the scan along n; each line is
// walked by the line functions of kernels/common/scan_functors.h.
#include "ember/core/tensor.h"
#include "ember/kernels/common/kernel_table.h"

namespace ember {

struct ScanKernels {
  // out (in's dtype: int64, float32 or float64) = the running sum of in, or
  // its running product when is_prod (cumsum, cumprod).
  Kernel<void(const char* name, bool is_prod, const Tensor& out, const Tensor& in, int64_t outer,
              int64_t n, int64_t inner)>
      scan;
  // out (in's dtype: float32 or float64) = log(running sum of exp(in)).
  Kernel<void(const Tensor& out, const Tensor& in, int64_t outer, int64_t n, int64_t inner)>
      logcumsumexp;
  // values (in's dtype, any) and indices (int64) of the running maximum
  // (is_max) or minimum: cummax, cummin.
  Kernel<void(const char* name, bool is_max, const Tensor& values, const Tensor& indices,
              const Tensor& in, int64_t outer, int64_t n, int64_t inner)>
      cum_extreme;
};

}  // namespace ember
