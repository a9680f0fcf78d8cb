// max / min along a dim with indices, argmax / argmin: ArgFoldOps over
// reduce_kernels.cuh (ties keep the first index, the first NaN wins), for
// every dtype.
#include "ember/kernels/common/reduce_functors.h"
#include "ember/kernels/cuda/reduce_kernels.cuh"
#include "ember/kernels/cuda/reduce_launch.h"

namespace ember::cuda::detail {

void launch_arg_reduce(const char* name, bool is_max, const ReducePlan& p, void* values,
                       int64_t* indices, const void* in, ScalarType in_dtype, void* workspace,
                       int device) {
  using namespace functors;
  dispatch_all(in_dtype, name, [&]<typename T>() {
    const reduce_kernels::ArgSink<T> sink{static_cast<T*>(values), indices};
    const T* x = static_cast<const T*>(in);
    if (is_max)
      reduce_kernels::run<T, ArgAcc<T>>(p, x, workspace, ArgFoldOps<T, ArgMaxOps<T>>{}, sink,
                                        device);
    else
      reduce_kernels::run<T, ArgAcc<T>>(p, x, workspace, ArgFoldOps<T, ArgMinOps<T>>{}, sink,
                                        device);
  });
}

}  // namespace ember::cuda::detail
