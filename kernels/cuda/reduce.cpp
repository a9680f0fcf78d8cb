// The host half of the CUDA reductions: plans each launch from the tensors,
// allocates the two-pass workspace from the caching allocator, and hands both
// to the kernels of reduce_*.cu. Compiled in every build; without CUDA each raises.
#include "ember/kernels/cuda/reduce.h"

#include <array>
#include <atomic>
#include <cmath>

#include "ember/core/ops/factory.h"
#include "ember/kernels/cuda/host_helpers.h"

#ifdef EMBER_WITH_CUDA
#include <cuda_runtime.h>

#include "ember/kernels/cuda/cuda_check.h"
#endif

namespace ember::cuda {

using detail::data_or_null;
using detail::device_of;
using detail::no_cuda;

namespace {

#ifdef EMBER_WITH_CUDA
// Asked once per device (0: not asked yet).
int multiprocessors(int device) {
  static std::array<std::atomic<int>, 64> cached{};
  const bool cacheable = device < static_cast<int>(cached.size());
  if (cacheable) {
    const int known = cached[device].load(std::memory_order_relaxed);
    if (known > 0) return known;
  }
  int count = 0;
  EMBER_CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
  if (cacheable) cached[device].store(count, std::memory_order_relaxed);
  return count;
}

// The plan, and the tensor the kernel reads: `in`, or when its dims do not
// merge into kMaxReduceDims of each kind, a copy with the kept dims first and
// the reduced ones last (one dim of each kind once merged). The output's
// element order is the same either way: only size-1 dims move between them.
struct Planned {
  ReducePlan plan;
  Tensor input;
};

Planned plan_for(const char* name, const Tensor& in, IntArrayRef keep_sizes) {
  const int sms = multiprocessors(device_of(in));
  if (auto p = try_make_reduce_plan(name, in.sizes(), in.strides(), keep_sizes, sms))
    return {*p, in};
  DimVector order, keep;
  for (int pass = 0; pass < 2; ++pass)
    for (int64_t d = 0; d < in.dim(); ++d)
      if ((keep_sizes[d] != 1) == (pass == 0)) {
        order.push_back(d);
        keep.push_back(keep_sizes[d]);
      }
  const Tensor copy = in.detach().permute(order).contiguous();
  return {make_reduce_plan(name, copy.sizes(), copy.strides(), keep, sms), copy};
}

// The two-pass partials (undefined for a one-pass plan), as an ember tensor
// of bytes so that it comes from the caching allocator.
Tensor workspace_for(const ReducePlan& p, const Tensor& in) {
  if (!p.two_pass()) return Tensor();
  return empty({p.splits * p.num_outputs * kReduceWorkspaceBytes},
               TensorOptions().dtype(kBool).device(in.device()));
}
#endif

}  // namespace

void reduce_kernel(const char* name, ReduceOp op, const Tensor& out, const Tensor& in,
                   IntArrayRef keep_sizes, double param) {
#ifdef EMBER_WITH_CUDA
  if (out.numel() == 0) return;
  const Planned p = plan_for(name, in, keep_sizes);
  const Tensor workspace = workspace_for(p.plan, in);
  detail::launch_reduce(name, op, p.plan, out.data_ptr(), p.input.data_ptr(), in.scalar_type(),
                        data_or_null(workspace), param, device_of(in));
#else
  (void)op, (void)out, (void)keep_sizes, (void)param;
  no_cuda(name, in);
#endif
}

void abs_pow_sum_kernel(const char* name, const Tensor& out, const Tensor& in, double p) {
  const ReduceOp op = std::isinf(p) ? ReduceOp::kAbsMax
                      : p == 2      ? ReduceOp::kSquareSum
                      : p == 1      ? ReduceOp::kAbsSum
                                    : ReduceOp::kAbsPowSum;
  reduce_kernel(name, op, out, in, DimVector(static_cast<size_t>(in.dim()), 1), p);
}

void arg_reduce_kernel(const char* name, bool is_max, const Tensor& values, const Tensor& indices,
                       const Tensor& in, IntArrayRef keep_sizes) {
#ifdef EMBER_WITH_CUDA
  if (indices.numel() == 0) return;
  const Planned p = plan_for(name, in, keep_sizes);
  const Tensor workspace = workspace_for(p.plan, in);
  detail::launch_arg_reduce(name, is_max, p.plan, data_or_null(values),
                            indices.data_ptr<int64_t>(), p.input.data_ptr(), in.scalar_type(),
                            data_or_null(workspace), device_of(in));
#else
  (void)is_max, (void)values, (void)indices, (void)keep_sizes;
  no_cuda(name, in);
#endif
}

}  // namespace ember::cuda
