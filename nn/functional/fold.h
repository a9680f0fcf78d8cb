#pragma once
// F::unfold (im2col) and F::fold (col2im, its adjoint), as
// torch::nn::functional's. Both are composed of index_select / index_add over
// the flattened padded image, so gradients and CUDA come from those ops.
#include "ember/core/tensor.h"
#include "ember/nn/options/fold.h"

namespace ember::nn::functional {

// x: (N, C, H, W) or (C, H, W) -> (N, C * kH * kW, L) or (C * kH * kW, L): column
// l holds the window at block position l (row-major over the L = oH * oW
// positions), channel-major then kernel row then kernel column; zero padding.
Tensor unfold(const Tensor& input, const UnfoldFuncOptions& options);
// cols: (N, C * kH * kW, L) or (C * kH * kW, L) -> (N, C, H, W) or (C, H, W),
// (H, W) = output_size: each column's values are added back at the positions
// unfold reads them from (overlaps add up; positions in the padding are dropped).
Tensor fold(const Tensor& input, const FoldFuncOptions& options);

}  // namespace ember::nn::functional
