#pragma once
// The CUDA entry points of the cross-entropy family
// (kernels/common/cross_entropy_kernels.h says what each computes and how a
// bad target is reported), in cross_entropy.cu next to their kernels, and
// registered in kernels/cuda/register_kernels.cu. The kernels take rows of C
// class scores (by_columns: false; the op moves the class dim innermost:
// args.inner == 1). Each entry point first raises a bad target or index an
// earlier call's kernel reported (no sync).
#include "ember/kernels/common/cross_entropy_kernels.h"
#include "ember/kernels/common/cuda_plans/indexing_plan.h"

namespace ember::cuda {

decltype(CrossEntropyKernels::by_columns)::Signature cross_entropy_by_columns;
decltype(CrossEntropyKernels::forward)::Signature cross_entropy_forward;
decltype(CrossEntropyKernels::backward)::Signature cross_entropy_backward;
// One small kernel, no sync.
decltype(CrossEntropyKernels::check_targets)::Signature check_class_targets;

namespace detail {
// The kernels of cross_entropy.cu, on plain data; weight and weight_total (the
// weight's sum in double) are null without a weight, line_weight without one
// to write.
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
