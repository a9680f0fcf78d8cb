#pragma once
// The CPU entry points of the bucketing family
// (kernels/common/bucketing_kernels.h says what each computes), registered in
// kernels/cpu/register_kernels.cpp. The maths per element is
// kernels/common/bucketing_functors.h's.
#include "ember/kernels/common/bucketing_kernels.h"

namespace ember::cpu {

void searchsorted(const Tensor& out, const Tensor& seq, const Tensor& values, const Tensor& sorter,
                  int64_t seq_rows, int64_t n, bool right);
void bincount(const Tensor& out, const Tensor& x, const Tensor& weights);
void histc(const Tensor& out, const Tensor& x, double lo, double hi);

}  // namespace ember::cpu
