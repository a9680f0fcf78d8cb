// The plan of a CUDA reduction from the tensors (reduce_launch.h), read by
// the kernels of kernels/cuda/reduce_*.cu. Compiled in every build, so the CPU
// tests check it.
#include "ember/kernels/common/cuda_plans/reduce_launch.h"

#include "ember/kernels/common/cuda_plans/host_helpers.h"

namespace ember::cuda {

ReduceLaunch plan_reduce(const char* name, const Tensor& in, IntArrayRef keep_sizes,
                         int sm_count) {
  ReduceLaunch l;
  l.device = detail::device_of(in);
  if (auto p = try_make_reduce_plan(name, in.sizes(), in.strides(), keep_sizes, sm_count)) {
    l.plan = *p;
    l.input = in;
  } else {
    DimVector order, keep;
    for (int pass = 0; pass < 2; ++pass)
      for (int64_t d = 0; d < in.dim(); ++d)
        if ((keep_sizes[d] != 1) == (pass == 0)) {
          order.push_back(d);
          keep.push_back(keep_sizes[d]);
        }
    l.input = in.detach().permute(order).contiguous();
    l.plan = make_reduce_plan(name, l.input.sizes(), l.input.strides(), keep, sm_count);
  }
  // Bytes, as an ember tensor so that they come from the caching allocator.
  if (l.plan.two_pass())
    l.workspace = in.new_empty({l.plan.splits * l.plan.num_outputs * kReduceWorkspaceBytes},
                               TensorOptions().dtype(kBool));
  return l;
}

}  // namespace ember::cuda
