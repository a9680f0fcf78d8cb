#pragma once
// The entry points of the reduction kernels (kernels/cuda/reduce_*.cu, CUDA
// builds only), on plain data: kernels/cuda/reduce.cpp plans the launch from
// the tensors and allocates the two-pass workspace.
#include "ember/core/dtype.h"
#include "ember/kernels/cuda/reduce_plan.h"

namespace ember::cuda {

// The reductions of core/ops/reduce.cpp, each the Ops of kernels/common/reduce_functors.h;
// the kAbs* ones (sum |x|, sum x^2, sum |x|^p, max |x|) write float64.
enum class ReduceOp {
  kSum, kMean, kVar, kStd, kNorm1, kNorm2, kNormP, kMax, kMin, kAll, kAny,
  kAbsSum, kSquareSum, kAbsPowSum, kAbsMax, kProd
};

// Bytes of workspace per output and split of a two-pass reduction (the widest accumulator).
constexpr int64_t kReduceWorkspaceBytes = 16;

namespace detail {

// out (contiguous, the op's output dtype) = op over `in` (dtype in_dtype) as
// p plans it. param: mean's count, var's and std's divisor, norm's and kAbsPowSum's p.
// workspace: p.splits * p.num_outputs * kReduceWorkspaceBytes bytes when p.two_pass().
void launch_reduce(const char* name, ReduceOp op, const ReducePlan& p, void* out, const void* in,
                   ScalarType in_dtype, void* workspace, double param, int device);

// The best element (max when is_max) and its index along the reduced dim:
// values (may be null; in's dtype) and indices (int64), both contiguous.
void launch_arg_reduce(const char* name, bool is_max, const ReducePlan& p, void* values,
                       int64_t* indices, const void* in, ScalarType in_dtype, void* workspace,
                       int device);

}  // namespace detail
}  // namespace ember::cuda
