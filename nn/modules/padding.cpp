#include "ember/nn/modules/padding.h"

#include "ember/core/ops/nn_ops/pad.h"

namespace ember::nn::detail {

Tensor pad_forward(const Tensor& x, ArrayRef<int64_t> padding, PadMode mode, double value) {
  return ember::pad(x, padding, mode, value);
}

void print_pad(std::ostream& stream, const char* name, ArrayRef<int64_t> padding) {
  stream << name << "(padding=" << padding << ")";
}

}  // namespace ember::nn::detail
