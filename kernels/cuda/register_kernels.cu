// The CUDA backend's kernels, one line per entry point of each family's table
// (Note [Kernel tables]). Built only with the CUDA backend.
#include "ember/kernels/common/kernel_registry.h"
#include "ember/kernels/cuda/elementwise.h"
#include "ember/kernels/cuda/reduce.h"
#include "ember/kernels/cuda/scan.h"

namespace ember::cuda {

void register_kernels(KernelRegistry& r) {
  r.elementwise.binary.set(kCUDA, &binary_kernel);
  r.elementwise.unary.set(kCUDA, &unary_kernel);
  r.elementwise.compare.set(kCUDA, &compare_kernel);
  r.elementwise.ternary.set(kCUDA, &ternary_kernel);
  r.elementwise.where.set(kCUDA, &where_kernel);
  r.elementwise.loss.set(kCUDA, &loss_kernel);

  r.reduce.reduce.set(kCUDA, &reduce_kernel);
  r.reduce.arg_reduce.set(kCUDA, &arg_reduce_kernel);
  r.reduce.abs_pow_sum.set(kCUDA, &abs_pow_sum_kernel);

  r.scan.scan.set(kCUDA, &scan_kernel);
  r.scan.logcumsumexp.set(kCUDA, &logcumsumexp_kernel);
  r.scan.cum_extreme.set(kCUDA, &cum_extreme_kernel);
}

}  // namespace ember::cuda
