// The 1-d ops (core/ops/nn_ops/ops_1d.cpp) and their layers: conv1d against a
// float64 loop over strides, padding, dilation, groups and bias; pooling
// values by hand (PyTorch's window and bin rules); gradcheck and
// gradgradcheck; kSame, padding_mode and printing of Conv1d; the errors.
#include <vector>

#include "test_helpers.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using ember_test::require_values;
using ember_test::values;
namespace F = ember::nn::functional;

namespace {

// y[n][k][o] = b[k] + sum over c in k's group, s: w[k][c][s] * x[n][c][o * stride - pad + s * dil]
std::vector<double> naive_conv1d(const Tensor& x, const Tensor& w, const Tensor& b, int64_t stride,
                                 int64_t pad, int64_t dil, int64_t groups, int64_t& out_len) {
  const std::vector<double> xv = values(x), wv = values(w);
  const std::vector<double> bv = b.defined() ? values(b) : std::vector<double>();
  const int64_t n = x.size(0), c = x.size(1), len = x.size(2), k = w.size(0), cg = w.size(1),
                taps = w.size(2), kg = k / groups;
  out_len = (len + 2 * pad - dil * (taps - 1) - 1) / stride + 1;
  std::vector<double> y;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t o = 0; o < out_len; ++o) {
        double sum = bv.empty() ? 0.0 : bv[kk];
        for (int64_t cc = 0; cc < cg; ++cc)
          for (int64_t s = 0; s < taps; ++s) {
            const int64_t at = o * stride - pad + s * dil, ch = kk / kg * cg + cc;
            if (at >= 0 && at < len)
              sum += wv[(kk * cg + cc) * taps + s] * xv[(i * c + ch) * len + at];
          }
        y.push_back(sum);
      }
  return y;
}

Tensor leaf(const Tensor& t) { return t.detach().requires_grad_(); }

}  // namespace

TEST_CASE("conv1d matches a float64 loop over strides, padding, dilation, groups and bias",
          "[ops1d]") {
  manual_seed(31);
  struct Case {
    int64_t n, c, len, k, taps, stride, pad, dil, groups;
    bool bias;
  };
  for (const Case& t : std::vector<Case>{{2, 3, 11, 4, 3, 1, 1, 1, 1, true},
                                         {1, 4, 17, 6, 4, 3, 2, 2, 2, false},
                                         {3, 2, 5, 2, 5, 1, 2, 1, 2, true},
                                         {2, 1, 40, 3, 1, 2, 0, 1, 1, true}}) {
    INFO("n " << t.n << " c " << t.c << " len " << t.len << " k " << t.k << " taps " << t.taps);
    const Tensor x = randn({t.n, t.c, t.len}, kDouble);
    const Tensor w = randn({t.k, t.c / t.groups, t.taps}, kDouble);
    const Tensor b = t.bias ? randn({t.k}, kDouble) : Tensor();
    int64_t out_len = 0;
    const std::vector<double> want =
        naive_conv1d(x, w, b, t.stride, t.pad, t.dil, t.groups, out_len);
    const Tensor y = conv1d(x, w, b, t.stride, t.pad, t.dil, t.groups);
    REQUIRE(y.sizes() == IntArrayRef{t.n, t.k, out_len});
    require_values(y, want, 1e-12);
    require_values(conv1d(x.to(kFloat), w.to(kFloat), t.bias ? b.to(kFloat) : Tensor(), t.stride,
                          t.pad, t.dil, t.groups),
                   want, 1e-4);
  }
  // (C, L): one sample without a batch dim.
  const Tensor x = randn({3, 9}, kDouble), w = randn({2, 3, 3}, kDouble);
  REQUIRE(conv1d(x, w).sizes() == IntArrayRef{2, 7});
  require_values(conv1d(x, w), values(conv1d(x.unsqueeze(0), w).squeeze(0)));
}

TEST_CASE("conv1d gradients pass gradcheck and gradgradcheck", "[ops1d]") {
  manual_seed(32);
  const Tensor x = leaf(randn({2, 4, 9}, kDouble).transpose(1, 2).contiguous().transpose(1, 2));
  const Tensor w = leaf(randn({4, 2, 3}, kDouble)), b = leaf(randn({4}, kDouble));
  const auto fn = [](const tensor_list& in) { return conv1d(in[0], in[1], in[2], 2, 1, 2, 2); };
  REQUIRE_GRADCHECK(gradcheck(fn, {x, w, b}));
  REQUIRE_GRADCHECK(gradgradcheck(fn, {x, w, b}));
}

namespace {

// conv_transpose1d by definition, a float64 scatter loop:
// y[n][k][i * stride - pad + s * dil] += x[n][c][i] * w[c][k - group's first][s],
// over an output of (len - 1) * stride - 2 * pad + dil * (taps - 1) + out_pad + 1.
std::vector<double> scatter_conv_transpose1d(const Tensor& x, const Tensor& w, const Tensor& b,
                                             int64_t stride, int64_t pad, int64_t out_pad,
                                             int64_t groups, int64_t dil, int64_t& out_len) {
  const int64_t n = x.size(0), c = x.size(1), len = x.size(2), kg = w.size(1), taps = w.size(2);
  out_len = (len - 1) * stride - 2 * pad + dil * (taps - 1) + out_pad + 1;
  const std::vector<double> xv = values(x), wv = values(w);
  const std::vector<double> bv = b.defined() ? values(b) : std::vector<double>(kg * groups, 0.0);
  std::vector<double> want(n * kg * groups * out_len);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < kg * groups; ++k)
      for (int64_t j = 0; j < out_len; ++j) want[(i * kg * groups + k) * out_len + j] = bv[k];
  for (int64_t i = 0; i < n; ++i)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t kk = 0; kk < kg; ++kk)
        for (int64_t t = 0; t < len; ++t)
          for (int64_t s = 0; s < taps; ++s) {
            const int64_t j = t * stride - pad + s * dil, k = ch / (c / groups) * kg + kk;
            if (j >= 0 && j < out_len)
              want[(i * kg * groups + k) * out_len + j] +=
                  xv[(i * c + ch) * len + t] * wv[(ch * kg + kk) * taps + s];
          }
  return want;
}

}  // namespace

TEST_CASE("conv_transpose1d matches a float64 scatter loop; ConvTranspose1d", "[ops1d]") {
  manual_seed(34);
  const int64_t n = 2, c = 4, len = 6, kg = 3, groups = 2, taps = 3, stride = 2, pad = 1, dil = 2,
                out_pad = 1;
  const Tensor x = randn({n, c, len}, kDouble), w = randn({c, kg, taps}, kDouble),
               b = randn({kg * groups}, kDouble);
  int64_t out_len = 0;
  const std::vector<double> want =
      scatter_conv_transpose1d(x, w, b, stride, pad, out_pad, groups, dil, out_len);
  const Tensor y = conv_transpose1d(x, w, b, stride, pad, out_pad, groups, dil);
  REQUIRE(y.sizes() == IntArrayRef{n, kg * groups, out_len});
  require_values(y, want, 1e-12);
  const auto fn = [](const tensor_list& in) {
    return conv_transpose1d(in[0], in[1], in[2], 2, 1, 1, 2, 2);
  };
  REQUIRE_GRADCHECK(gradcheck(fn, {leaf(x), leaf(w), leaf(b)}));
  nn::ConvTranspose1d layer(nn::ConvTranspose1dOptions(4, 6, 3).stride(2).groups(2));
  REQUIRE(layer->weight.sizes() == IntArrayRef{4, 3, 3});
  REQUIRE(layer(randn({5, 4, 7})).sizes() == IntArrayRef{5, 6, 15});
  std::ostringstream s;
  s << *layer;
  CHECK(s.str() == "ConvTranspose1d(4, 6, kernel_size=[3], stride=[2], groups=2)");
  REQUIRE_THROWS_WITH(conv_transpose1d(x, randn({3, 3, 3}, kDouble)),
                      Catch::Contains("conv_transpose1d: input of shape [2, 4, 6] has 4 channels, "
                                      "but weight of shape [3, 3, 3] expects 3"));
}

TEST_CASE("conv_transpose1d: output_padding at or past the stride, below the dilation",
          "[ops1d]") {
  // By hand (PyTorch 1.13 gives the same): ones (3) through a kernel of two
  // ones dilated by 2, output_padding 1: taps at i and i + 2, one zero row added.
  require_values(conv_transpose1d(ones({1, 1, 3}, kDouble), ones({1, 1, 2}, kDouble), {}, 1, 0,
                                  1, 1, 2),
                 {1, 1, 2, 1, 1, 0});
  manual_seed(35);
  struct Case {
    int64_t stride, pad, out_pad, dil, groups;
  };
  for (const Case& t : std::vector<Case>{{1, 0, 1, 2, 1}, {1, 2, 2, 3, 2}, {2, 1, 2, 3, 1},
                                         {2, 0, 3, 4, 2}}) {
    INFO("stride " << t.stride << " pad " << t.pad << " output_padding " << t.out_pad
                   << " dilation " << t.dil << " groups " << t.groups);
    const Tensor x = randn({2, 4, 5}, kDouble), w = randn({4, 3, 3}, kDouble);
    const Tensor b = randn({3 * t.groups}, kDouble);
    int64_t out_len = 0;
    const std::vector<double> want =
        scatter_conv_transpose1d(x, w, b, t.stride, t.pad, t.out_pad, t.groups, t.dil, out_len);
    const Tensor y = conv_transpose1d(x, w, b, t.stride, t.pad, t.out_pad, t.groups, t.dil);
    REQUIRE(y.sizes() == IntArrayRef{2, 3 * t.groups, out_len});
    require_values(y, want, 1e-12);
    const auto fn = [&](const tensor_list& in) {
      return conv_transpose1d(in[0], in[1], in[2], t.stride, t.pad, t.out_pad, t.groups, t.dil);
    };
    REQUIRE_GRADCHECK(gradcheck(fn, {leaf(x), leaf(w), leaf(b)}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {leaf(x), leaf(w), leaf(b)}));
  }
}

TEST_CASE("1-d pooling: PyTorch's windows and bins, by hand, and their gradients", "[ops1d]") {
  const Tensor x = tensor({3.0, 1, 4, 1, 5, 9, 2}, kDouble).view({1, 1, 7});
  require_values(max_pool1d(x, 2), {3, 4, 9});
  require_values(max_pool1d(x, 3, 2, 1), {3, 4, 9, 9});  // windows [-1,2) [1,4) [3,6) [5,8)
  require_values(max_pool1d(x, 2, 2, 0, 1, true), {3, 4, 9, 2});  // ceil_mode: a last window of 1
  require_values(max_pool1d(x, 2, 1, 0, 3), {3, 5, 9, 2});  // taps o and o + 3
  const auto [out, idx] = max_pool1d_with_indices(x, 3);
  require_values(out, {4, 9});
  require_values(idx, {2, 5});
  require_values(avg_pool1d(x, 2), {2, 2.5, 7});
  // padding 1, windows [-1,2) [2,5) [5,8): count_include_pad counts the pad in
  // the divisor; without it, only the input's elements count
  require_values(avg_pool1d(x, 3, 3, 1), {4.0 / 3, 10.0 / 3, 11.0 / 3});
  require_values(avg_pool1d(x, 3, 3, 1, false, false), {2, 10.0 / 3, 5.5});
  // adaptive, 7 -> 3: bins [floor(i 7 / 3), ceil((i + 1) 7 / 3)) = [0,3) [2,5) [4,7)
  require_values(adaptive_avg_pool1d(x, 3), {8.0 / 3, 10.0 / 3, 16.0 / 3});
  // (C, L) inputs
  REQUIRE(max_pool1d(x.squeeze(0), 2).sizes() == IntArrayRef{1, 3});
  Tensor g = leaf(tensor({3.0, 1, 4, 1, 5, 9, 2}, kDouble).view({1, 1, 7}));
  max_pool1d(g, 3, 1).sum().backward();  // windows' maxima: 4 4 5 9 9
  require_values(g.grad(), {0, 0, 2, 0, 1, 2, 0});
  const Tensor r = leaf(randn({2, 3, 10}, kDouble));
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return avg_pool1d(in[0], 3, 2, 1); },
                              {r}));
  REQUIRE_GRADCHECK(
      gradgradcheck([](const tensor_list& in) { return adaptive_avg_pool1d(in[0], 4); }, {r}));
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return max_pool1d(in[0], 3, 2); }, {r}));
}

TEST_CASE("Conv1d, its kSame padding and padding_mode; the 1-d pooling layers", "[ops1d]") {
  manual_seed(33);
  // A kernel of 3 ones over [0 1 2 3]: out[j] = x[j - 1] + x[j] + x[j + 1].
  const Tensor x = tensor({0.0, 1, 2, 3}, kDouble).view({1, 1, 4});
  const auto sum3 = [&](nn::Conv1dOptions o) {
    nn::Conv1d conv(o.bias(false));
    conv->to(kDouble);
    NoGradGuard no_grad;
    conv->weight.fill_(1.0);
    return conv(x);
  };
  require_values(sum3(nn::Conv1dOptions(1, 1, 3).padding(1)), {1, 3, 6, 5});
  require_values(sum3(nn::Conv1dOptions(1, 1, 3).padding(kSame)), {1, 3, 6, 5});
  require_values(sum3(nn::Conv1dOptions(1, 1, 3).padding(1).padding_mode(kCircular)),
                 {4, 3, 6, 5});
  require_values(sum3(nn::Conv1dOptions(1, 1, 3).padding(kSame).padding_mode(kReplicate)),
                 {1, 3, 6, 8});
  // An even kernel: total 1, the extra after: out[j] = x[j] + x[j + 1], 0 past the end.
  require_values(sum3(nn::Conv1dOptions(1, 1, 2).padding(kSame)), {1, 3, 5, 3});
  require_values(sum3(nn::Conv1dOptions(1, 1, 2).padding(kValid)), {1, 3, 5});
  REQUIRE_THROWS_WITH(F::conv1d(x, ones({1, 1, 3}, kDouble),
                                F::Conv1dFuncOptions().padding(kSame).stride(2)),
                      Catch::Contains("conv1d: padding kSame needs stride 1"));
  nn::Conv1d layer(nn::Conv1dOptions(4, 6, 5).stride(2).groups(2));
  REQUIRE(layer->weight.sizes() == IntArrayRef{6, 2, 5});
  REQUIRE(layer(randn({3, 4, 20})).sizes() == IntArrayRef{3, 6, 8});
  std::ostringstream s;
  s << *layer << " " << *nn::MaxPool1d(3) << " "
    << *nn::AvgPool1d(nn::AvgPool1dOptions(2).stride(1)) << " " << *nn::AdaptiveAvgPool1d(5);
  CHECK(s.str() == "Conv1d(4, 6, kernel_size=[5], stride=[2], groups=2) "
                   "MaxPool1d(kernel_size=[3], stride=[3], padding=[0], dilation=[1], "
                   "ceil_mode=false) AvgPool1d(kernel_size=[2], stride=[1], padding=[0]) "
                   "AdaptiveAvgPool1d(output_size=[5])");
  const Tensor p = tensor({3.0, 1, 4, 1, 5, 9, 2}, kDouble).view({1, 7});
  require_values(nn::MaxPool1d(nn::MaxPool1dOptions(3).stride(2).padding(1))(p), {3, 4, 9, 9});
  require_values(nn::AvgPool1d(2)(p), {2, 2.5, 7});
  require_values(nn::AdaptiveAvgPool1d(3)(p), {8.0 / 3, 10.0 / 3, 16.0 / 3});
  require_values(std::get<1>(F::max_pool1d_with_indices(p, F::MaxPool1dFuncOptions(3))), {2, 5});
  // adaptive max, 7 -> 3: bins [0,3) [2,5) [4,7)
  require_values(nn::AdaptiveMaxPool1d(3)(p), {4, 5, 9});
  require_values(std::get<1>(F::adaptive_max_pool1d_with_indices(
                     p, F::AdaptiveMaxPool1dFuncOptions(3))),
                 {2, 4, 5});
  require_values(F::adaptive_max_pool1d(p.unsqueeze(0), F::AdaptiveMaxPool1dFuncOptions(1)), {9});
}

TEST_CASE("1-d ops reject bad shapes and settings, naming the op", "[ops1d]") {
  const Tensor x = zeros({2, 3, 8});
  REQUIRE_THROWS_WITH(conv1d(zeros({1, 2, 3, 8}), zeros({2, 2, 3})),
                      Catch::Contains("conv1d: expected a 2-d (C, L) or 3-d (N, C, L) input, got "
                                      "shape [1, 2, 3, 8]"));
  REQUIRE_THROWS_WITH(conv1d(x, zeros({2, 3, 1, 3})),
                      Catch::Contains("conv1d: expected a 3-d weight (K, C / groups, S)"));
  REQUIRE_THROWS_WITH(conv1d(x, zeros({2, 2, 3})),
                      Catch::Contains("conv1d: input of shape [2, 3, 8] has 3 channels, but weight "
                                      "of shape [2, 2, 3] with groups 1 expects 2"));
  REQUIRE_THROWS_WITH(conv1d(x, zeros({2, 3, 3}), {}, {1, 2}),
                      Catch::Contains("conv1d: stride must be one value, got [1, 2]"));
  // A length-1 input under a kernel of 2 with stride 2: refused, not rounded to one output.
  REQUIRE_THROWS_WITH(conv1d(ones({1, 1, 1}), ones({1, 1, 2}), {}, 2),
                      Catch::Contains("smaller than the kernel"));
  REQUIRE_THROWS_WITH(max_pool1d(zeros({8}), 2),
                      Catch::Contains("max_pool1d: expected a 2-d (C, L) or 3-d (N, C, L) input"));
  REQUIRE_THROWS_WITH(avg_pool1d(x, {2, 2}),
                      Catch::Contains("avg_pool1d: kernel_size must be one value, got [2, 2]"));
  REQUIRE_THROWS_WITH(adaptive_avg_pool1d(x, {2, 2}),
                      Catch::Contains("adaptive_avg_pool1d: output_size must be one value"));
}
