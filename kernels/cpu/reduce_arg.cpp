// The CPU max / min along a dim with indices, argmax / argmin: arg_reduce of
// reduce_loops.h over the contiguous (outer, n, inner) view of the input, for
// every dtype.
#include "ember/kernels/common/reduce_functors.h"
#include "ember/kernels/cpu/reduce.h"
#include "ember/kernels/cpu/reduce_loops.h"

namespace ember::cpu {

void arg_reduce_kernel(const char* name, bool is_max, const Tensor& values, const Tensor& indices,
                       const Tensor& in, int64_t dim) {
  int64_t outer = 1, n = 1, inner = 1;  // in seen as (outer, n, inner) around dim
  for (int64_t d = 0; d < in.dim(); ++d) (d < dim ? outer : d == dim ? n : inner) *= in.size(d);
  const Tensor x = contiguous_for_loops(in);
  dispatch_all(in.scalar_type(), name, [&]<typename T>() {
    T* v = values.defined() ? values.data_ptr<T>() : nullptr;
    int64_t* i = indices.data_ptr<int64_t>();
    const T* src = x.data_ptr<T>();
    if (is_max)
      arg_reduce(src, outer, n, inner, v, i, functors::ArgMaxOps<T>{});
    else
      arg_reduce(src, outer, n, inner, v, i, functors::ArgMinOps<T>{});
  });
}

}  // namespace ember::cpu
