#pragma once
// The CPU entry points of the copy family (kernels/common/copy_kernels.h says
// what each computes): the strided cast loop behind copy_ / clone / to(dtype)
// and the fill behind fill_ / full / zeros. Registered in
// kernels/cpu/register_kernels.cpp. The transfers have no CPU kernel.
#include "ember/kernels/common/copy_kernels.h"

namespace ember::cpu {

void copy_kernel(const Tensor& dst, const Tensor& src);
void fill_kernel(const Tensor& t, const Scalar& value);

}  // namespace ember::cpu
