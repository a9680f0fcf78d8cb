#include "ember/nn/functional/loss_checks.h"

#include <algorithm>

#include "ember/core/error.h"
#include "ember/core/shape.h"

namespace ember::nn::functional::detail {

void check_floating_target(const char* op, const Tensor& target) {
  EMBER_CHECK(target.is_floating_point(), op, ": expected a floating point target, got ",
              target.scalar_type());
}

void check_label_target(const char* op, const Tensor& target) {
  EMBER_CHECK(target.is_floating_point() || target.scalar_type() == kLong, op,
              ": expected a floating point or int64 target of +-1 labels, got ",
              target.scalar_type());
}

void check_broadcastable(const char* op, const char* a_name, const Tensor& a, const char* b_name,
                         const Tensor& b) {
  const DimVector as(a.sizes()), bs(b.sizes());
  const size_t n = std::max(as.size(), bs.size());
  for (size_t i = 0; i < n; ++i) {
    const int64_t x = i < as.size() ? as[as.size() - 1 - i] : 1;
    const int64_t y = i < bs.size() ? bs[bs.size() - 1 - i] : 1;
    EMBER_CHECK(x == y || x == 1 || y == 1, op, ": ", a_name, " of shape ", a.sizes(), " and ",
                b_name, " of shape ", b.sizes(), " do not broadcast");
  }
}

void check_float_inputs(const char* op, std::initializer_list<const Tensor*> inputs) {
  const Tensor* first = *inputs.begin();
  for (const Tensor* t : inputs) {
    EMBER_CHECK(t->defined(), op, ": inputs must be defined");
    EMBER_CHECK(t->device() == first->device(), op, ": expected inputs on one device, got ",
                first->toString(), " and ", t->toString());
    EMBER_CHECK(t->is_floating_point(), op, ": expected floating point inputs, got ",
                t->scalar_type());
  }
}

}  // namespace ember::nn::functional::detail
