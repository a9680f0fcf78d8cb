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
