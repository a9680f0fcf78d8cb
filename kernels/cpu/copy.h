#pragma once
// The CPU entry points of the copy family (kernels/common/copy_kernels.h says
// what each computes): the strided cast loop behind copy_ / clone / to(dtype)
// and the fill behind fill_ / full / zeros. Registered in
// kernels/cpu/register_kernels.cpp. The transfers have no CPU kernel.
#include "ember/kernels/common/copy_kernels.h"

namespace ember::cpu {

decltype(CopyKernels::copy)::Signature copy_kernel;
decltype(CopyKernels::fill)::Signature fill_kernel;

}  // namespace ember::cpu
