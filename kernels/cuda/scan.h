#pragma once
// The CUDA entry points of the scan family (kernels/common/scan_kernels.h says
// what each computes): one thread per line walking it with
// kernels/common/scan_functors.h, in kernels/cuda/scan_kernels.cu. Registered
// in kernels/cuda/register_kernels.cu.
#include "ember/kernels/common/scan_kernels.h"

namespace ember::cuda {

decltype(ScanKernels::scan)::Signature scan_kernel;
decltype(ScanKernels::logcumsumexp)::Signature logcumsumexp_kernel;
decltype(ScanKernels::cum_extreme)::Signature cum_extreme_kernel;

}  // namespace ember::cuda
