// The CPU backend's kernels, one line per entry point of each family's table
// (Note [Kernel tables]).
#include "ember/kernels/common/kernel_registry.h"
#include "ember/kernels/cpu/elementwise.h"
#include "ember/kernels/cpu/reduce.h"
#include "ember/kernels/cpu/scan.h"

namespace ember::cpu {

void register_kernels(KernelRegistry& r) {
  r.elementwise.binary.set(kCPU, &binary_kernel);
  r.elementwise.unary.set(kCPU, &unary_kernel);
  r.elementwise.compare.set(kCPU, &compare_kernel);
  r.elementwise.ternary.set(kCPU, &ternary_kernel);
  r.elementwise.where.set(kCPU, &where_kernel);
  r.elementwise.loss.set(kCPU, &loss_kernel);

  r.reduce.reduce.set(kCPU, &reduce_kernel);
  r.reduce.arg_reduce.set(kCPU, &arg_reduce_kernel);
  r.reduce.abs_pow_sum.set(kCPU, &abs_pow_sum_kernel);

  r.scan.scan.set(kCPU, &scan_kernel);
  r.scan.logcumsumexp.set(kCPU, &logcumsumexp_kernel);
  r.scan.cum_extreme.set(kCPU, &cum_extreme_kernel);
}

}  // namespace ember::cpu
