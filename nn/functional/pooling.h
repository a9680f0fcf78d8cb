#pragma once
// 1-d and 2-d pooling, as torch::nn::functional's:
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
Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options);
std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(
    const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options);

// x: (N, C, L) or (C, L).
Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options);
// (output, indices): indices are positions along L.
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input,
                                                   const MaxPool1dFuncOptions& options);
Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& options);
Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& options);
Tensor adaptive_max_pool1d(const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options);
std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(
    const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options);

}  // namespace ember::nn::functional
