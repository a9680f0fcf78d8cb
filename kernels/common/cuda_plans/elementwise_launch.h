#pragma once
// The launch plan of a CUDA elementwise op from its tensors, read by the
// kernels of kernels/cuda/elementwise_*.cu. Plain C++, built in every
// configuration and tested on the CPU (tests/cuda_elementwise_plan_test.cpp).
#include <initializer_list>

#include "ember/core/tensor.h"
#include "ember/kernels/common/cuda_plans/elementwise_geometry.h"

namespace ember::cuda {

// The launch of out = f(inputs...) (at most kMaxElementwiseInputs): the
// geometry, and whether the vector path applies.
ElementwiseLaunch plan_elementwise(const char* name, const Tensor& out,
                                   std::initializer_list<const Tensor*> inputs);

}  // namespace ember::cuda
