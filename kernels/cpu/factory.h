#pragma once
// The CPU entry points of the range factory family
// (kernels/common/factory_kernels.h says what each computes): the loops
// behind arange and linspace. Registered in kernels/cpu/register_kernels.cpp.
#include "ember/kernels/common/factory_kernels.h"

namespace ember::cpu {

decltype(FactoryKernels::arange)::Signature arange_kernel;
decltype(FactoryKernels::linspace)::Signature linspace_kernel;

}  // namespace ember::cpu
