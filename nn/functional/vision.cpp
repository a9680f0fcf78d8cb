#include "ember/nn/functional/vision.h"

#include "ember/core/ops/binary.h"
#include "ember/core/ops/binary_math.h"
#include "ember/core/ops/compare.h"
#include "ember/core/ops/factory.h"
#include "ember/core/ops/indexing.h"
#include "ember/core/ops/logical.h"
#include "ember/core/ops/matmul.h"
#include "ember/core/ops/unary.h"
#include "ember/core/ops/views.h"

namespace ember::nn::functional {

namespace {

// n points spread over [-1, 1]: the pixel centres in affine_grid's convention.
Tensor linspace_from_neg_one(int64_t n, bool align_corners, const TensorOptions& options) {
  if (n <= 1) return zeros({n}, options);
  const Tensor r = linspace(-1, 1, n, options);
  return align_corners ? r : r * (static_cast<double>(n - 1) / static_cast<double>(n));
}

// x folded into [lo, hi] by mirroring it at both ends (period 2 * (hi - lo)).
Tensor reflect(const Tensor& x, double lo, double hi) {
  if (hi <= lo) return x * 0.0;
  const double span = hi - lo;
  const Tensor d = abs(x - lo);
  const Tensor extra = fmod(d, span);
  const Tensor odd = remainder(floor(d.detach() / span), 2).eq(1);  // an odd number of flips
  return where(odd, span - extra, extra) + lo;
}

// Normalized coordinates along a dim of `size` pixels -> pixel coordinates,
// with the padding mode's folding of points outside.
Tensor source_coordinate(const Tensor& coord, int64_t size, bool align_corners,
                         GridSamplePaddingMode::Kind padding) {
  const double n = static_cast<double>(size);
  Tensor x = align_corners ? (coord + 1) * ((n - 1) / 2) : ((coord + 1) * n - 1) / 2;
  if (padding == GridSamplePaddingMode::Kind::Reflection)
    x = align_corners ? reflect(x, 0, n - 1) : reflect(x, -0.5, n - 0.5);
  if (padding != GridSamplePaddingMode::Kind::Zeros) x = clamp(x, 0, n - 1);
  return x;
}

// input (N, C, H, W) at integral pixel coordinates rows, cols (N, Ho, Wo) ->
// (N, C, Ho, Wo), zero where (row, col) lies outside the input.
Tensor pixels_at(const Tensor& input, const Tensor& rows, const Tensor& cols) {
  const int64_t n = input.size(0), c = input.size(1), h = input.size(2), w = input.size(3);
  const int64_t ho = rows.size(1), wo = rows.size(2);
  const Tensor inside = logical_and(logical_and(rows.ge(0), rows.le(h - 1)),
                                    logical_and(cols.ge(0), cols.le(w - 1)));
  const Tensor flat = (clamp(rows, 0, h - 1) * w + clamp(cols, 0, w - 1)).to(kLong);
  const Tensor v = gather(input.reshape({n, c, h * w}), 2,
                          flat.view({n, 1, ho * wo}).expand({n, c, ho * wo}))
                       .view({n, c, ho, wo});
  return where(inside.unsqueeze(1), v, 0.0);
}

}  // namespace

Tensor affine_grid(const Tensor& theta, IntArrayRef size, bool align_corners) {
  EMBER_CHECK(size.size() == 4, "affine_grid: size must be {N, C, H, W} (only 4-D sizes are "
              "supported), got ", size);
  EMBER_CHECK(is_floating_point(theta.scalar_type()),
              "affine_grid: theta must be floating point, got ", theta.scalar_type());
  EMBER_CHECK(theta.dim() == 3 && theta.size(0) == size[0] && theta.size(1) == 2 &&
                  theta.size(2) == 3,
              "affine_grid: expected theta of shape (N, 2, 3) = [", size[0], ", 2, 3] for size ",
              size, ", got ", theta.sizes());
  const int64_t h = size[2], w = size[3];
  const Tensor xs = linspace_from_neg_one(w, align_corners, theta.options());
  const Tensor ys = linspace_from_neg_one(h, align_corners, theta.options());
  const Tensor base = cat({xs.view({1, w, 1}).expand({h, w, 1}), ys.view({h, 1, 1}).expand({h, w, 1}),
                           ones({h, w, 1}, theta.options())},
                          2);  // (H, W, 3): (x, y, 1)
  // (1, H * W, 3) @ (N, 3, 2) -> (N, H * W, 2)
  return matmul(base.view({1, h * w, 3}), theta.transpose(1, 2)).view({size[0], h, w, 2});
}

Tensor grid_sample(const Tensor& input, const Tensor& grid, const GridSampleFuncOptions& options) {
  EMBER_CHECK(input.dim() == 4, "grid_sample: expected a 4-D input (N, C, H, W) (5-D is not "
              "supported), got ", input.sizes());
  EMBER_CHECK(grid.dim() == 4 && grid.size(3) == 2 && grid.size(0) == input.size(0),
              "grid_sample: expected grid of shape (N, Ho, Wo, 2) with N = ", input.size(0),
              " for input ", input.sizes(), ", got ", grid.sizes());
  EMBER_CHECK(is_floating_point(input.scalar_type()) && input.scalar_type() == grid.scalar_type(),
              "grid_sample: input and grid must have the same floating point dtype, got ",
              input.scalar_type(), " and ", grid.scalar_type());
  EMBER_CHECK(input.device() == grid.device(), "grid_sample: input and grid must be on one "
              "device, got ", input.device(), " and ", grid.device());
  EMBER_CHECK(input.size(2) > 0 && input.size(3) > 0,
              "grid_sample: the input's height and width must be positive, got ", input.sizes());
  const bool align = options.align_corners().value_or(false);
  const auto padding = options.padding_mode().kind();
  const Tensor x = source_coordinate(grid.select(3, 0), input.size(3), align, padding);
  const Tensor y = source_coordinate(grid.select(3, 1), input.size(2), align, padding);
  if (options.mode() == kNearest) return pixels_at(input, round(y.detach()), round(x.detach()));
  // The 4 neighbours, each weighted by the area of the opposite sub-rectangle.
  const Tensor x0 = floor(x.detach()), y0 = floor(y.detach());
  const Tensor wx1 = x - x0, wy1 = y - y0, wx0 = 1 - wx1, wy0 = 1 - wy1;
  return pixels_at(input, y0, x0) * (wy0 * wx0).unsqueeze(1) +
         pixels_at(input, y0, x0 + 1) * (wy0 * wx1).unsqueeze(1) +
         pixels_at(input, y0 + 1, x0) * (wy1 * wx0).unsqueeze(1) +
         pixels_at(input, y0 + 1, x0 + 1) * (wy1 * wx1).unsqueeze(1);
}

}  // namespace ember::nn::functional
