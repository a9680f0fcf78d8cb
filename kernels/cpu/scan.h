#pragma once
// The CPU entry points of the scan family (kernels/common/scan_kernels.h says
// what each computes): the line functions of kernels/common/scan_functors.h,
// one line after another. Registered in kernels/cpu/register_kernels.cpp.
#include "ember/kernels/common/scan_kernels.h"

namespace ember::cpu {

decltype(ScanKernels::scan)::Signature scan_kernel;
decltype(ScanKernels::logcumsumexp)::Signature logcumsumexp_kernel;
decltype(ScanKernels::cum_extreme)::Signature cum_extreme_kernel;

}  // namespace ember::cpu
