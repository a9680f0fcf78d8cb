#include "ember/core/ops/reduction/abs_pow_sum.h"

#include "ember/core/ops/creation/factory.h"
#include "ember/kernels/common/kernel_registry.h"

namespace ember {

Tensor abs_pow_sum(const char* name, const Tensor& x, double p) {
  Tensor out = empty({}, TensorOptions(kDouble).device(x.device()));
  kernels().reduce.abs_pow_sum.on(x.device(), name)(name, out, x, p);
  return out;
}

}  // namespace ember
