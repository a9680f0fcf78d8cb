#pragma once
// 2-D pooling, as torch::nn::functional's:
//   F::max_pool2d(x, F::MaxPool2dFuncOptions(2).stride(2));
#include <tuple>

#include "ember/core/tensor.h"
#include "ember/nn/options/pooling.h"

namespace ember::nn::functional {

// x: (N, C, H, W) or (C, H, W).
Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options);
// (output, indices): indices are flat positions in each H*W plane.
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input,
                                                   const MaxPool2dFuncOptions& options);
Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& options);
Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& options);

}  // namespace ember::nn::functional
