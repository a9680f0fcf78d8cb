// max / min along a dim with indices, argmax / argmin: ArgFoldOps over
// reduce_kernels.cuh (ties keep the first index, the first NaN wins), for
// every dtype.
#include "ember/kernels/common/reduce_functors.h"
#include "ember/kernels/common/cuda_plans/host_helpers.h"
#include "ember/kernels/cuda/reduce.h"
#include "ember/kernels/cuda/reduce_kernels.cuh"

namespace ember::cuda {

void arg_reduce_kernel(const char* name, bool is_max, const Tensor& values, const Tensor& indices,
                       const Tensor& in, int64_t dim) {
  if (indices.numel() == 0) return;
  DimVector keep_sizes(in.sizes());
  if (in.dim() > 0) keep_sizes[dim] = 1;
  const ReduceLaunch l =
      plan_reduce(name, in, keep_sizes, reduce_kernels::multiprocessors(detail::device_of(in)));
  void* const workspace = detail::data_or_null(l.workspace);
  using namespace functors;
  dispatch_all(in.scalar_type(), name, [&]<typename T>() {
    const reduce_kernels::ArgSink<T> sink{static_cast<T*>(detail::data_or_null(values)),
                                          indices.data_ptr<int64_t>()};
    const T* x = static_cast<const T*>(l.input.data_ptr());
    if (is_max)
      reduce_kernels::run<T, ArgAcc<T>>(l.plan, x, workspace, ArgFoldOps<T, ArgMaxOps<T>>{}, sink,
                                        l.device);
    else
      reduce_kernels::run<T, ArgAcc<T>>(l.plan, x, workspace, ArgFoldOps<T, ArgMinOps<T>>{}, sink,
                                        l.device);
  });
}

}  // namespace ember::cuda
