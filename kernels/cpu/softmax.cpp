// The CPU entry points of the softmax family (kernels/cpu/softmax.h): the
// line kernels instantiated for each floating dtype.
#include "ember/kernels/cpu/softmax.h"

namespace ember::cpu {

// The CPU kernel walks lines of any inner stride in place.
bool softmax_by_columns(int64_t, int64_t) { return true; }

void softmax_columns_kernel(const char* op, bool log, const Tensor& y, const Tensor& x,
                            int64_t outer, int64_t n, int64_t inner) {
  dispatch_floating(x.scalar_type(), op, [&]<typename T>() {
    if (log)
      softmax<T, true>(x.data_ptr<T>(), y.data_ptr<T>(), outer, n, inner);
    else
      softmax<T, false>(x.data_ptr<T>(), y.data_ptr<T>(), outer, n, inner);
  });
}

void logsumexp_kernel(const Tensor& y, const Tensor& x, int64_t rows, int64_t n) {
  dispatch_floating(x.scalar_type(), "logsumexp", [&]<typename T>() {
    logsumexp<T>(x.data_ptr<T>(), y.data_ptr<T>(), rows, n, 1);
  });
}

}  // namespace ember::cpu
