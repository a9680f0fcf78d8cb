#include "ember/nn/optim/step_count.h"

#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/nn_ops/fused_optim.h"

namespace ember::optim {

int64_t StepCount::get() const { return on_device() ? device_.item<int64_t>() : host_; }

void StepCount::set(int64_t value) {
  host_ = value;
  device_ = Tensor();
}

int64_t StepCount::advance() {
  set(get() + 1);
  return host_;
}

const Tensor& StepCount::advance_unless(const Tensor& found_inf) {
  if (!on_device() || device_.device() != found_inf.device())
    device_ = full({}, get(), TensorOptions(kLong).device(found_inf.device()));
  fused::count_step_(device_, found_inf);
  return device_;
}

}  // namespace ember::optim
