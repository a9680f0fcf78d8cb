// Pooling (adaptive max included) and upsampling (core/ops/nn_ops/pooling.cpp,
// core/ops/nn_ops/upsample.cpp): values against naive float64 loops or by hand,
// (C, H, W) inputs, zero batches, gradients and second derivatives by
// gradcheck (non-contiguous inputs), error messages.
#include "test_helpers.h"

#include <ember/core/ops/nn_ops/pooling.h>
#include <ember/core/ops/nn_ops/upsample.h>
#include <ember/core/shape.h>

#include <cmath>
#include <limits>
#include <vector>

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using ember_test::require_values;
using ember_test::values;

namespace {

struct Window {
  int64_t kh, kw, sh, sw, ph, pw, dh = 1, dw = 1;
  bool ceil_mode = false;
};

// Output size of one dim, written out from PyTorch's documented formula.
int64_t out_dim(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  const double span = static_cast<double>(in + 2 * p - d * (k - 1) - 1) / static_cast<double>(s);
  int64_t out = static_cast<int64_t>(ceil_mode ? std::ceil(span) : std::floor(span)) + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

// Naive max pooling of planes (P, H, W): values and first-max indices.
struct MaxRef {
  std::vector<double> out;
  std::vector<double> indices;
  int64_t oh, ow;
};
MaxRef naive_max_pool(const std::vector<double>& x, int64_t planes, int64_t h, int64_t w,
                      const Window& k) {
  MaxRef r;
  r.oh = out_dim(h, k.kh, k.sh, k.ph, k.dh, k.ceil_mode);
  r.ow = out_dim(w, k.kw, k.sw, k.pw, k.dw, k.ceil_mode);
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t i = 0; i < r.oh; ++i)
      for (int64_t j = 0; j < r.ow; ++j) {
        double best = -std::numeric_limits<double>::infinity();
        int64_t at = -1;
        for (int64_t a = 0; a < k.kh; ++a)
          for (int64_t b = 0; b < k.kw; ++b) {
            const int64_t y = i * k.sh - k.ph + a * k.dh, z = j * k.sw - k.pw + b * k.dw;
            if (y < 0 || y >= h || z < 0 || z >= w) continue;
            const double v = x[(p * h + y) * w + z];
            if (at < 0 || v > best) {
              best = v;
              at = y * w + z;
            }
          }
        r.out.push_back(best);
        r.indices.push_back(static_cast<double>(at));
      }
  return r;
}

// Naive average pooling; the divisor as PyTorch documents it.
std::vector<double> naive_avg_pool(const std::vector<double>& x, int64_t planes, int64_t h,
                                   int64_t w, const Window& k, bool count_include_pad) {
  const int64_t oh = out_dim(h, k.kh, k.sh, k.ph, 1, k.ceil_mode);
  const int64_t ow = out_dim(w, k.kw, k.sw, k.pw, 1, k.ceil_mode);
  std::vector<double> out;
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        const int64_t y0 = i * k.sh - k.ph, z0 = j * k.sw - k.pw;
        // The window clipped to the padded input, then to the input.
        const int64_t y1 = std::min(y0 + k.kh, h + k.ph), z1 = std::min(z0 + k.kw, w + k.pw);
        double sum = 0;
        int64_t inside = 0;
        for (int64_t y = std::max<int64_t>(y0, 0); y < std::min(y1, h); ++y)
          for (int64_t z = std::max<int64_t>(z0, 0); z < std::min(z1, w); ++z) {
            sum += x[(p * h + y) * w + z];
            ++inside;
          }
        out.push_back(sum /
                      static_cast<double>(count_include_pad ? (y1 - y0) * (z1 - z0) : inside));
      }
  return out;
}

std::vector<double> naive_adaptive_avg(const std::vector<double>& x, int64_t planes, int64_t h,
                                       int64_t w, int64_t oh, int64_t ow) {
  std::vector<double> out;
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        const auto y0 = static_cast<int64_t>(std::floor(double(i) * h / oh));
        const auto y1 = static_cast<int64_t>(std::ceil(double(i + 1) * h / oh));
        const auto z0 = static_cast<int64_t>(std::floor(double(j) * w / ow));
        const auto z1 = static_cast<int64_t>(std::ceil(double(j + 1) * w / ow));
        double sum = 0;
        for (int64_t y = y0; y < y1; ++y)
          for (int64_t z = z0; z < z1; ++z) sum += x[(p * h + y) * w + z];
        out.push_back(sum / static_cast<double>((y1 - y0) * (z1 - z0)));
      }
  return out;
}

std::vector<double> naive_nearest(const std::vector<double>& x, int64_t planes, int64_t h,
                                  int64_t w, int64_t oh, int64_t ow) {
  std::vector<double> out;
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        const int64_t y = std::min(static_cast<int64_t>(std::floor(double(i) * h / oh)), h - 1);
        const int64_t z = std::min(static_cast<int64_t>(std::floor(double(j) * w / ow)), w - 1);
        out.push_back(x[(p * h + y) * w + z]);
      }
  return out;
}

// Source coordinate of output d (PyTorch's documented align_corners rule).
double bilinear_source(int64_t d, int64_t in, int64_t out, bool align_corners) {
  if (align_corners) return out > 1 ? double(d) * (in - 1) / (out - 1) : 0.0;
  return std::max(0.0, (double(d) + 0.5) * in / out - 0.5);
}

std::vector<double> naive_bilinear(const std::vector<double>& x, int64_t planes, int64_t h,
                                   int64_t w, int64_t oh, int64_t ow, bool align_corners) {
  std::vector<double> out;
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        const double sy = bilinear_source(i, h, oh, align_corners);
        const double sz = bilinear_source(j, w, ow, align_corners);
        const int64_t y0 = std::min(static_cast<int64_t>(sy), h - 1), y1 = std::min(y0 + 1, h - 1);
        const int64_t z0 = std::min(static_cast<int64_t>(sz), w - 1), z1 = std::min(z0 + 1, w - 1);
        const double ly = sy - y0, lz = sz - z0;
        auto at = [&](int64_t y, int64_t z) { return x[(p * h + y) * w + z]; };
        out.push_back((1 - ly) * ((1 - lz) * at(y0, z0) + lz * at(y0, z1)) +
                      ly * ((1 - lz) * at(y1, z0) + lz * at(y1, z1)));
      }
  return out;
}

// Float64 values without ties, spaced 0.1 apart (max pooling's argmax is
// stable under gradcheck's 1e-6 steps).
Tensor distinct(IntArrayRef shape) {
  const int64_t n = compute_numel(shape);
  return (randperm(n).to(kDouble) * 0.1 - 0.05 * static_cast<double>(n)).reshape(shape);
}

// x: (N, C, H, W) as a transposed view of a (N, C, W, H) tensor (non-contiguous).
Tensor transposed_leaf(int64_t n, int64_t c, int64_t h, int64_t w) {
  return distinct({n, c, w, h}).transpose(2, 3).requires_grad_();
}

}  // namespace

TEST_CASE("max_pool2d matches a float64 loop with stride, padding, dilation and ceil_mode",
          "[pooling]") {
  const std::vector<Window> windows = {
      {3, 3, 2, 2, 1, 1},              // the classic 3x3/2 pad 1
      {2, 3, 1, 2, 0, 1},              // rectangular
      {3, 2, 2, 1, 1, 0, 2, 3},        // dilated
      {3, 3, 2, 2, 0, 0, 1, 1, true},  // ceil_mode adds a partial last window
      {2, 2, 3, 3, 1, 1, 1, 1, true},  // ceil_mode where the rule drops the last window
  };
  // 5x71: output rows long enough for the kernel's vector loops.
  for (auto [h, w] : {std::pair<int64_t, int64_t>{7, 8}, {5, 71}})
    for (ScalarType t : {kFloat, kDouble}) {
      const Tensor x = distinct({2, 3, h, w}).to(t);
      const std::vector<double> xv = values(x);
      for (const Window& k : windows) {
        INFO("kernel " << k.kh << "x" << k.kw << " stride " << k.sh << "," << k.sw << " pad "
                       << k.ph << "," << k.pw << " dilation " << k.dh << "," << k.dw << " ceil "
                       << k.ceil_mode << " in " << t << " on " << h << "x" << w);
        const auto [out, idx] = max_pool2d_with_indices(x, {k.kh, k.kw}, {k.sh, k.sw}, {k.ph, k.pw},
                                                        {k.dh, k.dw}, k.ceil_mode);
        const MaxRef ref = naive_max_pool(xv, 6, h, w, k);
        REQUIRE(out.sizes() == IntArrayRef{2, 3, ref.oh, ref.ow});
        REQUIRE(idx.scalar_type() == kLong);
        require_values(out, ref.out);
        require_values(idx, ref.indices);
      }
    }
}

TEST_CASE("max_pool2d: stride defaults to the kernel, one value means both dims", "[pooling]") {
  const Tensor x = distinct({1, 2, 6, 6});
  require_values(max_pool2d(x, 2), values(max_pool2d(x, {2, 2}, {2, 2}, {0, 0}, {1, 1})));
  REQUIRE(max_pool2d(x, 2).sizes() == IntArrayRef{1, 2, 3, 3});
}

TEST_CASE("max_pool2d takes the first maximum on ties and propagates NaN", "[pooling]") {
  const Tensor x = tensor({{{1.0, 5.0, 5.0, 2.0}, {5.0, 0.0, 3.0, 5.0}}}, kDouble);  // (1, 2, 4)
  const auto [out, idx] = max_pool2d_with_indices(x, {2, 2});
  require_values(out, {5, 5});
  require_values(idx, {1, 2});  // first 5 of each window, row by row
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor y = tensor({{{1.0, nan}, {3.0, 2.0}}}, kDouble);
  const auto [out_nan, idx_nan] = max_pool2d_with_indices(y, {2, 2});
  require_values(out_nan, {nan});
  require_values(idx_nan, {1});
}

TEST_CASE("max_pool2d accepts (C, H, W) and a zero batch", "[pooling]") {
  const Tensor x = distinct({3, 5, 5});
  const Tensor out = max_pool2d(x, {3, 3}, {2, 2}, {1, 1});
  REQUIRE(out.sizes() == IntArrayRef{3, 3, 3});
  require_values(out, values(max_pool2d(x.unsqueeze(0), {3, 3}, {2, 2}, {1, 1})));
  Tensor empty_batch = zeros({0, 3, 5, 5}, kDouble).requires_grad_();
  const Tensor e = max_pool2d(empty_batch, {3, 3}, {2, 2}, {1, 1});
  REQUIRE(e.sizes() == IntArrayRef{0, 3, 3, 3});
  e.sum().backward();
  REQUIRE(empty_batch.grad().sizes() == IntArrayRef{0, 3, 5, 5});
}

TEST_CASE("max_pool2d sends each output's gradient to its argmax, summing overlaps", "[pooling]") {
  // (1, 1, 3, 3) with its maximum in the centre, which every 2x2/1 window holds.
  Tensor x = tensor({{{{1.0, 2.0, 3.0}, {4.0, 9.0, 5.0}, {6.0, 7.0, 8.0}}}}, kDouble);
  x.requires_grad_();
  max_pool2d(x, {2, 2}, {1, 1}).sum().backward();
  require_values(x.grad(), {0, 0, 0, 0, 4, 0, 0, 0, 0});
}

TEST_CASE("max_pool2d gradients pass gradcheck and gradgradcheck on strided inputs", "[pooling]") {
  const Tensor x = transposed_leaf(2, 2, 7, 6);
  REQUIRE_FALSE(x.is_contiguous());
  // A wide plane: the kernels' vector loops.
  const Tensor wide = distinct({1, 1, 3, 40}).requires_grad_();
  REQUIRE_GRADCHECK(
      gradcheck([](const tensor_list& in) { return max_pool2d(in[0], 3, 1, 1); }, {wide}));
  auto fn = [](const tensor_list& in) {
    return max_pool2d(in[0], {3, 2}, {2, 1}, {1, 1}, {1, 2}, true);
  };
  REQUIRE_GRADCHECK(gradcheck(fn, {x}));
  REQUIRE_GRADCHECK(gradgradcheck(fn, {x}));
  const Tensor chw = distinct({2, 5, 5}).requires_grad_();
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return max_pool2d(in[0], 2); }, {chw}));
}

TEST_CASE("avg_pool2d matches a float64 loop with count_include_pad and ceil_mode", "[pooling]") {
  const std::vector<Window> windows = {{3, 3, 2, 2, 1, 1},
                                       {2, 3, 1, 2, 0, 1},
                                       {3, 3, 2, 2, 1, 1, 1, 1, true},
                                       {2, 2, 3, 3, 1, 1, 1, 1, true},
                                       {3, 2, 2, 2, 0, 0, 1, 1, true}};
  for (auto [h, w] : {std::pair<int64_t, int64_t>{7, 8}, {5, 71}})
    for (ScalarType t : {kFloat, kDouble}) {
      const Tensor x = distinct({2, 3, h, w}).to(t);
      const std::vector<double> xv = values(x);
      for (const Window& k : windows)
        for (bool include_pad : {true, false}) {
          INFO("kernel " << k.kh << "x" << k.kw << " stride " << k.sh << "," << k.sw << " pad "
                         << k.ph << "," << k.pw << " ceil " << k.ceil_mode << " count_include_pad "
                         << include_pad << " in " << t << " on " << h << "x" << w);
          const Tensor out =
              avg_pool2d(x, {k.kh, k.kw}, {k.sh, k.sw}, {k.ph, k.pw}, k.ceil_mode, include_pad);
          REQUIRE(out.sizes() == IntArrayRef{2, 3, out_dim(h, k.kh, k.sh, k.ph, 1, k.ceil_mode),
                                             out_dim(w, k.kw, k.sw, k.pw, 1, k.ceil_mode)});
          require_values(out, naive_avg_pool(xv, 6, h, w, k, include_pad),
                         t == kFloat ? 1e-5 : 1e-12);
        }
    }
}

TEST_CASE("avg_pool2d gradients pass gradcheck and gradgradcheck on strided inputs", "[pooling]") {
  const Tensor x = transposed_leaf(2, 2, 7, 6);
  for (bool include_pad : {true, false}) {
    INFO("count_include_pad " << include_pad);
    auto fn = [include_pad](const tensor_list& in) {
      return avg_pool2d(in[0], {3, 3}, {2, 2}, {1, 1}, true, include_pad);
    };
    REQUIRE_GRADCHECK(gradcheck(fn, {x}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {x}));
  }
  // A wide plane: the kernels' vector loops.
  const Tensor wide = distinct({1, 1, 3, 40}).requires_grad_();
  REQUIRE_GRADCHECK(
      gradcheck([](const tensor_list& in) { return avg_pool2d(in[0], 3, 1, 1); }, {wide}));
  // An expanded (stride 0) input: every plane reads the same memory.
  const Tensor plane = distinct({1, 1, 5, 5}).requires_grad_();
  auto expanded = [](const tensor_list& in) { return avg_pool2d(in[0].expand({2, 3, 5, 5}), 2); };
  REQUIRE_GRADCHECK(gradcheck(expanded, {plane}));
}

TEST_CASE("adaptive_avg_pool2d matches PyTorch's window rule in a float64 loop", "[pooling]") {
  const Tensor x = distinct({2, 3, 7, 9});
  const std::vector<double> xv = values(x);
  const std::vector<std::pair<int64_t, int64_t>> sizes = {{1, 1}, {3, 4}, {5, 2}, {7, 9}, {10, 11}};
  for (auto [oh, ow] : sizes) {
    INFO("output " << oh << "x" << ow);
    const Tensor out = adaptive_avg_pool2d(x, {oh, ow});
    REQUIRE(out.sizes() == IntArrayRef{2, 3, oh, ow});
    require_values(out, naive_adaptive_avg(xv, 6, 7, 9, oh, ow));
  }
  REQUIRE(adaptive_avg_pool2d(distinct({3, 4, 4}), {2, 2}).sizes() == IntArrayRef{3, 2, 2});
  REQUIRE(adaptive_avg_pool2d(zeros({0, 3, 4, 4}), {2, 2}).sizes() == IntArrayRef{0, 3, 2, 2});
}

TEST_CASE("adaptive_avg_pool2d gradients pass gradcheck and gradgradcheck", "[pooling]") {
  const Tensor x = transposed_leaf(2, 2, 7, 5);
  auto fn = [](const tensor_list& in) { return adaptive_avg_pool2d(in[0], {3, 4}); };
  REQUIRE_GRADCHECK(gradcheck(fn, {x}));
  REQUIRE_GRADCHECK(gradgradcheck(fn, {x}));
}

TEST_CASE("upsample_nearest2d copies the source floor(dst * in / out)", "[pooling]") {
  const Tensor x = distinct({2, 2, 3, 5});
  const std::vector<double> xv = values(x);
  const std::vector<std::pair<int64_t, int64_t>> sizes = {{6, 10}, {7, 4}, {3, 5}, {2, 11}};
  for (auto [oh, ow] : sizes) {
    INFO("output " << oh << "x" << ow);
    const Tensor out = upsample_nearest2d(x, {oh, ow});
    REQUIRE(out.sizes() == IntArrayRef{2, 2, oh, ow});
    require_values(out, naive_nearest(xv, 4, 3, 5, oh, ow));
  }
}

TEST_CASE("upsample_bilinear2d matches a float64 loop with and without align_corners",
          "[pooling]") {
  const Tensor x = distinct({2, 2, 3, 5});
  const std::vector<double> xv = values(x);
  const std::vector<std::pair<int64_t, int64_t>> sizes = {{6, 10}, {7, 4}, {1, 1}, {2, 11}};
  for (bool align : {true, false})
    for (auto [oh, ow] : sizes) {
      INFO("output " << oh << "x" << ow << " align_corners " << align);
      const Tensor out = upsample_bilinear2d(x, {oh, ow}, align);
      REQUIRE(out.sizes() == IntArrayRef{2, 2, oh, ow});
      require_values(out, naive_bilinear(xv, 4, 3, 5, oh, ow, align));
      require_values(upsample_bilinear2d(x.to(kFloat), {oh, ow}, align),
                     naive_bilinear(xv, 4, 3, 5, oh, ow, align), 1e-5);
    }
  // Doubling with align_corners=false, values from PyTorch's documented rule by hand:
  // sources -0.25 (clamped to 0), 0.25, 0.75, 1.25 (the last clamps to row 1).
  require_values(upsample_bilinear2d(tensor({{{0.0, 4.0}}}, kDouble), {1, 4}, false),
                 {0.0, 1.0, 3.0, 4.0});
}

TEST_CASE("upsample gradients pass gradcheck and gradgradcheck on strided inputs", "[pooling]") {
  const Tensor x = transposed_leaf(1, 2, 3, 4);
  for (bool align : {true, false}) {
    INFO("align_corners " << align);
    auto fn = [align](const tensor_list& in) { return upsample_bilinear2d(in[0], {5, 7}, align); };
    REQUIRE_GRADCHECK(gradcheck(fn, {x}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {x}));
  }
  auto nearest = [](const tensor_list& in) { return upsample_nearest2d(in[0], {5, 7}); };
  REQUIRE_GRADCHECK(gradcheck(nearest, {x}));
  REQUIRE_GRADCHECK(gradgradcheck(nearest, {x}));
  auto down = [](const tensor_list& in) { return upsample_bilinear2d(in[0], {2, 3}, false); };
  REQUIRE_GRADCHECK(gradcheck(down, {x}));
}

TEST_CASE("pooling ops reject bad shapes, windows and sizes with clear messages", "[pooling]") {
  const Tensor x = zeros({1, 2, 4, 4});
  REQUIRE_THROWS_WITH(max_pool2d(zeros({4, 4}), 2),
                      Catch::Contains("max_pool2d: expected a 3-d (C, H, W) or 4-d (N, C, H, W) "
                                      "input with non-zero C, H and W, got shape [4, 4]"));
  REQUIRE_THROWS_WITH(avg_pool2d(zeros({2, 0, 4, 4}), 2),
                      Catch::Contains("avg_pool2d: expected a 3-d (C, H, W) or 4-d"));
  REQUIRE_THROWS_WITH(max_pool2d(zeros({1, 2, 4, 4}, kLong), 2),
                      Catch::Contains("max_pool2d: expected a floating point input, got int64"));
  REQUIRE_THROWS_WITH(max_pool2d(x, 5),
                      Catch::Contains("max_pool2d: the kernel (5, 5) with dilation (1, 1) is "
                                      "larger than the padded input [1, 2, 4, 4]"));
  REQUIRE_THROWS_WITH(max_pool2d(x, {3, 3}, {1, 1}, {1, 1}, {3, 3}),
                      Catch::Contains("is larger than the padded input"));
  // Width 2, kernel 2 dilated by 3, padding 1: the first window's taps are
  // columns -1 and 2, both padding.
  REQUIRE_THROWS_WITH(max_pool2d(zeros({1, 1, 5, 2}), 2, 1, 1, 3),
                      Catch::Contains("max_pool2d: with kernel_size (2, 2), stride (1, 1), padding "
                                      "(1, 1) and dilation (3, 3) a window over input [1, 1, 5, "
                                      "2] holds no input element, only padding"));
  REQUIRE_THROWS_WITH(max_pool2d_with_indices(zeros({1, 1, 2, 5}), 2, 1, 1, 3),
                      Catch::Contains("holds no input element"));
  // Width 3 with the same window: taps (-1, 2) and (0, 3), one input element each.
  CHECK(equal(max_pool2d(ones({1, 1, 3, 3}), 2, 1, 1, 3), ones({1, 1, 2, 2})));
  REQUIRE_THROWS_WITH(avg_pool2d(x, {3, 3}, {1, 1}, {2, 1}),
                      Catch::Contains("avg_pool2d: padding should be at most half of the kernel "
                                      "size, got padding (2, 1) and kernel_size (3, 3)"));
  REQUIRE_THROWS_WITH(max_pool2d(x, {2, 2, 2}),
                      Catch::Contains("max_pool2d: kernel_size must be one value or two (height, "
                                      "width), got [2, 2, 2]"));
  REQUIRE_THROWS_WITH(max_pool2d(x, 2, 0),
                      Catch::Contains("max_pool2d: stride must be positive, got [0]"));
  REQUIRE_THROWS_WITH(max_pool2d(x, 0),
                      Catch::Contains("max_pool2d: kernel_size must be positive"));
  REQUIRE_THROWS_WITH(max_pool2d(x, 2, 2, 0, 0),
                      Catch::Contains("max_pool2d: dilation must be positive"));
  REQUIRE_THROWS_WITH(adaptive_avg_pool2d(x, {2}),
                      Catch::Contains("adaptive_avg_pool2d: output_size must be two positive "
                                      "values (height, width), got [2]"));
  REQUIRE_THROWS_WITH(upsample_nearest2d(x, {0, 3}),
                      Catch::Contains("upsample_nearest2d: output_size must be two positive "
                                      "values (height, width), got [0, 3]"));
  REQUIRE_THROWS_WITH(upsample_bilinear2d(zeros({5}), {2, 2}, false),
                      Catch::Contains("upsample_bilinear2d: expected a 3-d (C, H, W) or 4-d"));
}

TEST_CASE("adaptive_max_pool2d: PyTorch's windows, first maximum, by hand, and gradients",
          "[pooling]") {
  // 3x4 -> 2x2: rows [0,2) [1,3), columns [0,2) [2,4).
  Tensor x = tensor({{{1.0, 5, 2, 0}, {3, 3, 9, 1}, {7, 0, 4, 8}}}, kDouble).unsqueeze(0);
  x.requires_grad_();
  const auto [out, idx] = adaptive_max_pool2d(x, {2, 2});
  require_values(out, {5, 9, 7, 9});
  require_values(idx, {1, 6, 8, 6});
  out.sum().backward();
  require_values(x.grad(), {0, 1, 0, 0, 0, 0, 2, 0, 1, 0, 0, 0});
  // ties keep the first; NaN propagates
  const auto [tie_out, tie_idx] = adaptive_max_pool2d(ones({1, 2, 2}, kDouble), {1, 1});
  require_values(tie_idx, {0});
  const double nan = std::numeric_limits<double>::quiet_NaN();
  require_values(std::get<0>(adaptive_max_pool2d(tensor({{{1.0, nan}, {3.0, 2.0}}}, kDouble),
                                                 {1, 1})),
                 {nan});
  const Tensor r = distinct({2, 3, 7, 5}).requires_grad_();
  const auto fn = [](const tensor_list& in) {
    return std::get<0>(adaptive_max_pool2d(in[0], {3, 2}));
  };
  REQUIRE_GRADCHECK(gradcheck(fn, {r}));
  REQUIRE_GRADCHECK(gradgradcheck(fn, {r}));
  // module, functional, growing output
  namespace F = ember::nn::functional;
  nn::AdaptiveMaxPool2d pool(nn::AdaptiveMaxPool2dOptions({2, 2}));
  require_values(pool(x.detach()), {5, 9, 7, 9});
  require_values(std::get<1>(pool->forward_with_indices(x.detach())), {1, 6, 8, 6});
  REQUIRE(F::adaptive_max_pool2d(x.detach(), F::AdaptiveMaxPool2dFuncOptions({6, 8})).sizes() ==
          IntArrayRef{1, 1, 6, 8});
  std::ostringstream s;
  s << *pool;
  CHECK(s.str() == "AdaptiveMaxPool2d(output_size=[2, 2])");
  REQUIRE_THROWS_WITH(adaptive_max_pool2d(x.detach(), {0, 2}),
                      Catch::Contains("adaptive_max_pool2d: output_size must be two positive "
                                      "values"));
}
