// pad / constant_pad_nd / F::pad, the padding layers, conv padding kSame /
// kValid and Conv2d's padding_mode:
// values derived by hand for every mode (negative pads crop), a naive float64
// loop over every mode on 1-, 2- and 3-d pads, gradients and second
// derivatives by gradcheck, and the errors.
#include <functional>
#include <vector>

#include "test_helpers.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using ember_test::require_values;
using ember_test::values;
namespace F = ember::nn::functional;

namespace {

Tensor row(std::vector<double> v) {  // (1, 1, n)
  const int64_t n = static_cast<int64_t>(v.size());
  return tensor(v, kDouble).view({1, 1, n});
}

// The input index a padded output index reads, -1 for the constant: the
// definitions of the modes written out independently of the kernels.
int64_t naive_source(int64_t o, int64_t in, int64_t before, PadMode mode) {
  const int64_t t = o - before;
  if (t >= 0 && t < in) return t;
  switch (mode) {
    case PadMode::Constant: return -1;
    case PadMode::Reflect: return t < 0 ? -t : 2 * (in - 1) - t;  // mirror at 0 and at in - 1
    case PadMode::Replicate: return t < 0 ? 0 : in - 1;
    case PadMode::Circular: return t < 0 ? t + in : t - in;
  }
  return -1;
}

// pad of a contiguous float64 tensor by nested loops over every output element.
std::vector<double> naive_pad(const Tensor& x, const std::vector<int64_t>& pad, PadMode mode,
                              double value, std::vector<int64_t>& out_sizes) {
  const std::vector<double> xv = values(x);
  const int64_t nd = x.dim();
  std::vector<int64_t> before(nd, 0), in(x.sizes().begin(), x.sizes().end());
  out_sizes = in;
  for (size_t k = 0; 2 * k < pad.size(); ++k) {
    const int64_t d = nd - 1 - static_cast<int64_t>(k);
    before[d] = pad[2 * k];
    out_sizes[d] += pad[2 * k] + pad[2 * k + 1];
  }
  int64_t total = 1;
  for (int64_t s : out_sizes) total *= s;
  std::vector<double> out(total);
  for (int64_t i = 0; i < total; ++i) {
    int64_t rest = i, src = 0, stride = 1;
    bool constant = false;
    for (int64_t d = nd - 1; d >= 0; --d) {
      const int64_t o = rest % out_sizes[d];
      rest /= out_sizes[d];
      const int64_t s = naive_source(o, in[d], before[d], mode);
      if (s < 0) constant = true;
      src += s * stride;
      stride *= in[d];
    }
    out[i] = constant ? value : xv[src];
  }
  return out;
}

}  // namespace

TEST_CASE("pad: each mode's values on a row, by hand", "[pad]") {
  const Tensor x = row({0, 1, 2});
  require_values(pad(x, {2, 2}, kConstant, 9), {9, 9, 0, 1, 2, 9, 9});
  require_values(pad(x, {2, 2}, kReflect), {2, 1, 0, 1, 2, 1, 0});
  require_values(pad(x, {2, 2}, kReplicate), {0, 0, 0, 1, 2, 2, 2});
  require_values(pad(x, {2, 2}, kCircular), {1, 2, 0, 1, 2, 0, 1});
  require_values(constant_pad_nd(x, {1, 0}, -1), {-1, 0, 1, 2});
  // Negative pads crop, in every mode.
  const Tensor y = row({0, 1, 2, 3});
  require_values(pad(y, {-1, 2}), {1, 2, 3, 0, 0});
  require_values(pad(y, {-1, 2}, kReflect), {1, 2, 3, 2, 1});
  require_values(pad(y, {2, -3}, kCircular), {2, 3, 0});
  // Replicate may pad beyond the size; circular up to it.
  require_values(pad(row({5, 7}), {3, 0}, kReplicate), {5, 5, 5, 5, 7});
  require_values(pad(row({5, 7}), {2, 2}, kCircular), {5, 7, 5, 7, 5, 7});
}

TEST_CASE("pad: 2-d reflection of a plane, by hand", "[pad]") {
  // [[0 1 2] [3 4 5]], left/right 1, top 1, bottom 0: row -1 mirrors row 1.
  const Tensor x = tensor({0.0, 1, 2, 3, 4, 5}, kDouble).view({1, 2, 3});
  const Tensor y = pad(x, {1, 1, 1, 0}, kReflect);
  REQUIRE(y.sizes() == IntArrayRef{1, 3, 5});
  require_values(y, {4, 3, 4, 5, 4, 1, 0, 1, 2, 1, 4, 3, 4, 5, 4});
}

TEST_CASE("pad matches a naive loop in every mode on 1-, 2- and 3-d pads", "[pad]") {
  manual_seed(3);
  struct Case {
    std::vector<int64_t> shape, pad;
  };
  const std::vector<Case> cases = {
      {{2, 3, 7}, {3, 2}},
      {{2, 3, 5, 6}, {2, 5, 4, 1}},
      {{3, 5, 6}, {-2, 3, 0, 2}},
      {{1, 2, 3, 4, 5}, {1, 4, 2, 0, 2, 3}},
      {{2, 1, 4, 17}, {16, 3, 1, 3}},
  };
  for (const Case& c : cases)
    for (PadMode mode : {kConstant, kReflect, kReplicate, kCircular}) {
      const Tensor x = randn(c.shape, kDouble);
      // kReflect needs pads below the size, kCircular at most it: clip those cases' pads.
      std::vector<int64_t> p = c.pad;
      for (size_t k = 0; k < p.size(); ++k) {
        const int64_t size = c.shape[c.shape.size() - 1 - k / 2];
        if (mode == kReflect) p[k] = std::min(p[k], size - 1);
        if (mode == kCircular) p[k] = std::min(p[k], size);
      }
      const double value = mode == kConstant ? 0.5 : 0.0;
      INFO("shape " << IntArrayRef(c.shape) << " pad " << IntArrayRef(p) << " " << mode);
      std::vector<int64_t> out_sizes;
      const std::vector<double> want = naive_pad(x, p, mode, value, out_sizes);
      const Tensor y = pad(x, p, mode, value);
      REQUIRE(y.sizes() == IntArrayRef(out_sizes));
      require_values(y, want);
      // A non-contiguous view of the same values gives the same result.
      const Tensor xt = x.transpose(-1, -2).contiguous().transpose(-1, -2);
      REQUIRE_FALSE(xt.is_contiguous());
      require_values(pad(xt, p, mode, value), want);
      require_values(pad(x.to(kFloat), p, mode, value), want, 1e-6);
    }
}

TEST_CASE("pad: gradients and second derivatives pass gradcheck in every mode", "[pad]") {
  manual_seed(4);
  const Tensor x = randn({2, 3, 4, 5}, kDouble).requires_grad_();
  for (PadMode mode : {kConstant, kReflect, kReplicate, kCircular}) {
    INFO(mode);
    const std::vector<int64_t> p =
        mode == kConstant ? std::vector<int64_t>{2, -1, 1, 3} : std::vector<int64_t>{3, 1, 2, 3};
    const auto fn = [&](const tensor_list& in) { return pad(in[0], p, mode); };
    REQUIRE_GRADCHECK(gradcheck(fn, {x}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {x}));
  }
  // 1-d replicate far past the edge: one input gathers many outputs.
  const Tensor r = randn({2, 3}, kDouble).requires_grad_();
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return pad(in[0], {5, 4}, kReplicate); },
                              {r}));
}

TEST_CASE("pad: the gradient of a reflection sums the mirrored outputs, by hand", "[pad]") {
  Tensor x = row({0, 1, 2});
  x.requires_grad_();
  // outputs: x2 x1 | x0 x1 x2 | x1 x0, weighted 1..7
  (pad(x, {2, 2}, kReflect) * tensor({1.0, 2, 3, 4, 5, 6, 7}, kDouble)).sum().backward();
  require_values(x.grad(), {3 + 7, 2 + 4 + 6, 1 + 5});
}

TEST_CASE("pad: zero pads copy the input; empty inputs pad with the constant", "[pad]") {
  const Tensor x = row({1, 2});
  const Tensor y = pad(x, {0, 0});
  REQUIRE_FALSE(y.data_ptr() == x.data_ptr());
  require_values(y, {1, 2});
  require_values(pad(zeros({1, 0}, kDouble), {1, 2}, kConstant, 3), {3, 3, 3});
  REQUIRE(pad(zeros({0, 4}, kDouble), {1, 1}, kReflect).sizes() == IntArrayRef{0, 6});
}

TEST_CASE("pad: bad pads and inputs raise errors naming the op", "[pad]") {
  const Tensor x = zeros({1, 2, 3});
  REQUIRE_THROWS_WITH(pad(x, {1}), Catch::Contains("pad: expected an even number of pads"));
  REQUIRE_THROWS_WITH(pad(x, {1, 1, 1, 1, 1, 1, 1, 1}),
                      Catch::Contains("at most 6 for an input of shape [1, 2, 3]"));
  REQUIRE_THROWS_WITH(pad(x, {3, 0}, kReflect),
                      Catch::Contains("kReflect needs pads below the size of the dim"));
  REQUIRE_THROWS_WITH(pad(x, {0, 4}, kCircular),
                      Catch::Contains("kCircular needs a non-empty dim and pads at most its size"));
  REQUIRE_THROWS_WITH(pad(x, {1, 1, 1, 1, 1, 1}, kReplicate),
                      Catch::Contains("kReplicate pads 1, 2 or 3 dims of an input with one or two "
                                      "dims more"));
  REQUIRE_THROWS_WITH(pad(x, {1, 1}, kReflect, 2.0), Catch::Contains("kReflect takes no value"));
  REQUIRE_THROWS_WITH(pad(x, {-2, -2}), Catch::Contains("would have a negative size"));
  REQUIRE_THROWS_WITH(pad(zeros({2, 3}, kLong), {1, 1}),
                      Catch::Contains("pad: expected a floating point input, got int64"));
}

TEST_CASE("F::pad and the padding layers pad as their options say", "[pad]") {
  const Tensor x = tensor({0.0, 1, 2, 3, 4, 5}, kDouble).view({1, 1, 2, 3});
  require_values(F::pad(x.view({1, 2, 3}), F::PadFuncOptions({1, 0}).mode(kReplicate)),
                 {0, 0, 1, 2, 3, 3, 4, 5});
  require_values(F::pad(x, F::PadFuncOptions({0, 1}).value(-1)), {0, 1, 2, -1, 3, 4, 5, -1});
  require_values(nn::ReflectionPad2d(nn::ReflectionPad2dOptions({1, 1, 1, 0}))(x),
                 values(pad(x, {1, 1, 1, 0}, kReflect)));
  REQUIRE(nn::ReflectionPad1d(2)(x.view({1, 2, 3})).sizes() == IntArrayRef{1, 2, 7});
  REQUIRE(nn::ReplicationPad2d(3)(x).sizes() == IntArrayRef{1, 1, 8, 9});
  require_values(nn::ReplicationPad1d(nn::ReplicationPad1dOptions({0, 2}))(x.view({2, 3})),
                 {0, 1, 2, 2, 2, 3, 4, 5, 5, 5});
  require_values(nn::ZeroPad2d(nn::ZeroPad2dOptions({0, 0, 1, 0}))(x), {0, 0, 0, 0, 1, 2, 3, 4, 5});
  require_values(nn::ConstantPad1d(nn::ConstantPad1dOptions({1, 0}, 7))(x.view({2, 3})),
                 {7, 0, 1, 2, 7, 3, 4, 5});
  REQUIRE(nn::ConstantPad2d(1, 0.5)(x).sizes() == IntArrayRef{1, 1, 4, 5});
  std::ostringstream s;
  s << *nn::ReflectionPad2d(2);
  REQUIRE(s.str() == "ReflectionPad2d(padding=[2, 2, 2, 2])");
}

TEST_CASE("Conv2d padding_mode pads the input in that mode before a padding-free conv", "[pad]") {
  // A (1, 3) kernel of ones over one row: out[j] = x[j - 1] + x[j] + x[j + 1],
  // the outside neighbours from the padding mode.
  const Tensor x = tensor({0.0, 1, 2, 3}, kDouble).view({1, 1, 1, 4});
  const auto sum3 = [&](PadMode mode) {
    nn::Conv2d conv(
        nn::Conv2dOptions(1, 1, {1, 3}).padding({0, 1}).padding_mode(mode).bias(false));
    conv->to(kDouble);
    NoGradGuard no_grad;
    conv->weight.fill_(1.0);
    return conv(x);
  };
  require_values(sum3(kZeros), {1, 3, 6, 5});
  require_values(sum3(kCircular), {4, 3, 6, 5});
  require_values(sum3(kReflect), {2, 3, 6, 7});
  require_values(sum3(kReplicate), {1, 3, 6, 8});
  std::ostringstream s;
  s << *nn::Conv2d(nn::Conv2dOptions(1, 2, 3).padding(1).padding_mode(kReflect));
  REQUIRE(s.str() == "Conv2d(1, 2, kernel_size=[3, 3], stride=[1, 1], padding=[1, 1], "
                     "padding_mode=kReflect)");
}

TEST_CASE("conv2d padding kSame keeps the size, the odd extra after; kValid pads nothing",
          "[pad]") {
  manual_seed(5);
  // One channel, a (2, 4) kernel with dilation (1, 2): totals 1 and 6, so rows
  // pad (0 before, 1 after) and columns (3, 3). Reference: a loop reading zeros
  // outside the input.
  const int64_t H = 5, W = 7;
  const Tensor x = randn({1, 1, H, W}, kDouble), w = randn({1, 1, 2, 4}, kDouble);
  const std::vector<double> xv = values(x), wv = values(w);
  std::vector<double> want;
  for (int64_t i = 0; i < H; ++i)
    for (int64_t j = 0; j < W; ++j) {
      double sum = 0;
      for (int64_t r = 0; r < 2; ++r)
        for (int64_t s = 0; s < 4; ++s) {
          const int64_t ih = i + r, iw = j - 3 + 2 * s;
          if (ih < H && iw >= 0 && iw < W) sum += wv[r * 4 + s] * xv[ih * W + iw];
        }
      want.push_back(sum);
    }
  const Tensor y = F::conv2d(x, w, F::Conv2dFuncOptions().padding(kSame).dilation({1, 2}));
  REQUIRE(y.sizes() == IntArrayRef{1, 1, H, W});
  require_values(y, want);
  // An odd kernel pads alike on both sides: conv2d's own padding.
  const Tensor w3 = randn({2, 1, 3, 3}, kDouble);
  require_values(F::conv2d(x, w3, F::Conv2dFuncOptions().padding(kSame)),
                 values(conv2d(x, w3, {}, 1, 1)));
  require_values(F::conv2d(x, w3, F::Conv2dFuncOptions().padding(kValid)),
                 values(conv2d(x, w3)));
  REQUIRE_THROWS_WITH(F::conv2d(x, w3, F::Conv2dFuncOptions().padding(kSame).stride(2)),
                      Catch::Contains("conv2d: padding kSame needs stride 1"));
  // Gradients flow through the extra padding.
  const Tensor xg = x.clone().requires_grad_(), wg = w.clone().requires_grad_();
  REQUIRE_GRADCHECK(gradcheck(
      [](const tensor_list& in) {
        return F::conv2d(in[0], in[1], F::Conv2dFuncOptions().padding(kSame).dilation({1, 2}));
      },
      {xg, wg}));
}

TEST_CASE("Conv2d with kSame and a padding_mode pads both sides in that mode", "[pad]") {
  manual_seed(6);
  nn::Conv2d conv(nn::Conv2dOptions(2, 3, {2, 3}).padding(kSame).padding_mode(kReflect));
  const Tensor x = randn({1, 2, 4, 5});
  const Tensor y = conv(x);
  REQUIRE(y.sizes() == IntArrayRef{1, 3, 4, 5});
  // kernel (2, 3): rows pad (0, 1), columns (1, 1)
  require_values(y, values(conv2d(pad(x, {1, 1, 0, 1}, kReflect), conv->weight, conv->bias)),
                 1e-6);
  std::ostringstream s;
  s << *nn::Conv2d(nn::Conv2dOptions(1, 2, 3).padding(kSame));
  REQUIRE(s.str() == "Conv2d(1, 2, kernel_size=[3, 3], stride=[1, 1], padding=kSame)");
}
