#pragma once
// The CPU entry points of the range factory family
// (kernels/common/factory_kernels.h says what each computes): the loops
// behind arange and linspace. Registered in kernels/cpu/register_kernels.cpp.
#include "ember/kernels/common/factory_kernels.h"

namespace ember::cpu {

void arange_kernel(const Tensor& t, const Scalar& start, const Scalar& step, bool integral);
void linspace_kernel(const Tensor& t, double start, double end);

}  // namespace ember::cpu
