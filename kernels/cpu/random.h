#pragma once
// The CPU entry points of the random family (kernels/common/random_kernels.h
// says what each computes): the Philox loops behind uniform_, normal_,
// randint and the dropout keep-mask. Registered in
// kernels/cpu/register_kernels.cpp.
#include "ember/kernels/common/random_kernels.h"

namespace ember::cpu {

void uniform_kernel(const Tensor& t, double from, double to);
void normal_kernel(const Tensor& t, double mean, double std);
void randint_kernel(const Tensor& t, int64_t low, int64_t high);
void dropout_mask_kernel(const Tensor& mask, double p);

}  // namespace ember::cpu
