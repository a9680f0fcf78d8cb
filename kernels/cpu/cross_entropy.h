#pragma once
// Fused CPU cross-entropy over class indices: log_softmax and the NLL in one
// pass, without materializing log_softmax. Scores x are a contiguous
// (outer, C, inner) tensor (C classes in the middle: (N, C, d1, ...) with
// inner = d1 * ...); each (o, j) is one "line" l = o * inner + j with target
// t[l]. The entry points of the cross-entropy table
// (kernels/common/cross_entropy_kernels.h, registered in register_kernels.cpp)
// check the targets, then run the templates below.
#include <cstdint>

#include "ember/kernels/common/cross_entropy_kernels.h"

namespace ember::cpu {

// The table's entry points.
decltype(CrossEntropyKernels::by_columns)::Signature cross_entropy_by_columns;
decltype(CrossEntropyKernels::forward)::Signature cross_entropy_forward;
decltype(CrossEntropyKernels::backward)::Signature cross_entropy_backward;
// Raises an Error naming `op` at the first value of `target` outside
// [0, classes) that is not ignore_index.
decltype(CrossEntropyKernels::check_targets)::Signature check_class_targets;

struct CrossEntropyShape {
  int64_t outer = 0, classes = 0, inner = 0;
  int64_t lines() const { return outer * inner; }
};

struct CrossEntropyParams {
  const int64_t* target = nullptr;  // lines() values, in [0, C) or ignore_index
  int64_t ignore_index = -100;
  double label_smoothing = 0;       // e
};

// For every line: lse[l] = logsumexp_c x[o, c, j] and
//   loss[l] = (1 - e) w[t] (lse - x[t]) + e / C * sum_c w[c] (lse - x[c])
// (0 when t is ignore_index); w = weight, or 1 when weight is null.
template <typename T>
void cross_entropy_forward(const T* x, const T* weight, const CrossEntropyShape& s,
                           const CrossEntropyParams& p, T* lse, T* loss);

// The gradient of the loss, scaled per line by grad[l * grad_stride] * scale
// (grad_stride 0: one value for all lines):
//   dx[o, c, j] = g_l * (softmax_c * ((1 - e) w[t] + e / C * sum w) - e / C * w[c]
//                        - (1 - e) w[t] [c == t])
// and 0 on ignored lines.
template <typename T>
void cross_entropy_backward(const T* x, const T* weight, const T* lse, const T* grad,
                            int64_t grad_stride, double scale, const CrossEntropyShape& s,
                            const CrossEntropyParams& p, T* dx);

}  // namespace ember::cpu
