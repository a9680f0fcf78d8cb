#pragma once
// F::affine_grid and F::grid_sample (4-D and 5-D), as torch::nn::functional's:
// composed of matmul, gather and pointwise ops, so gradients and CUDA come from those.
#include "ember/core/tensor.h"
#include "ember/nn/options/vision.h"

namespace ember::nn::functional {

// The sampling grid of an affine map: theta (N, 2, 3) maps each output pixel's
// normalized (x, y, 1) to the input point it reads; size = {N, C, H, W} ->
// grid (N, H, W, 2). Volumes: theta (N, 3, 4) maps (x, y, z, 1), size =
// {N, C, D, H, W} -> grid (N, D, H, W, 3). Pixel centres lie at
// -1 + (2k + 1) / size, or at -1 + 2k / (size - 1) with align_corners (0 for a
// size of 1).
Tensor affine_grid(const Tensor& theta, IntArrayRef size, bool align_corners = false);
// input (N, C, H, W) read at grid (N, Ho, Wo, 2) -> (N, C, Ho, Wo), or input
// (N, C, D, H, W) at grid (N, Do, Ho, Wo, 3) -> (N, C, Do, Ho, Wo). grid[..., 0]
// is x (along W), grid[..., 1] is y (along H), grid[..., 2] is z (along D), all
// normalized to [-1, 1] as in affine_grid. kBilinear weights the 4 (volumes:
// 8) nearest pixels (gradients wrt input and grid); kNearest takes the nearest
// one, halves to even (gradient wrt input only); kBicubic (4-D only) weights
// the 4 x 4 nearest by Keys' cubic kernel (A = -0.75), the padding mode moving
// each of them inside (gradients wrt input and grid).
Tensor grid_sample(const Tensor& input, const Tensor& grid,
                   const GridSampleFuncOptions& options = {});

}  // namespace ember::nn::functional
