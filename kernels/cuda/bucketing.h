#pragma once
// The CUDA entry points of the bucketing family
// (kernels/common/bucketing_kernels.h says what each computes), in
// bucketing_kernels.cu next to their kernels, registered in
// kernels/cuda/register_kernels.cu. No host sync.
#include "ember/kernels/common/bucketing_kernels.h"

namespace ember::cuda {

decltype(BucketingKernels::searchsorted)::Signature searchsorted;
decltype(BucketingKernels::bincount)::Signature bincount;
decltype(BucketingKernels::histc)::Signature histc;

}  // namespace ember::cuda
