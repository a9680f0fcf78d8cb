#pragma once
// The CPU entry points of the bucketing family
// (kernels/common/bucketing_kernels.h says what each computes), registered in
// kernels/cpu/register_kernels.cpp. The maths per element is
// kernels/common/bucketing_functors.h's.
#include "ember/kernels/common/bucketing_kernels.h"

namespace ember::cpu {

decltype(BucketingKernels::searchsorted)::Signature searchsorted;
decltype(BucketingKernels::bincount)::Signature bincount;
decltype(BucketingKernels::histc)::Signature histc;

}  // namespace ember::cpu
