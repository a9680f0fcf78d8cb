#include "ember/core/autocast.h"
#include "ember/nn/functional/vision.h"

#include <algorithm>
#include <vector>

#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/elementwise/binary_math.h"
#include "ember/core/ops/elementwise/compare.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/indexing/indexing.h"
#include "ember/core/ops/elementwise/logical.h"
#include "ember/core/ops/linalg/matmul.h"
#include "ember/core/ops/elementwise/unary.h"
#include "ember/core/ops/elementwise/unary_math.h"
#include "ember/core/ops/shape/views.h"

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

// Normalized coordinates along a dim of `size` pixels -> pixel coordinates.
Tensor unnormalize(const Tensor& coord, int64_t size, bool align_corners) {
  const double n = static_cast<double>(size);
  return align_corners ? (coord + 1) * ((n - 1) / 2) : ((coord + 1) * n - 1) / 2;
}

// The padding mode's folding of pixel coordinates x outside [0, size - 1].
Tensor fold_inside(const Tensor& x, int64_t size, bool align_corners,
                   GridSamplePaddingMode::Kind padding) {
  const double n = static_cast<double>(size);
  if (padding == GridSamplePaddingMode::Kind::Zeros) return x;
  const Tensor r = padding == GridSamplePaddingMode::Kind::Border ? x
                   : align_corners                                ? reflect(x, 0, n - 1)
                                                                  : reflect(x, -0.5, n - 0.5);
  return clamp(r, 0, n - 1);
}

// Keys' cubic convolution kernel (A = -0.75) at distance s: the weight of a
// tap s pixels from the sample point.
Tensor cubic_weight(const Tensor& s) {
  constexpr double a = -0.75;
  const Tensor d = abs(s);
  const Tensor near = ((a + 2) * d - (a + 3)) * d * d + 1;  // |s| <= 1
  const Tensor far = ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;  // 1 < |s| < 2
  return where(d.le(1), near, far);
}

// input (N, C, *S) at integral pixel coordinates coords (each (N, *So)), one
// per spatial dim in the input's order ((D,) H, W) -> (N, C, *So), zero where
// the point lies outside the input.
Tensor pixels_at(const Tensor& input, const std::vector<Tensor>& coords) {
  const int64_t n = input.size(0), c = input.size(1);
  Tensor inside, flat;  // flat: the row-major position in the (*S) plane
  int64_t plane = 1;
  for (size_t i = 0; i < coords.size(); ++i) {
    const int64_t s = input.size(2 + static_cast<int64_t>(i));
    const Tensor in_i = logical_and(coords[i].ge(0), coords[i].le(s - 1));
    inside = inside.defined() ? logical_and(inside, in_i) : in_i;
    const Tensor at = clamp(coords[i], 0, s - 1);
    flat = flat.defined() ? flat * s + at : at;
    plane *= s;
  }
  const int64_t m = flat.numel() / std::max<int64_t>(n, 1);
  std::vector<int64_t> shape(flat.sizes().begin(), flat.sizes().end());
  shape.insert(shape.begin() + 1, c);
  const Tensor v = gather(input.reshape({n, c, plane}), 2,
                          flat.to(kLong).reshape({n, 1, m}).expand({n, c, m}))
                       .view(shape);
  return where(inside.unsqueeze(1), v, 0.0);
}

}  // namespace

Tensor affine_grid(const Tensor& theta, IntArrayRef size, bool align_corners) {
  EMBER_CHECK(size.size() == 4 || size.size() == 5,
              "affine_grid: size must be {N, C, H, W} or {N, C, D, H, W}, got ", size);
  EMBER_CHECK(is_floating_point(theta.scalar_type()),
              "affine_grid: theta must be floating point, got ", theta.scalar_type());
  const int64_t k = static_cast<int64_t>(size.size()) - 2;  // spatial dims
  EMBER_CHECK(theta.dim() == 3 && theta.size(0) == size[0] && theta.size(1) == k &&
                  theta.size(2) == k + 1,
              "affine_grid: expected theta of shape (N, ", k, ", ", k + 1, ") = [", size[0], ", ",
              k, ", ", k + 1, "] for size ", size, ", got ", theta.sizes());
  // base (*S, k + 1): the point (x, y, (z,) 1) of each output pixel, x along
  // the last dim.
  std::vector<int64_t> spatial(size.begin() + 2, size.end()), one_column = spatial;
  one_column.push_back(1);
  int64_t m = 1;
  for (int64_t s : spatial) m *= s;
  std::vector<Tensor> columns;
  for (int64_t j = 0; j < k; ++j) {
    const int64_t d = k - 1 - j;  // the spatial dim component j runs along
    std::vector<int64_t> shape(static_cast<size_t>(k + 1), 1);
    shape[static_cast<size_t>(d)] = spatial[static_cast<size_t>(d)];
    columns.push_back(linspace_from_neg_one(spatial[static_cast<size_t>(d)], align_corners,
                                            theta.options())
                          .view(shape)
                          .expand(one_column));
  }
  columns.push_back(ones(one_column, theta.options()));
  const Tensor base = cat(columns, k);
  // (1, M, k + 1) @ (N, k + 1, k) -> (N, M, k)
  std::vector<int64_t> out = {size[0]};
  out.insert(out.end(), spatial.begin(), spatial.end());
  out.push_back(k);
  return matmul(base.view({1, m, k + 1}), theta.transpose(1, 2)).view(out);
}

Tensor grid_sample(const Tensor& input, const Tensor& grid, const GridSampleFuncOptions& options) {
  // Autocast: float32 on the CPU, the wider operand's dtype on CUDA (PyTorch's lists).
  constexpr autocast::OpPolicy kPolicy{autocast::Policy::kFloat32, autocast::Policy::kPromote};
  if (const auto to = autocast::cast_dtype(kPolicy, {&input, &grid})) {
    const autocast::Suspend as_listed(DeviceType::CPU);  // its inner ops as called
    return grid_sample(autocast::cast(input, *to), autocast::cast(grid, *to), options);
  }
  EMBER_CHECK(input.dim() == 4 || input.dim() == 5,
              "grid_sample: expected a 4-D (N, C, H, W) or 5-D (N, C, D, H, W) input, got ",
              input.sizes());
  const int64_t k = input.dim() - 2;  // spatial dims
  EMBER_CHECK(grid.dim() == input.dim() && grid.size(-1) == k && grid.size(0) == input.size(0),
              "grid_sample: expected grid of shape ",
              k == 2 ? "(N, Ho, Wo, 2)" : "(N, Do, Ho, Wo, 3)", " with N = ", input.size(0),
              " for input ", input.sizes(), ", got ", grid.sizes());
  EMBER_CHECK(is_floating_point(input.scalar_type()) && input.scalar_type() == grid.scalar_type(),
              "grid_sample: input and grid must have the same floating point dtype, got ",
              input.scalar_type(), " and ", grid.scalar_type());
  EMBER_CHECK(input.device() == grid.device(), "grid_sample: input and grid must be on one "
              "device, got ", input.device(), " and ", grid.device());
  for (int64_t i = 2; i < input.dim(); ++i)
    EMBER_CHECK(input.size(i) > 0, "grid_sample: the input's spatial sizes must be positive, got ",
                input.sizes());
  const bool align = options.align_corners().value_or(false);
  const auto padding = options.padding_mode().kind();
  const auto mode = options.mode().kind();
  EMBER_CHECK(mode != GridSampleMode::Kind::Bicubic || k == 2,
              "grid_sample: mode kBicubic supports only 4-D inputs, got ", input.sizes());
  // Pixel coordinates in the input's dim order; grid's last entry is x (along W).
  std::vector<Tensor> at(static_cast<size_t>(k));
  for (int64_t i = 0; i < k; ++i)
    at[static_cast<size_t>(i)] = unnormalize(grid.select(-1, k - 1 - i), input.size(2 + i), align);
  if (mode == GridSampleMode::Kind::Bicubic) {
    // 4 x 4 taps around (y, x); the padding folds each tap's position, as PyTorch.
    const Tensor y0 = floor(at[0].detach()), x0 = floor(at[1].detach());
    Tensor out;
    for (int64_t i = -1; i <= 2; ++i)
      for (int64_t j = -1; j <= 2; ++j) {
        const Tensor row = fold_inside(y0 + i, input.size(2), align, padding);
        const Tensor col = fold_inside(x0 + j, input.size(3), align, padding);
        const Tensor w = cubic_weight(at[0] - (y0 + i)) * cubic_weight(at[1] - (x0 + j));
        const Tensor term = pixels_at(input, {round(row), round(col)}) * w.unsqueeze(1);
        out = out.defined() ? out + term : term;
      }
    return out;
  }
  for (int64_t i = 0; i < k; ++i)
    at[static_cast<size_t>(i)] = fold_inside(at[static_cast<size_t>(i)], input.size(2 + i), align,
                                             padding);
  if (mode == GridSampleMode::Kind::Nearest) {
    for (Tensor& a : at) a = round(a.detach());
    return pixels_at(input, at);
  }
  // The 2^k neighbours, each weighted by the volume of the opposite sub-box.
  std::vector<Tensor> lower, frac;
  for (const Tensor& a : at) {
    lower.push_back(floor(a.detach()));
    frac.push_back(a - lower.back());
  }
  Tensor out;
  for (int64_t corner = 0; corner < (int64_t{1} << k); ++corner) {
    std::vector<Tensor> point;
    Tensor weight;
    for (int64_t i = 0; i < k; ++i) {
      const bool upper = (corner >> (k - 1 - i)) & 1;
      const size_t u = static_cast<size_t>(i);
      point.push_back(upper ? lower[u] + 1 : lower[u]);
      const Tensor w = upper ? frac[u] : 1 - frac[u];
      weight = weight.defined() ? weight * w : w;
    }
    const Tensor term = pixels_at(input, point) * weight.unsqueeze(1);
    out = out.defined() ? out + term : term;
  }
  return out;
}

}  // namespace ember::nn::functional
