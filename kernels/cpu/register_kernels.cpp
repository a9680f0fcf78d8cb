// The CPU backend's kernels, one line per entry point of each family's table
// (Note [Kernel tables]).
#include "ember/kernels/common/kernel_registry.h"
#include "ember/kernels/cpu/elementwise.h"
#include "ember/kernels/cpu/optim_kernels.h"

namespace ember::cpu {

void register_kernels(KernelRegistry& r) {
  r.elementwise.binary.set(kCPU, &binary_kernel);
  r.elementwise.unary.set(kCPU, &unary_kernel);
  r.elementwise.compare.set(kCPU, &compare_kernel);
  r.elementwise.ternary.set(kCPU, &ternary_kernel);
  r.elementwise.where.set(kCPU, &where_kernel);
  r.elementwise.loss.set(kCPU, &loss_kernel);

  r.optimizer.sgd.set(kCPU, &sgd_update);
  r.optimizer.adam.set(kCPU, &adam_update);
  r.optimizer.rmsprop.set(kCPU, &rmsprop_update);
  r.optimizer.adagrad.set(kCPU, &adagrad_update);
}

}  // namespace ember::cpu
