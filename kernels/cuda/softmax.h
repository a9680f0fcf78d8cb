#pragma once
// The CUDA entry points of the softmax family (kernels/common/
// softmax_kernels.h says what each computes), in kernels/cuda/softmax.cu,
// registered in kernels/cuda/register_kernels.cu with softmax_by_columns
// (reduce_plan.h). The row kernel runs a group of lanes per contiguous
// row (kernels/common/cuda_plans/reduce_plan.h, RowPlan); the column kernel one thread per
// line of a contiguous (outer, n, inner) tensor (softmax_by_columns). Both
// take the line's maximum, then the sum of exp(x - max) in double, then the
// outputs, as kernels/cpu/softmax.h computes them (float32 exp in float32).
// float16 and bfloat16 elements are read as float32 and each output rounds
// once (the CPU runs its float32 kernel on float32 copies: the same maths).
#include "ember/core/tensor.h"
#include "ember/kernels/common/softmax_kernels.h"

namespace ember::cuda {

// y = softmax (log_softmax when log) of each row: x and y contiguous (rows, n), one dtype.
decltype(SoftmaxKernels::rows)::Signature softmax_kernel;

// y = softmax (log_softmax when log) along the middle dim: x and y contiguous
// (outer, n, inner), one dtype.
decltype(SoftmaxKernels::columns)::Signature softmax_columns_kernel;

// y[r] = log(sum_k exp(x[r, k])): x contiguous (rows, n), y contiguous (rows);
// an empty row gives -inf.
decltype(SoftmaxKernels::logsumexp)::Signature logsumexp_kernel;

namespace detail {
// The kernels of softmax.cu (CUDA builds only); mode 0 softmax, 1 log_softmax, 2 logsumexp.
void launch_softmax(const char* name, int mode, void* y, const void* x, ScalarType dtype,
                    int64_t rows, int64_t n, int device);
// The column kernel (mode 0 or 1).
void launch_softmax_columns(const char* name, int mode, void* y, const void* x, ScalarType dtype,
                            int64_t outer, int64_t n, int64_t inner, int device);
}  // namespace detail

}  // namespace ember::cuda
