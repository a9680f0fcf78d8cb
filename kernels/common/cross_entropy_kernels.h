#pragma once
// The cross-entropy kernel family (Note [Kernel tables]): log_softmax and the
// NLL over class indices fused in one pass (log_softmax is never
// materialized), its gradient, and the check of class targets that nll_loss
// uses. The op (core/ops/nn_ops/cross_entropy.cpp) has checked shapes, dtypes and
// devices and passes x contiguous as (outer, C, inner), with inner == 1 where
// the device takes rows only (by_columns); line l = o * inner + j has target
// t = target[l], w = weight (1 without one), e = label_smoothing:
//   lse[l]  = logsumexp_c x[o, c, j]
//   loss[l] = (1 - e) w[t] (lse - x[t]) + e / C * sum_c w[c] (lse - x[c])
//   dx      = g_l * (softmax_c * ((1 - e) w[t] + e / C * sum w) - e / C * w[c]
//                    - (1 - e) w[t] [c == t])
// and 0 on lines whose target is ignore_index.
// A target outside [0, C) that is not ignore_index is the user's error. The
// CPU raises it before computing anything; CUDA never shows the host a target
// (a copy would make every step wait): its kernels give that line a NaN loss
// and gradient, record it in the device's index error report, and the next
// CUDA cross-entropy or indexing call raises it (kernels/cuda/indexing.h).
// Either way the message is "<op>: target 12 is out of bounds for 10 classes
// (valid range [0, 9], or ignore_index -100)".
// forward and backward take float32 and float64 and raise dispatch_floating's
// Error (naming cross_entropy) for other dtypes.
#include <cstdint>

#include "ember/core/tensor.h"
#include "ember/kernels/common/kernel_table.h"

namespace ember {

struct CrossEntropyArgs {
  int64_t outer = 0, classes = 0, inner = 1;  // x as (outer, C, inner)
  Tensor target;                              // (outer * inner) int64, contiguous
  Tensor weight;  // (C) of x's dtype, contiguous, or undefined
  int64_t ignore_index = -100;
  double label_smoothing = 0;
  int64_t lines() const { return outer * inner; }
};

struct CrossEntropyKernels {
  // Whether the device's kernels take x as (outer, C, inner) for any inner;
  // else the op passes (lines, C, 1): a copy with the class dim innermost when
  // inner > 1. The CPU: always; CUDA: never (one group of lanes per row).
  Kernel<bool()> by_columns;
  // Writes lse and loss, each (lines) of x's dtype, contiguous, and, where
  // defined (kMean's divisor), line_weight likewise: w[t], 0 where ignored.
  Kernel<void(const Tensor& x, const CrossEntropyArgs& args, const Tensor& lse,
              const Tensor& loss, const Tensor& line_weight)>
      forward;
  // dx (x's layout, contiguous) of the loss, each line's gradient g_l =
  // grad[l * grad_stride] (grad of x's dtype, contiguous; grad_stride 0: one
  // value for all lines) times *scale (a 0-d double tensor on x's device, or
  // undefined for 1: kMean's 1 / summed line weights, kept on the device).
  // lse is the forward's. The forward has seen the targets.
  Kernel<void(const Tensor& x, const CrossEntropyArgs& args, const Tensor& lse,
              const Tensor& grad, int64_t grad_stride, const Tensor& scale, const Tensor& dx)>
      backward;
  // The target check of the forward alone, naming `op` (a string literal), for
  // the losses without a kernel of their own (nll_loss): int64 target of any
  // layout, values in [0, classes) or ignore_index.
  Kernel<void(const char* op, const Tensor& target, int64_t classes, int64_t ignore_index)>
      check_targets;
};

}  // namespace ember
