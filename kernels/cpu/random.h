#pragma once
// The CPU entry points of the random family (kernels/common/random_kernels.h
// says what each computes): the Philox loops behind uniform_, normal_,
// randint and the dropout keep-mask. Registered in
// kernels/cpu/register_kernels.cpp.
#include "ember/kernels/common/random_kernels.h"

namespace ember::cpu {

decltype(RandomKernels::uniform)::Signature uniform_kernel;
decltype(RandomKernels::normal)::Signature normal_kernel;
decltype(RandomKernels::randint)::Signature randint_kernel;
decltype(RandomKernels::dropout_mask)::Signature dropout_mask_kernel;

}  // namespace ember::cpu
