#pragma once

namespace ember::cuda {

// The launch of out = f(inputs...) (at most kMaxElementwiseInputs): the
// geometry, and whether the vector path applies.
ElementwiseLaunch plan_elementwise(const char* name, const Tensor& out,
                                   std::initializer_list<const Tensor*> inputs);

}  // namespace ember::cuda
