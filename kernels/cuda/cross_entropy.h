#pragma once
// The fused cross-entropy over class indices on CUDA tensors: the device twin
// of kernels/cpu/cross_entropy.h, over contiguous rows of C class scores (the
// op moves the class dim innermost first: (lines, C)), with the same formulas:
//   lse[l]  = logsumexp_c x[l, c]
//   loss[l] = (1 - e) w[t] (lse - x[l, t]) + e / C * sum_c w[c] (lse - x[l, c])
//   dx[l,c] = g_l * (softmax_c * ((1 - e) w[t] + e / C * sum w) - e / C * w[c]
//                    - (1 - e) w[t] [c == t])
// (0 on lines whose target is ignore_index; w = 1 without a class weight).
// The targets are checked here, not on the host (a copy would make every step
// wait): a target outside [0, C) that is not ignore_index gives a NaN loss
// and gradient, never a read outside the row, and the forward records it in
// the device's index error report, raised by the next CUDA cross-entropy or
// indexing call, or check_index_errors() (kernels/cuda/indexing.h). Without
// the CUDA backend each raises an Error.
#include "ember/core/tensor.h"
#include "ember/kernels/cuda/indexing_plan.h"

namespace ember::cuda {

struct CrossEntropyArgs {
  Tensor target;        // (lines) int64, contiguous
  Tensor weight;        // (C) of x's dtype, contiguous, or undefined
  Tensor weight_total;  // 0-d double: sum of weight (undefined without weight)
  int64_t ignore_index = -100;
  double label_smoothing = 0;
};

// Each entry point first raises a bad target or index an earlier call's
// kernel reported (no sync).
// x: contiguous (lines, C). Writes lse, loss and line_weight (w[t], 0 where
// ignored: kMean's divisor), each contiguous (lines) of x's dtype.
void cross_entropy_forward(const Tensor& x, const CrossEntropyArgs& args, const Tensor& lse,
                           const Tensor& loss, const Tensor& line_weight);

// dx (contiguous (lines, C)) of the loss, each line's gradient scaled by
// grad[l * grad_stride] (grad of x's dtype; grad_stride 0: one value for all
// lines) times *scale (a 0-d double tensor, or undefined for 1).
void cross_entropy_backward(const Tensor& x, const CrossEntropyArgs& args, const Tensor& lse,
                            const Tensor& grad, int64_t grad_stride, const Tensor& scale,
                            const Tensor& dx);

// Reports a value of the int64 `target` (any layout) outside [0, classes)
// that is not ignore_index, as the cross-entropy forward does, naming `op` (a
// string literal): for losses without a kernel of their own (nll_loss). One
// small kernel, no sync; raises an earlier report first, as the above.
void check_class_targets(const char* op, const Tensor& target, int64_t classes,
                         int64_t ignore_index);

namespace detail {
// The kernels of cross_entropy.cu (CUDA builds only), on plain data; pointers
// may be null where the tensors above may be undefined.
struct CrossEntropyLaunch {
  const void* x = nullptr;
  const int64_t* target = nullptr;
  const void* weight = nullptr;
  const double* weight_total = nullptr;
  int64_t lines = 0, classes = 0;
  int64_t ignore_index = -100;
  double label_smoothing = 0;
  ScalarType dtype = kFloat;
  int device = 0;
  const char* op = "cross_entropy";  // names a bad target in the report
  IndexErrorSink errors;
};
void launch_cross_entropy_forward(const CrossEntropyLaunch& l, void* lse, void* loss,
                                  void* line_weight);
void launch_cross_entropy_backward(const CrossEntropyLaunch& l, const void* lse, const void* grad,
                                   int64_t grad_stride, const double* scale, void* dx);
// target: n contiguous int64 values.
void launch_check_class_targets(const char* op, const int64_t* target, int64_t n,
                                int64_t classes, int64_t ignore_index, int device,
                                const IndexErrorSink& errors);
}  // namespace detail

}  // namespace ember::cuda
