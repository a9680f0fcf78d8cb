// The host half of the CUDA reductions: plans each launch from the tensors,
// allocates the two-pass workspace from the caching allocator, and hands both
// to the kernels of reduce_*.cu. Compiled in every build; without CUDA each raises.
#include "ember/kernels/cuda/reduce.h"

#include <algorithm>

#include "ember/core/error.h"
#include "ember/core/ops/factory.h"

#ifdef EMBER_WITH_CUDA
#include <cuda_runtime.h>

#include "ember/kernels/cuda/cuda_check.h"
#endif

namespace ember::cuda {
namespace {

#ifdef EMBER_WITH_CUDA
int device_index(const Tensor& t) { return std::max(t.device().index(), 0); }

int multiprocessors(int device) {
  int count = 0;
  EMBER_CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
  return count;
}

ReducePlan plan_for(const char* name, const Tensor& in, IntArrayRef keep_sizes) {
  return make_reduce_plan(name, in.sizes(), in.strides(), keep_sizes,
                          multiprocessors(device_index(in)));
}

// The two-pass partials (undefined for a one-pass plan), as an ember tensor
// of bytes so that it comes from the caching allocator.
Tensor workspace_for(const ReducePlan& p, const Tensor& in) {
  if (!p.two_pass()) return Tensor();
  return empty({p.splits * p.num_outputs * kReduceWorkspaceBytes},
               TensorOptions().dtype(kBool).device(in.device()));
}

void* data_or_null(const Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }
#else
[[noreturn]] void no_cuda(const char* name, const Tensor& in) {
  EMBER_ERROR(name, ": ", in.toString(), " needs the CUDA backend");
}
#endif

}  // namespace

void reduce_kernel(const char* name, ReduceOp op, const Tensor& out, const Tensor& in,
                   IntArrayRef keep_sizes, double param) {
#ifdef EMBER_WITH_CUDA
  if (out.numel() == 0) return;
  const ReducePlan p = plan_for(name, in, keep_sizes);
  const Tensor workspace = workspace_for(p, in);
  detail::launch_reduce(name, op, p, out.data_ptr(), in.data_ptr(), in.scalar_type(),
                        data_or_null(workspace), param, device_index(in));
#else
  (void)op, (void)out, (void)keep_sizes, (void)param;
  no_cuda(name, in);
#endif
}

void arg_reduce_kernel(const char* name, bool is_max, const Tensor& values, const Tensor& indices,
                       const Tensor& in, IntArrayRef keep_sizes) {
#ifdef EMBER_WITH_CUDA
  if (indices.numel() == 0) return;
  const ReducePlan p = plan_for(name, in, keep_sizes);
  const Tensor workspace = workspace_for(p, in);
  detail::launch_arg_reduce(name, is_max, p, data_or_null(values), indices.data_ptr<int64_t>(),
                            in.data_ptr(), in.scalar_type(), data_or_null(workspace),
                            device_index(in));
#else
  (void)is_max, (void)values, (void)indices, (void)keep_sizes;
  no_cuda(name, in);
#endif
}

}  // namespace ember::cuda
