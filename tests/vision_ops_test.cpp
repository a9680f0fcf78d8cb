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
