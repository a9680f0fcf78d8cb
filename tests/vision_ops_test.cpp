// Vision functionals and their modules (nn/functional/pixelshuffle.cpp,
// fold.cpp, vision.cpp, embedding_bag.cpp): values against naive float64 loops
// written here, gradients by gradcheck, error messages.
#include "test_helpers.h"

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

using namespace ember;
namespace F = ember::nn::functional;
using autograd::gradcheck;
using autograd::gradgradcheck;
using ember_test::require_values;
using ember_test::values;

namespace {

template <typename M>
std::string printed(const M& module) {
  std::ostringstream os;
  os << module;
  return os.str();
}

// 0, 1, 2, ... as float64 in the given shape.
Tensor iota(IntArrayRef shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return arange(n, kDouble).reshape(shape);
}

}  // namespace

// ---------------------------------------------------------------- pixel shuffle

TEST_CASE("pixel_shuffle puts channel c*r*r + i*r + j at pixel (h*r + i, w*r + j)",
          "[vision_ops]") {
  const int64_t n = 2, c = 3, r = 2, h = 2, w = 3;
  const Tensor x = iota({n, c * r * r, h, w});
  const Tensor y = F::pixel_shuffle(x, 2);
  REQUIRE(y.sizes() == IntArrayRef{n, c, h * r, w * r});
  const std::vector<double> xv = values(x);
  std::vector<double> want;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t k = 0; k < c; ++k)
      for (int64_t oh = 0; oh < h * r; ++oh)
        for (int64_t ow = 0; ow < w * r; ++ow) {
          const int64_t ch = k * r * r + (oh % r) * r + ow % r;
          want.push_back(xv[((b * c * r * r + ch) * h + oh / r) * w + ow / r]);
        }
  require_values(y, want);
}

TEST_CASE("pixel_unshuffle inverts pixel_shuffle, with extra batch dims and without any",
          "[vision_ops]") {
  const Tensor x = iota({2, 2, 9, 2, 2});  // (*, C*r*r, H, W) with r = 3
  const Tensor y = F::pixel_shuffle(x, F::PixelShuffleFuncOptions(3));
  REQUIRE(y.sizes() == IntArrayRef{2, 2, 1, 6, 6});
  require_values(F::pixel_unshuffle(y, 3), values(x));
  const Tensor z = iota({4, 2, 2});  // (C, H, W)
  REQUIRE(F::pixel_shuffle(z, 2).sizes() == IntArrayRef{1, 4, 4});
  require_values(F::pixel_unshuffle(F::pixel_shuffle(z, 2), 2), values(z));
}

TEST_CASE("PixelShuffle and PixelUnshuffle modules call the functionals and print their factor",
          "[vision_ops]") {
  nn::PixelShuffle shuffle(2);
  nn::PixelUnshuffle unshuffle(nn::PixelUnshuffleOptions(2));
  const Tensor x = randn({1, 8, 3, 2}, kDouble);
  require_values(shuffle(x), values(F::pixel_shuffle(x, 2)));
  require_values(unshuffle(shuffle(x)), values(x));
  REQUIRE(printed(*shuffle) == "PixelShuffle(upscale_factor=2)");
  REQUIRE(printed(*unshuffle) == "PixelUnshuffle(downscale_factor=2)");
}

TEST_CASE("pixel_shuffle and pixel_unshuffle pass gradcheck on a non-contiguous input",
          "[vision_ops]") {
  const Tensor x = randn({3, 8, 2, 3}, kDouble).transpose(2, 3).requires_grad_();  // (3, 8, 3, 2)
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return F::pixel_shuffle(in[0], 2); }, {x}));
  const Tensor u = randn({2, 2, 4, 6}, kDouble).requires_grad_();
  REQUIRE_GRADCHECK(
      gradcheck([](const tensor_list& in) { return F::pixel_unshuffle(in[0], 2); }, {u}));
}

TEST_CASE("pixel_shuffle and pixel_unshuffle reject sizes the factor does not divide",
          "[vision_ops]") {
  REQUIRE_THROWS_WITH(F::pixel_shuffle(zeros({1, 6, 2, 2}), 2),
                      Catch::Contains("pixel_shuffle") && Catch::Contains("[1, 6, 2, 2]") &&
                          Catch::Contains("upscale_factor^2 = 4"));
  REQUIRE_THROWS_WITH(F::pixel_shuffle(zeros({4, 2}), 2),
                      Catch::Contains("pixel_shuffle: expected an input of at least 3 dims"));
  REQUIRE_THROWS_WITH(F::pixel_shuffle(zeros({1, 4, 2, 2}), 0),
                      Catch::Contains("upscale_factor must be positive, got 0"));
  REQUIRE_THROWS_WITH(F::pixel_unshuffle(zeros({1, 1, 4, 3}), 2),
                      Catch::Contains("pixel_unshuffle") && Catch::Contains("[1, 1, 4, 3]") &&
                          Catch::Contains("downscale_factor 2"));
}

// ------------------------------------------------------------- unfold and fold

namespace {

// One window geometry, with naive loops over it.
struct Geometry {
  int64_t n, c, h, w, kh, kw, dh, dw, ph, pw, sh, sw;
  int64_t oh() const { return (h + 2 * ph - dh * (kh - 1) - 1) / sh + 1; }
  int64_t ow() const { return (w + 2 * pw - dw * (kw - 1) - 1) / sw + 1; }
  nn::UnfoldOptions unfold_options() const {
    return nn::UnfoldOptions({kh, kw}).dilation({dh, dw}).padding({ph, pw}).stride({sh, sw});
  }
  nn::FoldOptions fold_options() const {
    return nn::FoldOptions({h, w}, {kh, kw}).dilation({dh, dw}).padding({ph, pw}).stride({sh, sw});
  }
  // Calls f(n, c, i, j, y, x, row, col) for every window element whose input
  // pixel (row, col) lies inside the image (not in the padding).
  template <typename Fn>
  void for_each_tap(Fn f) const {
    for (int64_t b = 0; b < n; ++b)
      for (int64_t k = 0; k < c; ++k)
        for (int64_t i = 0; i < kh; ++i)
          for (int64_t j = 0; j < kw; ++j)
            for (int64_t y = 0; y < oh(); ++y)
              for (int64_t x = 0; x < ow(); ++x) {
                const int64_t row = y * sh - ph + i * dh, col = x * sw - pw + j * dw;
                if (row >= 0 && row < h && col >= 0 && col < w) f(b, k, i, j, y, x, row, col);
              }
  }
  int64_t col_index(int64_t b, int64_t k, int64_t i, int64_t j, int64_t y, int64_t x) const {
    return ((b * c + k) * kh * kw + i * kw + j) * oh() * ow() + y * ow() + x;
  }
  int64_t pixel_index(int64_t b, int64_t k, int64_t row, int64_t col) const {
    return ((b * c + k) * h + row) * w + col;
  }
};

const Geometry kGeometry{2, 3, 5, 6, 2, 3, 2, 1, 1, 2, 2, 1};

}  // namespace

TEST_CASE("unfold matches a naive im2col loop (dilation, padding, stride)", "[vision_ops]") {
  const Geometry g = kGeometry;
  const Tensor x = randn({g.n, g.c, g.h, g.w}, kDouble);
  const std::vector<double> xv = values(x);
  std::vector<double> want(static_cast<size_t>(g.n * g.c * g.kh * g.kw * g.oh() * g.ow()), 0.0);
  g.for_each_tap([&](int64_t b, int64_t k, int64_t i, int64_t j, int64_t y, int64_t xo, int64_t r,
                     int64_t cl) { want[g.col_index(b, k, i, j, y, xo)] = xv[g.pixel_index(b, k, r, cl)]; });
  const Tensor cols = F::unfold(x, g.unfold_options());
  REQUIRE(cols.sizes() == IntArrayRef{g.n, g.c * g.kh * g.kw, g.oh() * g.ow()});
  require_values(cols, want);
  // (C, H, W) without the batch dim
  require_values(F::unfold(x[1], g.unfold_options()), values(cols[1]));
}

TEST_CASE("fold matches a naive col2im loop and fold(unfold(x)) is x times the overlap count",
          "[vision_ops]") {
  const Geometry g = kGeometry;
  const Tensor cols = randn({g.n, g.c * g.kh * g.kw, g.oh() * g.ow()}, kDouble);
  const std::vector<double> cv = values(cols);
  std::vector<double> want(static_cast<size_t>(g.n * g.c * g.h * g.w), 0.0), count = want;
  g.for_each_tap([&](int64_t b, int64_t k, int64_t i, int64_t j, int64_t y, int64_t xo, int64_t r,
                     int64_t cl) {
    want[g.pixel_index(b, k, r, cl)] += cv[g.col_index(b, k, i, j, y, xo)];
    count[g.pixel_index(b, k, r, cl)] += 1;
  });
  require_values(F::fold(cols, g.fold_options()), want);
  require_values(F::fold(cols[0], g.fold_options()),
                 std::vector<double>(want.begin(), want.begin() + g.c * g.h * g.w));

  const Tensor x = randn({g.n, g.c, g.h, g.w}, kDouble);
  std::vector<double> scaled = values(x);
  for (size_t i = 0; i < scaled.size(); ++i) scaled[i] *= count[i];
  REQUIRE(*std::max_element(count.begin(), count.end()) > 1);  // windows overlap
  require_values(F::fold(F::unfold(x, g.unfold_options()), g.fold_options()), scaled);
}

TEST_CASE("unfold and fold pass gradcheck and gradgradcheck on non-contiguous inputs",
          "[vision_ops]") {
  const Geometry g{1, 2, 4, 5, 2, 2, 1, 2, 1, 0, 1, 2};
  const Tensor x = randn({g.n, g.c, g.w, g.h}, kDouble).transpose(2, 3).requires_grad_();
  auto unfold_fn = [&](const tensor_list& in) { return F::unfold(in[0], g.unfold_options()); };
  REQUIRE_GRADCHECK(gradcheck(unfold_fn, {x}));
  REQUIRE_GRADCHECK(gradgradcheck(unfold_fn, {x}));
  const Tensor cols =
      randn({g.oh() * g.ow(), g.c * g.kh * g.kw}, kDouble).t().unsqueeze(0).requires_grad_();
  auto fold_fn = [&](const tensor_list& in) { return F::fold(in[0], g.fold_options()); };
  REQUIRE_GRADCHECK(gradcheck(fold_fn, {cols}));
  REQUIRE_GRADCHECK(gradgradcheck(fold_fn, {cols}));
}

TEST_CASE("Unfold and Fold modules call the functionals and print their options",
          "[vision_ops]") {
  nn::Unfold unfold(nn::UnfoldOptions(2).stride(2));
  nn::Fold fold(nn::FoldOptions({4, 4}, 2).stride(2));
  const Tensor x = randn({1, 2, 4, 4}, kDouble);
  const Tensor cols = unfold(x);
  require_values(cols, values(F::unfold(x, F::UnfoldFuncOptions(2).stride(2))));
  require_values(fold(cols), values(x));  // stride = kernel: no overlap
  REQUIRE(printed(*unfold) ==
          "Unfold(kernel_size=[2, 2], dilation=[1, 1], padding=[0, 0], stride=[2, 2])");
  REQUIRE(printed(*fold) == "Fold(output_size=[4, 4], kernel_size=[2, 2], dilation=[1, 1], "
                            "padding=[0, 0], stride=[2, 2])");
}

TEST_CASE("unfold and fold reject bad shapes and options naming them", "[vision_ops]") {
  REQUIRE_THROWS_WITH(F::unfold(zeros({4, 4}), F::UnfoldFuncOptions(2)),
                      Catch::Contains("unfold: expected a 3-D") && Catch::Contains("[4, 4]"));
  REQUIRE_THROWS_WITH(F::unfold(zeros({1, 1, 2, 2}), F::UnfoldFuncOptions(3)),
                      Catch::Contains("unfold: the height 2 with padding 0 is smaller than the "
                                      "dilated kernel (3)"));
  REQUIRE_THROWS_WITH(F::unfold(zeros({1, 1, 4, 4}), F::UnfoldFuncOptions(2).stride({1, 0})),
                      Catch::Contains("unfold: stride must be positive, got [1, 0]"));
  REQUIRE_THROWS_WITH(F::fold(zeros({1, 5, 9}), F::FoldFuncOptions(4, 2)),
                      Catch::Contains("fold: the size of dim 1 of input [1, 5, 9] must be "
                                      "divisible by the product of kernel_size (4)"));
  REQUIRE_THROWS_WITH(F::fold(zeros({1, 4, 8}), F::FoldFuncOptions(4, 2)),
                      Catch::Contains("fold: input [1, 4, 8] has 8 blocks") &&
                          Catch::Contains("3 x 3 = 9"));
}

// ------------------------------------------------------ affine_grid, grid_sample

namespace {

enum class Pad { Zeros, Border, Reflection };

// Mirrors x at lo and hi until it lies in [lo, hi].
double mirror_into(double x, double lo, double hi) {
  if (hi <= lo) return lo;
  while (x < lo || x > hi) x = x < lo ? 2 * lo - x : 2 * hi - x;
  return x;
}

// Normalized grid coordinate -> pixel coordinate along a dim of n pixels:
// -1 and 1 are the outer edges of the end pixels, or their centres with
// align_corners; border clips into [0, n - 1]; reflection mirrors at the edges
// (the centres with align_corners, else the outer edges), then clips.
double pixel_coordinate(double g, int64_t n, bool align, Pad pad) {
  double x = align ? (g + 1) / 2 * static_cast<double>(n - 1)
                   : ((g + 1) * static_cast<double>(n) - 1) / 2;
  if (pad == Pad::Reflection)
    x = align ? mirror_into(x, 0, static_cast<double>(n - 1))
              : mirror_into(x, -0.5, static_cast<double>(n) - 0.5);
  if (pad != Pad::Zeros) x = std::min(std::max(x, 0.0), static_cast<double>(n - 1));
  return x;
}

// Naive grid_sample of input (N, C, H, W) at grid (N, Ho, Wo, 2). Bilinear:
// out = sum over the 4 pixels around (y, x) of value * (1 - |y - row|) * (1 - |x - col|),
// a pixel outside the input reading 0. Nearest: the pixel at the rounded
// (halves to even) coordinates, 0 outside.
std::vector<double> naive_grid_sample(const Tensor& input, const Tensor& grid, bool nearest,
                                      Pad pad, bool align) {
  const int64_t n = input.size(0), c = input.size(1), h = input.size(2), w = input.size(3);
  const int64_t ho = grid.size(1), wo = grid.size(2);
  const std::vector<double> in = values(input), gr = values(grid);
  auto at = [&](int64_t b, int64_t k, int64_t row, int64_t col) {
    return row < 0 || row >= h || col < 0 || col >= w ? 0.0 : in[((b * c + k) * h + row) * w + col];
  };
  std::vector<double> out;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t k = 0; k < c; ++k)
      for (int64_t i = 0; i < ho; ++i)
        for (int64_t j = 0; j < wo; ++j) {
          const size_t g = static_cast<size_t>(((b * ho + i) * wo + j) * 2);
          const double x = pixel_coordinate(gr[g], w, align, pad);
          const double y = pixel_coordinate(gr[g + 1], h, align, pad);
          if (nearest) {
            out.push_back(at(b, k, static_cast<int64_t>(std::nearbyint(y)),
                             static_cast<int64_t>(std::nearbyint(x))));
            continue;
          }
          const auto r0 = static_cast<int64_t>(std::floor(y));
          const auto c0 = static_cast<int64_t>(std::floor(x));
          double v = 0;
          for (int64_t row = r0; row <= r0 + 1; ++row)
            for (int64_t col = c0; col <= c0 + 1; ++col)
              v += at(b, k, row, col) * (1 - std::abs(y - static_cast<double>(row))) *
                   (1 - std::abs(x - static_cast<double>(col)));
          out.push_back(v);
        }
  return out;
}

F::GridSamplePaddingMode padding_mode_of(Pad pad) {
  if (pad == Pad::Border) return ember::kBorder;
  if (pad == Pad::Reflection) return ember::kReflection;
  return ember::kZeros;
}

}  // namespace

TEST_CASE("grid_sample matches a naive float64 loop for each mode, padding and align_corners",
          "[vision_ops]") {
  manual_seed(7);
  const Tensor input = randn({2, 3, 4, 5}, kDouble);
  const Tensor grid = rand({2, 3, 4, 2}, kDouble) * 2.8 - 1.4;  // partly outside [-1, 1]
  for (Pad pad : {Pad::Zeros, Pad::Border, Pad::Reflection})
    for (bool align : {false, true})
      for (bool nearest : {false, true}) {
        INFO("padding " << static_cast<int>(pad) << ", align_corners " << align << ", nearest "
                        << nearest);
        const Tensor got = F::grid_sample(input, grid,
                                          F::GridSampleFuncOptions()
                                              .mode(nearest ? ember::kNearest : ember::kBilinear)
                                              .padding_mode(padding_mode_of(pad))
                                              .align_corners(align));
        REQUIRE(got.sizes() == IntArrayRef{2, 3, 3, 4});
        require_values(got, naive_grid_sample(input, grid, nearest, pad, align));
      }
}

TEST_CASE("affine_grid maps each pixel centre (x, y, 1) through theta", "[vision_ops]") {
  const Tensor theta = tensor({{{0.5, -0.25, 0.1}, {0.3, 2.0, -0.4}}}, kDouble);  // (1, 2, 3)
  for (bool align : {false, true}) {
    // centres of 3 columns and 2 rows
    const std::vector<double> xs = align ? std::vector<double>{-1, 0, 1}
                                         : std::vector<double>{-2.0 / 3, 0, 2.0 / 3};
    const std::vector<double> ys = align ? std::vector<double>{-1, 1} : std::vector<double>{-0.5, 0.5};
    std::vector<double> want;
    for (double y : ys)
      for (double x : xs) {
        want.push_back(0.5 * x - 0.25 * y + 0.1);
        want.push_back(0.3 * x + 2.0 * y - 0.4);
      }
    const Tensor grid = F::affine_grid(theta, {1, 4, 2, 3}, align);
    REQUIRE(grid.sizes() == IntArrayRef{1, 2, 3, 2});
    require_values(grid, want);
  }
  // A size of 1 puts its one centre at 0.
  require_values(F::affine_grid(theta, {1, 1, 1, 1}, true), {0.1, -0.4});
}

TEST_CASE("grid_sample at the identity affine_grid reproduces the input", "[vision_ops]") {
  const Tensor input = randn({2, 3, 4, 5}, kDouble);
  const Tensor identity = tensor({{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}}, kDouble).expand({2, 2, 3});
  for (bool align : {true, false}) {
    const Tensor grid = F::affine_grid(identity, {2, 3, 4, 5}, align);
    require_values(F::grid_sample(input, grid, F::GridSampleFuncOptions().align_corners(align)),
                   values(input), 1e-12);
  }
}

TEST_CASE("grid_sample passes gradcheck wrt input and grid for each padding mode",
          "[vision_ops]") {
  manual_seed(11);
  const Tensor input = randn({1, 2, 3, 4}, kDouble).requires_grad_();
  // Off the pixel grid and off the reflection and clipping points (kinks).
  const Tensor grid = (rand({1, 3, 2, 2}, kDouble) * 2.4 - 1.2).requires_grad_();
  for (Pad pad : {Pad::Zeros, Pad::Border, Pad::Reflection})
    for (bool align : {false, true}) {
      INFO("padding " << static_cast<int>(pad) << ", align_corners " << align);
      auto fn = [&](const tensor_list& in) {
        return F::grid_sample(
            in[0], in[1],
            F::GridSampleFuncOptions().padding_mode(padding_mode_of(pad)).align_corners(align));
      };
      REQUIRE_GRADCHECK(gradcheck(fn, {input, grid}));
    }
  auto zeros_fn = [](const tensor_list& in) { return F::grid_sample(in[0], in[1]); };
  REQUIRE_GRADCHECK(gradgradcheck(zeros_fn, {input, grid}));
  // affine_grid's gradient wrt theta, through grid_sample
  const Tensor theta = tensor({{{0.9, 0.2, 0.05}, {-0.1, 1.1, 0.13}}}, kDouble).requires_grad_();
  auto affine_fn = [](const tensor_list& in) {
    return F::grid_sample(in[0], F::affine_grid(in[1], {1, 2, 3, 4}));
  };
  REQUIRE_GRADCHECK(gradcheck(affine_fn, {input, theta}));
}

TEST_CASE("nearest grid_sample passes gradcheck wrt its input", "[vision_ops]") {
  const Tensor input = randn({1, 2, 3, 4}, kDouble).transpose(2, 3).requires_grad_();  // (1, 2, 4, 3)
  const Tensor grid = rand({1, 2, 3, 2}, kDouble) * 2 - 1;
  REQUIRE_GRADCHECK(gradcheck(
      [&](const tensor_list& in) {
        return F::grid_sample(in[0], grid, F::GridSampleFuncOptions().mode(ember::kNearest));
      },
      {input}));
}

namespace {

// Naive 5-D grid_sample of input (N, C, D, H, W) at grid (N, Do, Ho, Wo, 3)
// (x, y, z): trilinear is the sum over the 8 voxels around (z, y, x) of value *
// (1 - |z - depth|) * (1 - |y - row|) * (1 - |x - col|); nearest rounds halves to
// even; voxels outside read 0.
std::vector<double> naive_grid_sample_3d(const Tensor& input, const Tensor& grid, bool nearest,
                                         Pad pad, bool align) {
  const int64_t n = input.size(0), c = input.size(1);
  const int64_t s[3] = {input.size(2), input.size(3), input.size(4)};
  const int64_t m = grid.size(1) * grid.size(2) * grid.size(3);
  const std::vector<double> in = values(input), gr = values(grid);
  auto at = [&](int64_t b, int64_t k, const int64_t* v) {
    for (int i = 0; i < 3; ++i)
      if (v[i] < 0 || v[i] >= s[i]) return 0.0;
    return in[static_cast<size_t>((((b * c + k) * s[0] + v[0]) * s[1] + v[1]) * s[2] + v[2])];
  };
  std::vector<double> out;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t k = 0; k < c; ++k)
      for (int64_t p = 0; p < m; ++p) {
        const size_t g = static_cast<size_t>((b * m + p) * 3);
        double q[3];  // (z, y, x) in voxels
        for (int i = 0; i < 3; ++i) q[i] = pixel_coordinate(gr[g + 2 - i], s[i], align, pad);
        if (nearest) {
          const int64_t v[3] = {static_cast<int64_t>(std::nearbyint(q[0])),
                                static_cast<int64_t>(std::nearbyint(q[1])),
                                static_cast<int64_t>(std::nearbyint(q[2]))};
          out.push_back(at(b, k, v));
          continue;
        }
        double acc = 0;
        for (int corner = 0; corner < 8; ++corner) {
          int64_t v[3];
          double weight = 1;
          for (int i = 0; i < 3; ++i) {
            v[i] = static_cast<int64_t>(std::floor(q[i])) + ((corner >> i) & 1);
            weight *= 1 - std::abs(q[i] - static_cast<double>(v[i]));
          }
          acc += at(b, k, v) * weight;
        }
        out.push_back(acc);
      }
  return out;
}

}  // namespace

TEST_CASE("5-D grid_sample matches a naive trilinear / nearest loop", "[vision_ops]") {
  manual_seed(5);
  const Tensor input = randn({2, 2, 3, 4, 5}, kDouble);
  const Tensor grid = rand({2, 2, 3, 2, 3}, kDouble) * 2.8 - 1.4;
  for (Pad pad : {Pad::Zeros, Pad::Border, Pad::Reflection})
    for (bool align : {false, true})
      for (bool nearest : {false, true}) {
        INFO("padding " << static_cast<int>(pad) << ", align_corners " << align << ", nearest "
                        << nearest);
        const Tensor got = F::grid_sample(input, grid,
                                          F::GridSampleFuncOptions()
                                              .mode(nearest ? ember::kNearest : ember::kBilinear)
                                              .padding_mode(padding_mode_of(pad))
                                              .align_corners(align));
        REQUIRE(got.sizes() == IntArrayRef{2, 2, 2, 3, 2});
        require_values(got, naive_grid_sample_3d(input, grid, nearest, pad, align));
      }
}

TEST_CASE("5-D affine_grid maps each voxel centre (x, y, z, 1) through theta, and the identity "
          "reproduces the input",
          "[vision_ops]") {
  const Tensor theta =
      tensor({{{0.5, -0.25, 0.1, 0.2}, {0.3, 2.0, -0.4, 0.0}, {1.0, 0.0, 0.5, -0.3}}}, kDouble);
  const std::vector<double> zs = {-0.5, 0.5}, ys = {-2.0 / 3, 0, 2.0 / 3}, xs = {0};  // D 2, H 3, W 1
  std::vector<double> want;
  for (double z : zs)
    for (double y : ys)
      for (double x : xs) {
        want.push_back(0.5 * x - 0.25 * y + 0.1 * z + 0.2);
        want.push_back(0.3 * x + 2.0 * y - 0.4 * z);
        want.push_back(1.0 * x + 0.5 * z - 0.3);
      }
  const Tensor grid = F::affine_grid(theta, {1, 1, 2, 3, 1});
  REQUIRE(grid.sizes() == IntArrayRef{1, 2, 3, 1, 3});
  require_values(grid, want);

  const Tensor input = randn({1, 2, 3, 4, 5}, kDouble);
  const Tensor identity =
      tensor({{{1.0, 0.0, 0.0, 0.0}, {0.0, 1.0, 0.0, 0.0}, {0.0, 0.0, 1.0, 0.0}}}, kDouble);
  for (bool align : {true, false})
    require_values(F::grid_sample(input, F::affine_grid(identity, {1, 2, 3, 4, 5}, align),
                                  F::GridSampleFuncOptions().align_corners(align)),
                   values(input), 1e-12);
}

TEST_CASE("5-D grid_sample passes gradcheck wrt input, grid and theta", "[vision_ops]") {
  manual_seed(13);
  const Tensor input = randn({1, 2, 2, 3, 3}, kDouble).requires_grad_();
  const Tensor grid = (rand({1, 2, 1, 2, 3}, kDouble) * 2.4 - 1.2).requires_grad_();
  for (Pad pad : {Pad::Zeros, Pad::Reflection}) {
    INFO("padding " << static_cast<int>(pad));
    auto fn = [&](const tensor_list& in) {
      return F::grid_sample(in[0], in[1], F::GridSampleFuncOptions().padding_mode(padding_mode_of(pad)));
    };
    REQUIRE_GRADCHECK(gradcheck(fn, {input, grid}));
  }
  const Tensor theta =
      tensor({{{0.9, 0.2, 0.05, 0.1}, {-0.1, 1.1, 0.13, 0.0}, {0.2, 0.0, 0.8, -0.07}}}, kDouble)
          .requires_grad_();
  REQUIRE_GRADCHECK(gradcheck(
      [](const tensor_list& in) {
        return F::grid_sample(in[0], F::affine_grid(in[1], {1, 2, 2, 2, 3}, true),
                              F::GridSampleFuncOptions().align_corners(true));
      },
      {input, theta}));
}

namespace {

// Keys' cubic convolution kernel with A = -0.75: (A + 2)|s|^3 - (A + 3)|s|^2 + 1
// for |s| <= 1, A|s|^3 - 5A|s|^2 + 8A|s| - 4A for 1 < |s| < 2, else 0.
double keys_cubic(double s) {
  const double a = -0.75, d = std::abs(s);
  if (d <= 1) return (a + 2) * d * d * d - (a + 3) * d * d + 1;
  if (d < 2) return a * d * d * d - 5 * a * d * d + 8 * a * d - 4 * a;
  return 0;
}

// Naive bicubic grid_sample: the 4 x 4 pixels around the unpadded pixel
// coordinate (y, x), each weighted by keys_cubic(y - row) * keys_cubic(x - col);
// the padding mode moves each tap (row, col) inside (border: clip; reflection:
// mirror, then clip), zeros reads 0 outside.
std::vector<double> naive_bicubic(const Tensor& input, const Tensor& grid, Pad pad, bool align) {
  const int64_t n = input.size(0), c = input.size(1), h = input.size(2), w = input.size(3);
  const int64_t m = grid.size(1) * grid.size(2);
  const std::vector<double> in = values(input), gr = values(grid);
  auto tap = [&](int64_t t, int64_t size) {
    double v = static_cast<double>(t);
    const double top = static_cast<double>(size - 1);
    if (pad == Pad::Reflection) v = align ? mirror_into(v, 0, top) : mirror_into(v, -0.5, top + 0.5);
    if (pad != Pad::Zeros) v = std::min(std::max(v, 0.0), top);
    return static_cast<int64_t>(std::nearbyint(v));
  };
  std::vector<double> out;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t k = 0; k < c; ++k)
      for (int64_t p = 0; p < m; ++p) {
        const size_t g = static_cast<size_t>((b * m + p) * 2);
        const double x = pixel_coordinate(gr[g], w, align, Pad::Zeros);
        const double y = pixel_coordinate(gr[g + 1], h, align, Pad::Zeros);
        double acc = 0;
        for (int64_t row = static_cast<int64_t>(std::floor(y)) - 1; row <= std::floor(y) + 2; ++row)
          for (int64_t col = static_cast<int64_t>(std::floor(x)) - 1; col <= std::floor(x) + 2; ++col) {
            const int64_t r = tap(row, h), cl = tap(col, w);
            const double v = r < 0 || r >= h || cl < 0 || cl >= w ? 0.0 : in[((b * c + k) * h + r) * w + cl];
            acc += v * keys_cubic(y - static_cast<double>(row)) * keys_cubic(x - static_cast<double>(col));
          }
        out.push_back(acc);
      }
  return out;
}

}  // namespace

TEST_CASE("bicubic grid_sample matches a naive cubic convolution loop and passes gradcheck",
          "[vision_ops]") {
  manual_seed(17);
  const Tensor input = randn({2, 2, 4, 5}, kDouble);
  const Tensor grid = rand({2, 3, 2, 2}, kDouble) * 2.8 - 1.4;
  for (Pad pad : {Pad::Zeros, Pad::Border, Pad::Reflection})
    for (bool align : {false, true}) {
      INFO("padding " << static_cast<int>(pad) << ", align_corners " << align);
      const auto options = F::GridSampleFuncOptions()
                               .mode(ember::kBicubic)
                               .padding_mode(padding_mode_of(pad))
                               .align_corners(align);
      require_values(F::grid_sample(input, grid, options), naive_bicubic(input, grid, pad, align));
      const Tensor x = input.narrow(0, 0, 1).detach().requires_grad_();
      const Tensor g = grid.narrow(0, 0, 1).detach().requires_grad_();
      REQUIRE_GRADCHECK(gradcheck(
          [&](const tensor_list& t) { return F::grid_sample(t[0], t[1], options); }, {x, g}));
    }
  REQUIRE_THROWS_WITH(F::grid_sample(zeros({1, 1, 2, 2, 2}), zeros({1, 1, 1, 1, 3}),
                                     F::GridSampleFuncOptions().mode(ember::kBicubic)),
                      Catch::Contains("grid_sample: mode kBicubic supports only 4-D inputs"));
}

TEST_CASE("grid_sample and affine_grid reject bad shapes, dtypes and padding modes",
          "[vision_ops]") {
  REQUIRE_THROWS_WITH(F::grid_sample(zeros({1, 2, 2}), zeros({1, 2, 2})),
                      Catch::Contains("grid_sample: expected a 4-D (N, C, H, W) or 5-D") &&
                          Catch::Contains("[1, 2, 2]"));
  REQUIRE_THROWS_WITH(F::grid_sample(zeros({1, 1, 2, 2, 2}), zeros({1, 2, 2, 2, 2})),
                      Catch::Contains("expected grid of shape (N, Do, Ho, Wo, 3) with N = 1") &&
                          Catch::Contains("[1, 2, 2, 2, 2]"));
  REQUIRE_THROWS_WITH(F::grid_sample(zeros({2, 1, 2, 2}), zeros({1, 2, 2, 2})),
                      Catch::Contains("grid_sample: expected grid of shape (N, Ho, Wo, 2) with "
                                      "N = 2") && Catch::Contains("[1, 2, 2, 2]"));
  REQUIRE_THROWS_WITH(F::grid_sample(zeros({1, 1, 2, 2}), zeros({1, 2, 2, 2}, kDouble)),
                      Catch::Contains("same floating point dtype, got float32 and float64"));
  REQUIRE_THROWS_WITH(F::GridSampleFuncOptions().padding_mode(ember::kReflect),
                      Catch::Contains("grid_sample: padding_mode must be kZeros, kBorder or "
                                      "kReflection, got kReflect"));
  REQUIRE_THROWS_WITH(F::affine_grid(zeros({2, 2, 3}), {1, 1, 2, 2}),
                      Catch::Contains("affine_grid: expected theta of shape (N, 2, 3) = [1, 2, 3]") &&
                          Catch::Contains("[2, 2, 3]"));
  REQUIRE_THROWS_WITH(F::affine_grid(zeros({1, 2, 3}), {1, 1, 2, 2, 2}),
                      Catch::Contains("affine_grid: expected theta of shape (N, 3, 4) = [1, 3, 4]"));
  REQUIRE_THROWS_WITH(F::affine_grid(zeros({1, 2, 3}), {1, 1, 2}),
                      Catch::Contains("affine_grid: size must be {N, C, H, W} or {N, C, D, H, W}, "
                                      "got [1, 1, 2]"));
}

// ----------------------------------------------------------------- embedding_bag

namespace {

// Naive bag reduction: weight (num, dim) as a flat vector, bags as lists of
// (index, scale) pairs; mode "sum", "mean" or "max"; an empty bag gives zeros.
std::vector<double> naive_bags(const std::vector<double>& weight, int64_t dim,
                               const std::vector<std::vector<std::pair<int64_t, double>>>& bags,
                               const std::string& mode) {
  std::vector<double> out;
  for (const auto& bag : bags)
    for (int64_t d = 0; d < dim; ++d) {
      double acc = mode == "max" ? -1e300 : 0.0;
      for (const auto& [index, scale] : bag) {
        const double v = weight[static_cast<size_t>(index * dim + d)] * scale;
        acc = mode == "max" ? std::max(acc, v) : acc + v;
      }
      if (bag.empty()) acc = 0;
      if (mode == "mean" && !bag.empty()) acc /= static_cast<double>(bag.size());
      out.push_back(acc);
    }
  return out;
}

}  // namespace

TEST_CASE("embedding_bag sums, averages and maxes each bag of rows given by offsets",
          "[vision_ops]") {
  const Tensor weight = randn({6, 3}, kDouble);
  const std::vector<double> wv = values(weight);
  const Tensor input = tensor({4, 0, 4, 2, 5, 1}, kLong);
  const Tensor offsets = tensor({0, 3, 3, 5}, kLong);  // bags [0, 3), [3, 3) (empty), [3, 5), [5, 6)
  const std::vector<std::vector<std::pair<int64_t, double>>> bags = {
      {{4, 1}, {0, 1}, {4, 1}}, {}, {{2, 1}, {5, 1}}, {{1, 1}}};
  require_values(F::embedding_bag(input, weight, F::EmbeddingBagFuncOptions().offsets(offsets).mode(ember::kSum)),
                 naive_bags(wv, 3, bags, "sum"));
  require_values(F::embedding_bag(input, weight, F::EmbeddingBagFuncOptions().offsets(offsets)),
                 naive_bags(wv, 3, bags, "mean"));  // kMean is the default
  require_values(F::embedding_bag(input, weight, F::EmbeddingBagFuncOptions().offsets(offsets).mode(ember::kMax)),
                 naive_bags(wv, 3, bags, "max"));
}

TEST_CASE("embedding_bag takes a 2-D input as fixed-size bags, per_sample_weights, "
          "padding_idx and include_last_offset",
          "[vision_ops]") {
  const Tensor weight = randn({5, 2}, kDouble);
  const std::vector<double> wv = values(weight);
  const Tensor input = tensor({{1, 3, 3}, {0, 4, 2}}, kLong);
  require_values(F::embedding_bag(input, weight, F::EmbeddingBagFuncOptions().mode(ember::kMax)),
                 naive_bags(wv, 2, {{{1, 1}, {3, 1}, {3, 1}}, {{0, 1}, {4, 1}, {2, 1}}}, "max"));

  const Tensor psw = tensor({{0.5, -2.0, 1.5}, {3.0, 0.25, -1.0}}, kDouble);
  require_values(
      F::embedding_bag(input, weight,
                       F::EmbeddingBagFuncOptions().mode(ember::kSum).per_sample_weights(psw)),
      naive_bags(wv, 2, {{{1, 0.5}, {3, -2.0}, {3, 1.5}}, {{0, 3.0}, {4, 0.25}, {2, -1.0}}}, "sum"));

  // padding_idx 3 is left out of its bag and of the mean's count.
  require_values(F::embedding_bag(input, weight, F::EmbeddingBagFuncOptions().padding_idx(3)),
                 naive_bags(wv, 2, {{{1, 1}}, {{0, 1}, {4, 1}, {2, 1}}}, "mean"));
  require_values(F::embedding_bag(input, weight,
                                  F::EmbeddingBagFuncOptions().padding_idx(-2).mode(ember::kMax)),
                 naive_bags(wv, 2, {{{1, 1}}, {{0, 1}, {4, 1}, {2, 1}}}, "max"));

  // include_last_offset: the last offset ends the last bag; position 5 is in no bag.
  const Tensor flat = tensor({1, 3, 3, 0, 4, 2}, kLong);
  require_values(F::embedding_bag(flat, weight,
                                  F::EmbeddingBagFuncOptions()
                                      .offsets(tensor({0, 2, 5}, kLong))
                                      .include_last_offset(true)
                                      .mode(ember::kSum)),
                 naive_bags(wv, 2, {{{1, 1}, {3, 1}}, {{3, 1}, {0, 1}, {4, 1}}}, "sum"));
}

TEST_CASE("embedding_bag passes gradcheck wrt weight and per_sample_weights", "[vision_ops]") {
  const Tensor weight = randn({5, 3}, kDouble).requires_grad_();
  const Tensor input = tensor({2, 0, 2, 4, 1, 3, 3}, kLong);
  const Tensor offsets = tensor({0, 2, 2, 5}, kLong);
  for (const nn::EmbeddingBagMode mode : {nn::EmbeddingBagMode(ember::kSum),
                                          nn::EmbeddingBagMode(ember::kMean),
                                          nn::EmbeddingBagMode(ember::kMax)}) {
    INFO("mode " << mode);
    auto fn = [&](const tensor_list& in) {
      return F::embedding_bag(input, in[0],
                              F::EmbeddingBagFuncOptions().offsets(offsets).mode(mode).padding_idx(4));
    };
    REQUIRE_GRADCHECK(gradcheck(fn, {weight}));
  }
  const Tensor psw = randn({7}, kDouble).requires_grad_();
  auto weighted = [&](const tensor_list& in) {
    return F::embedding_bag(
        input, in[0],
        F::EmbeddingBagFuncOptions().offsets(offsets).mode(ember::kSum).per_sample_weights(in[1]));
  };
  REQUIRE_GRADCHECK(gradcheck(weighted, {weight, psw}));
  REQUIRE_GRADCHECK(gradgradcheck(weighted, {weight, psw}));
}

TEST_CASE("EmbeddingBag module starts N(0, 1) with a zero padding row and calls embedding_bag",
          "[vision_ops]") {
  nn::EmbeddingBag bag(nn::EmbeddingBagOptions(10, 4).mode(ember::kSum).padding_idx(-1));
  REQUIRE(bag->weight.sizes() == IntArrayRef{10, 4});
  REQUIRE(*bag->options.padding_idx() == 9);
  require_values(bag->weight[9], {0, 0, 0, 0});
  const Tensor input = tensor({1, 9, 2, 7}, kLong), offsets = tensor({0, 1}, kLong);
  const Tensor psw = tensor({2.0f, 1.0f, -1.0f, 0.5f});
  require_values(bag(input, offsets, psw),
                 values(F::embedding_bag(input, bag->weight,
                                         F::EmbeddingBagFuncOptions()
                                             .offsets(offsets)
                                             .mode(ember::kSum)
                                             .per_sample_weights(psw)
                                             .padding_idx(9))),
                 1e-6);
  REQUIRE(printed(*bag) == "EmbeddingBag(num_embeddings=10, embedding_dim=4, mode=kSum, padding_idx=9)");
  REQUIRE(printed(*nn::EmbeddingBag(3, 2)) == "EmbeddingBag(num_embeddings=3, embedding_dim=2, mode=kMean)");
}

TEST_CASE("embedding_bag rejects bad offsets, modes and per_sample_weights naming them",
          "[vision_ops]") {
  const Tensor weight = zeros({4, 2});
  REQUIRE_THROWS_WITH(F::embedding_bag(tensor({0, 1}, kLong), weight,
                                       F::EmbeddingBagFuncOptions()
                                           .offsets(tensor({0, 1}, kLong))
                                           .per_sample_weights(ones({2}))),
                      Catch::Contains("per_sample_weights is only supported for mode kSum, got kMean"));
  REQUIRE_THROWS_WITH(F::embedding_bag(tensor({0, 1}, kLong), weight),
                      Catch::Contains("embedding_bag: a 1-D input needs 1-D int64 offsets"));
  REQUIRE_THROWS_WITH(F::embedding_bag(tensor({0, 1, 2}, kLong), weight,
                                       F::EmbeddingBagFuncOptions().offsets(tensor({1, 2}, kLong))),
                      Catch::Contains("embedding_bag: offsets[0] must be 0, got 1"));
  REQUIRE_THROWS_WITH(F::embedding_bag(tensor({0, 1, 2}, kLong), weight,
                                       F::EmbeddingBagFuncOptions().offsets(tensor({0, 2, 1}, kLong))),
                      Catch::Contains("offsets[1] = 2 and offsets[2] = 1"));
  REQUIRE_THROWS_WITH(F::embedding_bag(tensor({{0, 1}}, kLong), weight,
                                       F::EmbeddingBagFuncOptions().offsets(tensor({0}, kLong))),
                      Catch::Contains("offsets must be undefined for a 2-D input [1, 2]"));
  REQUIRE_THROWS_WITH(F::embedding_bag(tensor({0.5}), weight),
                      Catch::Contains("embedding_bag: input must be 1-D or 2-D int64") &&
                          Catch::Contains("float32"));
  REQUIRE_THROWS_WITH(nn::EmbeddingBagOptions(3, 2).mode(ember::kNone),
                      Catch::Contains("EmbeddingBag: mode must be kSum, kMean or kMax, got kNone"));
}
