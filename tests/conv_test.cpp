// Convolution (core/ops/nn_ops/conv.cpp, kernels/cpu/conv_*.cpp): every CPU algorithm
// and pass against naive float64 loops written here, conv2d and
// conv_transpose2d values, unbatched and non-contiguous inputs, empty inputs,
// benchmark mode, gradients (gradcheck / gradgradcheck) and error messages.
#include "test_helpers.h"

#include <ember/core/backends.h>
#include <ember/core/ops/nn_ops/conv.h>
#include <ember/kernels/cpu/conv.h>
#include <ember/kernels/cpu/conv_algo_select.h>
#include <ember/kernels/cpu/sgemm_avx512.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using cpu::ConvAlgo;
using ember_test::require_values;
using ember_test::values;

namespace {

// A problem: x (n, c, h, w) * w (k, c/groups, r, s), optional bias (k).
struct Problem {
  int64_t n, c, h, w, k, r, s;
  std::array<int64_t, 2> stride{1, 1}, pad{0, 0}, dil{1, 1};
  int64_t groups = 1;
  bool bias = false;
  bool inference = false;  // the forward of an evaluation (ConvParams::inference)

  int64_t oh() const { return (h + 2 * pad[0] - dil[0] * (r - 1) - 1) / stride[0] + 1; }
  int64_t ow() const { return (w + 2 * pad[1] - dil[1] * (s - 1) - 1) / stride[1] + 1; }
  std::vector<int64_t> x_shape() const { return {n, c, h, w}; }
  std::vector<int64_t> w_shape() const { return {k, c / groups, r, s}; }
  std::vector<int64_t> y_shape() const { return {n, k, oh(), ow()}; }
  ConvParams params(ScalarType dtype) const {
    ConvParams p;
    p.n = n, p.c = c, p.h = h, p.w = w, p.k = k, p.r = r, p.s = s, p.groups = groups;
    p.stride = stride, p.padding = pad, p.dilation = dil, p.dtype = dtype;
    p.inference = inference;
    return p;
  }
};

// Calls f(img, k, c, r, s, oh, ow, x index, w index, y index) for every tap
// that reads inside the input: the one loop nest all three references share.
template <typename F>
void for_each_tap(const Problem& p, const F& f) {
  const int64_t cg = p.c / p.groups, kg = p.k / p.groups, oh_n = p.oh(), ow_n = p.ow();
  for (int64_t img = 0; img < p.n; ++img)
    for (int64_t k = 0; k < p.k; ++k)
      for (int64_t cl = 0; cl < cg; ++cl)
        for (int64_t r = 0; r < p.r; ++r)
          for (int64_t s = 0; s < p.s; ++s)
            for (int64_t oh = 0; oh < oh_n; ++oh)
              for (int64_t ow = 0; ow < ow_n; ++ow) {
                const int64_t ih = oh * p.stride[0] - p.pad[0] + r * p.dil[0];
                const int64_t iw = ow * p.stride[1] - p.pad[1] + s * p.dil[1];
                if (ih < 0 || ih >= p.h || iw < 0 || iw >= p.w) continue;
                const int64_t c = k / kg * cg + cl;
                f(((img * p.c + c) * p.h + ih) * p.w + iw, ((k * cg + cl) * p.r + r) * p.s + s,
                  ((img * p.k + k) * oh_n + oh) * ow_n + ow);
              }
}

// y = conv(x, w) + bias[k]
std::vector<double> naive_forward(const Problem& p, const std::vector<double>& x,
                                  const std::vector<double>& w, const std::vector<double>& b) {
  std::vector<double> y(static_cast<size_t>(p.n * p.k * p.oh() * p.ow()), 0.0);
  for_each_tap(p, [&](int64_t xi, int64_t wi, int64_t yi) { y[yi] += w[wi] * x[xi]; });
  if (!b.empty())
    for (size_t i = 0; i < y.size(); ++i) y[i] += b[i / (p.oh() * p.ow()) % p.k];
  return y;
}

// gx = conv^T(gy, w) + bias[c]
std::vector<double> naive_backward_data(const Problem& p, const std::vector<double>& gy,
                                        const std::vector<double>& w,
                                        const std::vector<double>& b) {
  std::vector<double> gx(static_cast<size_t>(p.n * p.c * p.h * p.w), 0.0);
  for_each_tap(p, [&](int64_t xi, int64_t wi, int64_t yi) { gx[xi] += w[wi] * gy[yi]; });
  if (!b.empty())
    for (size_t i = 0; i < gx.size(); ++i) gx[i] += b[i / (p.h * p.w) % p.c];
  return gx;
}

std::vector<double> naive_backward_weight(const Problem& p, const std::vector<double>& x,
                                          const std::vector<double>& gy) {
  std::vector<double> gw(static_cast<size_t>(p.k * p.c / p.groups * p.r * p.s), 0.0);
  for_each_tap(p, [&](int64_t xi, int64_t wi, int64_t yi) { gw[wi] += x[xi] * gy[yi]; });
  return gw;
}

// Small odd problems: stride, padding, dilation, groups, bias or not, batch 1 and > 1.
std::vector<Problem> small_problems() {
  std::vector<Problem> v;
  v.push_back({2, 3, 7, 6, 4, 3, 2, {2, 1}, {1, 0}, {1, 2}, 1, true});
  v.push_back({1, 4, 5, 5, 6, 3, 3, {1, 1}, {1, 1}, {1, 1}, 2, false});
  v.push_back({3, 6, 3, 5, 4, 1, 1, {1, 1}, {0, 0}, {1, 1}, 2, true});   // 1x1, grouped
  v.push_back({2, 2, 9, 8, 3, 2, 3, {3, 2}, {2, 1}, {2, 1}, 1, false});
  v.push_back({1, 3, 4, 4, 5, 1, 1, {1, 1}, {0, 0}, {1, 1}, 1, false});  // 1x1, one image
  v.push_back({2, 1, 6, 7, 2, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, true});   // one input channel
  v.push_back({2, 4, 5, 5, 4, 3, 3, {1, 1}, {2, 2}, {1, 1}, 4, true});   // depthwise
  v.push_back({1, 4, 5, 19, 18, 3, 3, {2, 1}, {1, 1}, {1, 1}, 2, true});  // 9 = 8 + 1 per group
  // 29 = 16 + 8 + 4 + 1 output channels (every block of the direct forward), output
  // rows of 19 = 16 + 3, and 3 images (2 threads' task ranges split one image).
  v.push_back({3, 3, 5, 37, 29, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, true});
  // 16+ channels (the channels-last unfold): padding wider than the kernel's
  // reach, dilation (taps of a row not adjacent), 1x1, non-square stride.
  v.push_back({2, 16, 5, 6, 3, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, true});
  v.push_back({1, 17, 6, 5, 4, 3, 2, {1, 2}, {3, 2}, {2, 3}, 1, false});
  v.push_back({3, 16, 4, 4, 5, 1, 1, {1, 1}, {0, 0}, {1, 1}, 1, true});
  v.push_back({2, 18, 7, 7, 2, 2, 3, {3, 1}, {0, 2}, {1, 1}, 1, false});
  return v;
}

std::string describe(const Problem& p) {
  return "x [" + std::to_string(p.n) + ", " + std::to_string(p.c) + ", " + std::to_string(p.h) +
         ", " + std::to_string(p.w) + "] w [" + std::to_string(p.k) + ", " +
         std::to_string(p.c / p.groups) + ", " + std::to_string(p.r) + ", " +
         std::to_string(p.s) + "] stride " + std::to_string(p.stride[0]) + "," +
         std::to_string(p.stride[1]) + " pad " + std::to_string(p.pad[0]) + "," +
         std::to_string(p.pad[1]) + " dil " + std::to_string(p.dil[0]) + "," +
         std::to_string(p.dil[1]) + " groups " + std::to_string(p.groups) +
         (p.bias ? " bias" : "");
}

// Runs each pass `algo` supports on the kernel entry points in dtype T and
// checks it against the naive loops; returns how many passes ran.
template <typename T>
int check_algo_passes(ConvAlgo algo, const Problem& p, double tol) {
  INFO(cpu::conv_algo_name(algo) << " on " << describe(p));
  const ScalarType dt = scalar_type_of<T>;
  const Tensor x = randn(p.x_shape(), dt), w = randn(p.w_shape(), dt), gy = randn(p.y_shape(), dt);
  const Tensor bk = randn({p.k}, dt), bc = randn({p.c}, dt);
  const ConvParams params = p.params(dt);
  const std::vector<double> none;
  const auto supports = [&](ConvPass pass) {
    return cpu::conv_algo_supports(algo, pass, params);
  };
  int passes = 0;
  if (supports(ConvPass::kForward)) {
    INFO("forward");
    Tensor y = full(p.y_shape(), 7.0, dt);  // the kernels must overwrite, not accumulate
    cpu::conv_forward<T>(algo, params,
                         {x.data_ptr<T>(), w.data_ptr<T>(), p.bias ? bk.data_ptr<T>() : nullptr,
                          y.data_ptr<T>()});
    require_values(y, naive_forward(p, values(x), values(w), p.bias ? values(bk) : none), tol);
    ++passes;
  }
  if (supports(ConvPass::kBackwardData)) {
    INFO("backward-data");
    Tensor gx = full(p.x_shape(), 7.0, dt);
    cpu::conv_backward_data<T>(algo, params,
                               {gy.data_ptr<T>(), w.data_ptr<T>(),
                                p.bias ? bc.data_ptr<T>() : nullptr, gx.data_ptr<T>()});
    require_values(gx, naive_backward_data(p, values(gy), values(w), p.bias ? values(bc) : none),
                   tol);
    ++passes;
  }
  if (supports(ConvPass::kBackwardWeight)) {
    INFO("backward-weight");
    Tensor gw = full(p.w_shape(), 7.0, dt);
    cpu::conv_backward_weight<T>(algo, params,
                                 {x.data_ptr<T>(), gy.data_ptr<T>(), gw.data_ptr<T>()});
    require_values(gw, naive_backward_weight(p, values(x), values(gy)), tol);
    ++passes;
  }
  return passes;
}

const std::array<ConvAlgo, 6> kAlgos{ConvAlgo::kIm2colGemm,  ConvAlgo::kGemm1x1,
                                     ConvAlgo::kDirect,      ConvAlgo::kIm2colNhwc,
                                     ConvAlgo::kImplicitGemm, ConvAlgo::kWinograd};

// Sets a CPU benchmark mode for one scope.
struct BenchmarkModeGuard {
  bool saved = backends::cpu::benchmark();
  explicit BenchmarkModeGuard(bool on) { backends::cpu::set_benchmark(on); }
  ~BenchmarkModeGuard() { backends::cpu::set_benchmark(saved); }
};

Tensor rand_double(std::vector<int64_t> shape) { return randn(shape, kDouble); }

}  // namespace

// ---- the kernels, algorithm by algorithm ----

TEST_CASE("conv kernels: every algorithm's three passes match naive float64 loops", "[conv]") {
  manual_seed(11);
  for (const Problem& p : small_problems()) {
    for (ConvAlgo algo : kAlgos) {
      check_algo_passes<double>(algo, p, 1e-12);
      check_algo_passes<float>(algo, p, 1e-4);
    }
  }
}

TEST_CASE("conv kernels: the direct forward's channel blocks of every size match naive loops",
          "[conv]") {
  manual_seed(13);
  // 1 to 17 output channels: every block and tail the forward has, with AVX-512 (16, 8, 4, 1)
  // and without it (6, then one block of the rest's size); the backward-weight's blocks of 4
  // and the channels left after them.
  for (int64_t k = 1; k <= 17; ++k) {
    const Problem p{2, 3, 5, 11, k, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, true};
    check_algo_passes<double>(ConvAlgo::kDirect, p, 1e-12);
    check_algo_passes<float>(ConvAlgo::kDirect, p, 1e-4);
  }
}

TEST_CASE("conv kernels: the direct backward-weight gives the same bits at every run",
          "[conv]") {
  // Note [Direct backward-weight]: the partial sums of fixed image ranges, added in a fixed
  // order; 11 images over 2 threads, output planes of 9 x 9 (81 outputs: padded gy).
  manual_seed(17);
  const Problem p{11, 3, 18, 17, 10, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, false};
  const ConvParams params = p.params(kFloat);
  const Tensor x = randn(p.x_shape()), gy = randn(p.y_shape());
  const int threads_before = get_num_threads();
  for (const int threads : {1, 2}) {
    set_num_threads(threads);
    std::vector<std::vector<double>> runs;
    for (int run = 0; run < 3; ++run) {
      Tensor gw = ember::full(p.w_shape(), 7.0);
      cpu::conv_backward_weight<float>(ConvAlgo::kDirect, params,
                                       {x.data_ptr<float>(), gy.data_ptr<float>(),
                                        gw.data_ptr<float>()});
      runs.push_back(values(gw));
    }
    INFO(threads << " thread(s)");
    CHECK(runs[1] == runs[0]);
    CHECK(runs[2] == runs[0]);
  }
  set_num_threads(threads_before);
}

// ConvParams::relu: each forward's output is relu of what it computes without
// the flag, bit for bit, and a NaN stays NaN (as relu).
template <typename T>
void check_fused_relu(ConvAlgo algo, const Problem& p) {
  INFO(cpu::conv_algo_name(algo) << " on " << describe(p));
  const ScalarType dt = scalar_type_of<T>;
  ConvParams params = p.params(dt);
  params.inference = true;  // Winograd with its weight cache
  if (!cpu::conv_algo_supports(algo, ConvPass::kForward, params)) return;
  Tensor x = randn(p.x_shape(), dt);
  x.view({-1})[x.numel() / 2].fill_(std::numeric_limits<double>::quiet_NaN());
  const Tensor w = randn(p.w_shape(), dt), b = randn({p.k}, dt);
  const auto forward = [&](bool relu) {
    ConvParams q = params;
    q.relu = relu;
    Tensor y = full(p.y_shape(), 7.0, dt);
    cpu::conv_forward<T>(algo, q, {x.data_ptr<T>(), w.data_ptr<T>(),
                                   p.bias ? b.data_ptr<T>() : nullptr, y.data_ptr<T>()});
    return values(y);
  };
  const std::vector<double> plain = forward(false), fused = forward(true);
  int nans = 0;
  for (size_t i = 0; i < plain.size(); ++i) {
    if (std::isnan(plain[i])) {
      ++nans;
      REQUIRE(std::isnan(fused[i]));
    } else {
      REQUIRE(fused[i] == std::max(plain[i], 0.0));
    }
  }
  REQUIRE(nans > 0);
}

TEST_CASE("conv kernels: every forward applies a fused ReLU to its own output exactly",
          "[conv]") {
  manual_seed(12);
  std::vector<Problem> problems = small_problems();
  problems.push_back({17, 16, 9, 9, 20, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, true});  // Winograd
  for (const Problem& p : problems)
    for (ConvAlgo algo : kAlgos) {
      check_fused_relu<double>(algo, p);
      check_fused_relu<float>(algo, p);
    }
}

// The bfloat16 passes (conv_im2col_bf16.cpp) against the naive float64 loops over the same
// bfloat16 inputs: each output is a float32 sum of exact products (8-bit significands), rounded
// to bfloat16 once. The bound per element: that rounding (2^-8 relative) plus float32
// summation of `terms` terms (terms * 2^-24 times the sum of the terms' magnitudes, the naive
// loop over |x| and |w|).
void require_rounded_once(const Tensor& got, const std::vector<double>& want,
                          const std::vector<double>& magnitude, int64_t terms) {
  REQUIRE(got.scalar_type() == kBFloat16);
  const std::vector<double> g = values(got);
  REQUIRE(g.size() == want.size());
  size_t outside = 0, first = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    const double bound =
        std::ldexp(std::abs(want[i]), -8) + 2.0 * double(terms + 2) * std::ldexp(magnitude[i], -24);
    if (!(std::abs(g[i] - want[i]) <= bound) && outside++ == 0) first = i;
  }
  INFO(outside << " elements outside the bound, the first " << first << ": " << g[first]
               << ", want " << want[first]);
  REQUIRE(outside == 0);
}

std::vector<double> magnitudes(const Tensor& t) {
  std::vector<double> v = values(t);
  for (double& x : v) x = std::abs(x);
  return v;
}

void check_bf16_passes(const Problem& p) {
  INFO(describe(p));
  const Tensor x = randn(p.x_shape(), kBFloat16), w = randn(p.w_shape(), kBFloat16);
  const Tensor gy = randn(p.y_shape(), kBFloat16);
  const Tensor bk = randn({p.k}, kBFloat16), bc = randn({p.c}, kBFloat16);
  const ConvParams params = p.params(kBFloat16);
  const std::vector<double> none;
  const auto bias = [&](const Tensor& b) { return p.bias ? b.data_ptr<BFloat16>() : nullptr; };
  const auto bias_values = [&](const Tensor& b) { return p.bias ? values(b) : none; };
  const auto bias_magnitudes = [&](const Tensor& b) { return p.bias ? magnitudes(b) : none; };
  const auto forward = [&](bool relu) {
    ConvParams q = params;
    q.relu = relu;
    Tensor y = full(p.y_shape(), 7.0, kBFloat16);  // the passes must overwrite
    cpu::conv_im2col_bf16_forward(q, {x.data_ptr<BFloat16>(), w.data_ptr<BFloat16>(), bias(bk),
                                      y.data_ptr<BFloat16>()});
    return y;
  };
  {
    INFO("forward");
    const Tensor y = forward(false);
    require_rounded_once(y, naive_forward(p, values(x), values(w), bias_values(bk)),
                         naive_forward(p, magnitudes(x), magnitudes(w), bias_magnitudes(bk)),
                         p.c / p.groups * p.r * p.s + 1);
    // The fused ReLU (ConvParams::relu) is relu of the rounded output, exactly.
    std::vector<double> relu_of_plain = values(y);
    for (double& v : relu_of_plain) v = std::max(v, 0.0);
    REQUIRE(values(forward(true)) == relu_of_plain);
  }
  {
    INFO("backward-data");
    Tensor gx = full(p.x_shape(), 7.0, kBFloat16);
    cpu::conv_im2col_bf16_backward_data(params, {gy.data_ptr<BFloat16>(), w.data_ptr<BFloat16>(),
                                                 bias(bc), gx.data_ptr<BFloat16>()});
    require_rounded_once(gx, naive_backward_data(p, values(gy), values(w), bias_values(bc)),
                         naive_backward_data(p, magnitudes(gy), magnitudes(w), bias_magnitudes(bc)),
                         p.k / p.groups * p.r * p.s + 1);
  }
  {
    INFO("backward-weight");
    Tensor gw = full(p.w_shape(), 7.0, kBFloat16);
    cpu::conv_im2col_bf16_backward_weight(
        params, {x.data_ptr<BFloat16>(), gy.data_ptr<BFloat16>(), gw.data_ptr<BFloat16>()});
    require_rounded_once(gw, naive_backward_weight(p, values(x), values(gy)),
                         naive_backward_weight(p, magnitudes(x), magnitudes(gy)),
                         p.n * p.oh() * p.ow());
  }
}

// (On a CPU without AVX-512 BF16 the passes run the same code on the widening bf16gemm.)
TEST_CASE("conv kernels: the bfloat16 passes are float32 sums of exact products, rounded once",
          "[conv][dtype]") {
  manual_seed(13);
  std::vector<Problem> problems = small_problems();
  // 8 images of 16 channels, 24 x 24: 3 per im2col chunk, so both threads' parts run several
  // chunks, and the weight gradient sums 8 * 576 positions (several of the GEMM's k blocks).
  problems.push_back({8, 16, 24, 24, 4, 3, 3, {1, 1}, {1, 1}, {1, 1}, 1, true});
  // Stride 2 with inputs twice the outputs: the backward-data's fold by phase (Note [Stride-2
  // fold by phase]): 3x3 pad 1 (1, 2, 2 and 4 taps per phase), 8 x 5 outputs (a partial block
  // of 16), 2x2 pad 0 (one tap per phase), 1x1 (three phases without taps: bias only).
  problems.push_back({2, 5, 8, 8, 6, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, true});
  problems.push_back({3, 4, 16, 10, 5, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, false});
  problems.push_back({2, 3, 6, 8, 4, 2, 2, {2, 2}, {0, 0}, {1, 1}, 1, true});
  problems.push_back({2, 3, 6, 6, 4, 1, 1, {2, 2}, {0, 0}, {1, 1}, 1, true});
  // The forward's unfold into panels (Note [Unfold into panels]): 4 x 4 and 8 x 8 outputs
  // with bias; 96 channels are 864 taps, beyond one k block, where sums go through float32.
  problems.push_back({3, 16, 8, 8, 8, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, true});
  problems.push_back({2, 96, 8, 8, 4, 3, 3, {1, 1}, {1, 1}, {1, 1}, 1, true});
  // gy read in place by the backward GEMMs (runs of 16 outputs), with two groups.
  problems.push_back({3, 4, 8, 8, 6, 3, 3, {2, 2}, {1, 1}, {1, 1}, 2, true});
  for (const Problem& p : problems) check_bf16_passes(p);
  // A weight of 64 x 64 x 3 x 3 (36864 elements, above one grain): the weight gradient's
  // closing sum over the parts splits over both threads.
  const int threads_before = get_num_threads();
  set_num_threads(2);
  check_bf16_passes({2, 64, 5, 5, 64, 3, 3, {1, 1}, {1, 1}, {1, 1}, 1, false});
  set_num_threads(threads_before);
}

// Where the CPU has AVX-512 BF16, conv2d runs the bfloat16 passes; elsewhere the float32
// algorithms on float32 copies (Note [16-bit convolutions on the CPU]): the same bounds hold.
TEST_CASE("conv2d on bfloat16: values, gradients in bfloat16, the dtype in the cache key",
          "[conv][dtype]") {
  manual_seed(14);
  const Problem p{3, 8, 9, 9, 16, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, true};
  BenchmarkModeGuard mode(true);
  backends::cpu::clear_benchmark_cache();
  const Tensor x = randn(p.x_shape(), kBFloat16).requires_grad_();
  const Tensor w = randn(p.w_shape(), kBFloat16).requires_grad_();
  const Tensor b = randn({p.k}, kBFloat16).requires_grad_();
  const Tensor y = conv2d(x, w, b, {2, 2}, {1, 1});
  const Tensor gy = randn(p.y_shape(), kBFloat16);
  y.backward(gy);
  require_rounded_once(y, naive_forward(p, values(x), values(w), values(b)),
                       naive_forward(p, magnitudes(x), magnitudes(w), magnitudes(b)), 8 * 9 + 1);
  require_rounded_once(x.grad(), naive_backward_data(p, values(gy), values(w), {}),
                       naive_backward_data(p, magnitudes(gy), magnitudes(w), {}), 16 * 9);
  require_rounded_once(w.grad(), naive_backward_weight(p, values(x), values(gy)),
                       naive_backward_weight(p, magnitudes(x), magnitudes(gy)), 3 * 25);
  CHECK(b.grad().scalar_type() == kBFloat16);
  // Benchmark mode keys each pass by the dtype its kernels run in: one entry per pass.
  const bool own_passes = cpu::conv_bf16_available();
  const std::vector<backends::BenchmarkEntry> entries = backends::cpu::benchmark_entries();
  CHECK(entries.size() == 3);
  for (const backends::BenchmarkEntry& e : entries) {
    INFO(e.pass << " " << e.key);
    CHECK(e.key.find(own_passes ? "bfloat16" : "float32") != std::string::npos);
    if (own_passes) CHECK(e.algo == "im2col_gemm");
  }
  backends::cpu::clear_benchmark_cache();
}

TEST_CASE("conv2d_relu is relu(conv2d): values, gradients, and no graph under NoGradGuard",
          "[conv]") {
  manual_seed(13);
  const Tensor x = rand_double({2, 3, 7, 6}) - 0.5, w = rand_double({4, 3, 3, 3}) - 0.5,
               b = rand_double({4}) - 0.5;
  {
    NoGradGuard no_grad;
    const Tensor fused = conv2d_relu(x, w, b, 2, 1);
    REQUIRE(equal(fused, relu(conv2d(x, w, b, 2, 1))));
    REQUIRE(conv2d_relu(x.slice(0, 0, 0), w, b, 2, 1).size(0) == 0);  // empty batch
    const Tensor no_channels = conv2d_relu(zeros({1, 0, 4, 4}, kDouble), zeros({2, 0, 3, 3}, kDouble),
                                           full({2}, -1.0, kDouble));
    REQUIRE(no_channels.max().item<double>() == 0.0);  // relu of the bias alone
  }
  const Tensor xg = x.detach().requires_grad_(), wg = w.detach().requires_grad_(),
               bg = b.detach().requires_grad_();
  const Tensor y = conv2d_relu(xg, wg, bg, 2, 1);
  REQUIRE(y.grad_fn() != nullptr);
  auto fn = [](const tensor_list& in) { return conv2d_relu(in[0], in[1], in[2], {2, 1}, 1); };
  REQUIRE_GRADCHECK(gradcheck(fn, {xg, wg, bg}));
}

TEST_CASE("conv kernels: 1x1, direct and channels-last support what they claim", "[conv]") {
  const auto kFwd = ConvPass::kForward;
  const Problem one_by_one{2, 3, 4, 4, 5, 1, 1};
  Problem strided = one_by_one;
  strided.stride = {2, 2};
  Problem padded = one_by_one;
  padded.pad = {1, 0};
  CHECK(cpu::conv_algo_supports(ConvAlgo::kGemm1x1, kFwd, one_by_one.params(kFloat)));
  CHECK_FALSE(cpu::conv_algo_supports(ConvAlgo::kGemm1x1, kFwd, strided.params(kFloat)));
  CHECK_FALSE(cpu::conv_algo_supports(ConvAlgo::kGemm1x1, kFwd, padded.params(kFloat)));
  CHECK(cpu::conv_algo_supports(ConvAlgo::kIm2colGemm, kFwd, strided.params(kFloat)));
  const auto params = [](int64_t c) { return Problem{1, c, 8, 8, 32, 3, 3}.params(kFloat); };
  CHECK(cpu::conv_algo_supports(ConvAlgo::kDirect, kFwd, params(3)));
  CHECK_FALSE(cpu::conv_algo_supports(ConvAlgo::kDirect, kFwd, params(64)));
  CHECK(cpu::conv_algo_supports(ConvAlgo::kIm2colNhwc, kFwd, params(16)));
  CHECK_FALSE(cpu::conv_algo_supports(ConvAlgo::kIm2colNhwc, kFwd, params(8)));
  Problem grouped{1, 32, 8, 8, 32, 3, 3};
  grouped.groups = 2;
  CHECK_FALSE(cpu::conv_algo_supports(ConvAlgo::kIm2colNhwc, kFwd, grouped.params(kFloat)));
  // The heuristic only names algorithms that support the problem.
  for (const Problem& p : small_problems())
    for (auto pass : {ConvPass::kForward, ConvPass::kBackwardData,
                      ConvPass::kBackwardWeight})
      CHECK(cpu::conv_algo_supports(cpu::conv_heuristic_algo(pass, p.params(kFloat)), pass,
                                    p.params(kFloat)));
}

TEST_CASE("conv kernels: model-sized float32 layers (packed GEMM path) match naive loops",
          "[conv]") {
  manual_seed(12);
  // The sample model's layers at batch 2: 3->32 on 32x32, 32->64 on 16x16, stride 2 pad 1.
  const std::vector<Problem> layers{{2, 3, 32, 32, 32, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, true},
                                    {2, 32, 16, 16, 64, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, true},
                                    {2, 64, 8, 8, 128, 1, 1, {1, 1}, {0, 0}, {1, 1}, 1, true}};
  for (const Problem& p : layers)
    for (ConvAlgo algo : kAlgos)
      check_algo_passes<float>(algo, p, 2e-4);
}

TEST_CASE("conv kernels: im2col splits a large batch into chunks and sums them", "[conv]") {
  manual_seed(13);
  // 16 * 9 * 128 * 128 column elements per image: more than fit one chunk.
  const Problem p{3, 16, 128, 128, 2, 3, 3, {1, 1}, {1, 1}, {1, 1}, 1, true};
  check_algo_passes<double>(ConvAlgo::kIm2colGemm, p, 1e-11);
  check_algo_passes<double>(ConvAlgo::kIm2colNhwc, p, 1e-11);
}

TEST_CASE("conv kernels: the implicit GEMM is a float32 forward, and says so otherwise",
          "[conv]") {
  const Problem p{2, 8, 6, 6, 4, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, true};
  CHECK(cpu::conv_algo_supports(ConvAlgo::kImplicitGemm, ConvPass::kForward,
                                p.params(kFloat)) == cpu::conv_implicit_gemm_available());
  CHECK_FALSE(cpu::conv_algo_supports(ConvAlgo::kImplicitGemm, ConvPass::kForward,
                                      p.params(kDouble)));
  CHECK_FALSE(cpu::conv_algo_supports(ConvAlgo::kImplicitGemm, ConvPass::kBackwardData,
                                      p.params(kFloat)));
  CHECK_FALSE(cpu::conv_algo_supports(ConvAlgo::kImplicitGemm, ConvPass::kBackwardWeight,
                                      p.params(kFloat)));
  // The heuristic takes it where its vectors are full and an image's planes fit in L2: the
  // sample model's second layer, but not 7x7 outputs (49 of 64 lanes) nor a 224x224 image.
  const bool implicit = cpu::conv_implicit_gemm_available();
  const auto layer = [](int64_t c, int64_t hw) {
    return Problem{64, c, hw, hw, 64, 3, 3, {2, 2}, {1, 1}}.params(kFloat);
  };
  CHECK(cpu::conv_implicit_gemm_preferred(layer(32, 16)) == implicit);
  CHECK((cpu::conv_heuristic_algo(ConvPass::kForward, layer(32, 16)) ==
         ConvAlgo::kImplicitGemm) == implicit);
  CHECK_FALSE(cpu::conv_implicit_gemm_preferred(layer(32, 14)));
  CHECK_FALSE(cpu::conv_implicit_gemm_preferred(layer(3, 224)));
  // Outputs 3 wide (too few for the implicit GEMM's vectors): the NCHW unfold with the AVX-512
  // GEMM, the channels-last one otherwise (conv_algo_heuristic.cpp has the figures).
  CHECK(cpu::conv_heuristic_algo(ConvPass::kForward, layer(64, 5)) ==
        (cpu::sgemm_avx512_available() ? ConvAlgo::kIm2colGemm : ConvAlgo::kIm2colNhwc));
  // Called anyway, the unsupported passes raise an Error naming the algorithm.
  const Tensor x = randn(p.x_shape(), kDouble), w = randn(p.w_shape(), kDouble);
  Tensor y = ember::empty(p.y_shape(), kDouble);
  REQUIRE_THROWS_WITH(cpu::conv_forward<double>(ConvAlgo::kImplicitGemm, p.params(kDouble),
                                                {x.data_ptr<double>(), w.data_ptr<double>(),
                                                 nullptr, y.data_ptr<double>()}),
                      Catch::Contains("implicit_gemm") && Catch::Contains("float64"));
  const Tensor xf = randn(p.x_shape()), wf = randn(p.w_shape()), gy = randn(p.y_shape());
  Tensor gx = ember::empty(p.x_shape()), gw = ember::empty(p.w_shape());
  REQUIRE_THROWS_WITH(cpu::conv_backward_data<float>(ConvAlgo::kImplicitGemm, p.params(kFloat),
                                                     {gy.data_ptr<float>(), wf.data_ptr<float>(),
                                                      nullptr, gx.data_ptr<float>()}),
                      Catch::Contains("backward-data"));
  REQUIRE_THROWS_WITH(cpu::conv_backward_weight<float>(
                          ConvAlgo::kImplicitGemm, p.params(kFloat),
                          {xf.data_ptr<float>(), gy.data_ptr<float>(), gw.data_ptr<float>()}),
                      Catch::Contains("backward-weight"));
}

TEST_CASE("conv kernels: the implicit GEMM's layouts match naive loops", "[conv]") {
  if (!cpu::conv_implicit_gemm_available()) return;  // neither AVX-512 nor AVX2: nothing to check
  manual_seed(14);
  // Each problem reaches one path of conv_implicit_gemm.cpp or conv_implicit_gemm_avx2.cpp.
  const std::vector<Problem> problems{
      // 8x8 outputs: each 8-pixel vector one row (AVX2: one load)
      {3, 32, 16, 16, 20, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, true},
      // 12x12 outputs: AVX2 panels with a one-row vector and a two-half-rows one
      {2, 5, 24, 24, 7, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, true},
      // output rows of 10 from phase rows of 42: vectors that cross a row gather
      {2, 3, 6, 40, 5, 3, 33, {1, 1}, {1, 1}, {1, 1}, 1, true},
      // 4x4 outputs: two images per 32-column panel (AVX2: two half rows per vector)
      {5, 20, 8, 8, 30, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, true},
      // 7x7 outputs (span 64: 15 zero lanes per image), input rows of 14
      {3, 9, 14, 14, 17, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, false},
      // 3x3 outputs (span 16), so a panel's vectors hold 9 pixels each
      {7, 5, 6, 6, 3, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, true},
      // stride 1, output rows of 20: vectors cross rows beyond a 32-float window (gathers)
      {2, 6, 20, 20, 16, 3, 3, {1, 1}, {1, 1}, {1, 1}, 1, true},
      // input rows of 40 (no permute split), stride 3 and dilation 2, asymmetric padding
      {2, 4, 11, 40, 6, 3, 3, {3, 3}, {2, 1}, {2, 2}, 1, true},
      // 48 * 9 = 432 reduction rows: two k blocks with AVX-512, the bias added once
      {3, 48, 8, 8, 20, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, true},
      // 72 * 9 = 648 reduction rows: two k blocks with AVX2
      {2, 72, 6, 6, 7, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, true},
      // chunks of 5 images, smaller than a thread's run: planes rebuilt per chunk, with
      // images cut between chunks (6x6 outputs: span 48, not a multiple of 32 columns)
      {9, 64, 12, 12, 24, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, true},
      // groups, 15 output channels per group (a 14-row tile and a 1-row tile)
      {2, 12, 9, 9, 30, 3, 3, {2, 2}, {1, 1}, {1, 1}, 2, true},
      // one image, many columns: threads split it mid-image
      {1, 8, 64, 64, 16, 3, 3, {1, 1}, {1, 1}, {1, 1}, 1, false},
      // 1x1 with stride 2 and padding, empty-ish corners
      {2, 16, 7, 7, 5, 1, 1, {2, 2}, {1, 1}, {1, 1}, 1, true},
  };
  for (const Problem& p : problems)
    CHECK(check_algo_passes<float>(ConvAlgo::kImplicitGemm, p, 2e-4) == 1);
}

TEST_CASE("conv kernels: the stride-2 Winograd's three passes match naive loops at their edges",
          "[conv]") {
  Problem applies{2, 8, 9, 9, 4, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, true};
  applies.inference = true;
  const bool available = cpu::conv_winograd_available();
  const auto supports = [](const Problem& p, ConvPass pass, ScalarType dtype) {
    return cpu::conv_algo_supports(ConvAlgo::kWinograd, pass, p.params(dtype));
  };
  CHECK(supports(applies, ConvPass::kForward, kFloat) == available);
  CHECK_FALSE(supports(applies, ConvPass::kForward, kDouble));
  CHECK(supports(applies, ConvPass::kBackwardData, kFloat) == available);
  CHECK_FALSE(supports(applies, ConvPass::kBackwardData, kDouble));
  CHECK(supports(applies, ConvPass::kBackwardWeight, kFloat) == available);
  CHECK_FALSE(supports(applies, ConvPass::kBackwardWeight, kDouble));
  // Training forwards too (benchmark mode may take it there), but the heuristic
  // takes it for inference forwards only.
  Problem training = applies;
  training.inference = false;
  CHECK(supports(training, ConvPass::kForward, kFloat) == available);
  Problem big = training;  // what conv_winograd_preferred asks for: 16+ channels
  big.c = 32;
  CHECK(cpu::conv_heuristic_algo(ConvPass::kForward, big.params(kFloat)) != ConvAlgo::kWinograd);
  big.inference = true;
  CHECK((cpu::conv_heuristic_algo(ConvPass::kForward, big.params(kFloat)) ==
         ConvAlgo::kWinograd) == available);
  Problem stride1 = applies, dilated = applies, grouped = applies, five = applies;
  stride1.stride = {1, 1}, dilated.dil = {2, 2}, grouped.groups = 2, five.r = five.s = 5;
  for (const Problem& p : {stride1, dilated, grouped, five})
    CHECK_FALSE(supports(p, ConvPass::kForward, kFloat));
  // Called on a problem it does not take, each pass refuses before touching a buffer.
  const ConvParams refused = stride1.params(kFloat);
  CHECK_THROWS_WITH(cpu::conv_forward<float>(ConvAlgo::kWinograd, refused, {}),
                    Catch::Contains("Winograd"));
  CHECK_THROWS_WITH(cpu::conv_backward_data<float>(ConvAlgo::kWinograd, refused, {}),
                    Catch::Contains("Winograd"));
  CHECK_THROWS_WITH(cpu::conv_backward_weight<float>(ConvAlgo::kWinograd, refused, {}),
                    Catch::Contains("Winograd"));
  if (!available) return;  // nothing to run
  manual_seed(15);
  std::vector<Problem> problems{
      // no padding, 6x5 outputs (edge tiles cut), 37 images (a partial group of 16 or 8)
      {37, 20, 13, 11, 30, 3, 3, {2, 2}, {0, 0}, {1, 1}, 1, true},
      // padding 2, 29 output channels (AVX-512: a block of 28 and one row; AVX2: blocks of 12,
      // the last one a tile of 5 rows)
      {18, 5, 9, 9, 29, 3, 3, {2, 2}, {2, 2}, {1, 1}, 1, false},
      // one tile per image (two image vectors per group), 33 channels (a partial weight
      // vector: 33 = 2 x 14 + 5 with AVX-512, 5 x 6 + 3 with AVX2)
      {17, 33, 8, 8, 15, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, true},
      // the sample model's third layer, a few images
      {3, 64, 8, 8, 128, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, true},
      // a 2x3 input: one tile, phases of one row or none inside gx (backward-data)
      {5, 16, 2, 3, 9, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, true},
      // padding 1 across, 0 down, 7 columns: phases with their own first rows and counts
      {7, 12, 10, 7, 13, 3, 3, {2, 2}, {0, 1}, {1, 1}, 1, false},
  };
  // Winograd's transforms scale values by up to 8 before the products sum: a looser bound
  // than the direct algorithms' 1e-4 (measured worst on the model's layers: 1.3e-4),
  // still far below what a wrong tap or tile would give.
  for (Problem& p : problems) {
    for (const bool inference : {true, false}) {  // cached weights, or transformed per call
      p.inference = inference;
      CHECK(check_algo_passes<float>(ConvAlgo::kWinograd, p, 5e-4) == 3);  // all three
    }
  }
}

TEST_CASE("conv kernels: the Winograd backward-weight gives the same bits on 1, 2 and 3 threads",
          "[conv]") {
  // Note [Stride-2 Winograd backward-weight]: each weight point's sums run on one thread, group
  // after group, whatever the thread count. 37 images (groups of 16 or 8, the last one
  // partial), 33 input channels (two panels of V), 29 output channels (a short task of Y).
  if (!cpu::conv_winograd_available()) return;
  manual_seed(19);
  const Problem p{37, 33, 11, 9, 29, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, false};
  const ConvParams params = p.params(kFloat);
  const Tensor x = randn(p.x_shape()), gy = randn(p.y_shape());
  const int threads_before = get_num_threads();
  std::vector<std::vector<double>> runs;
  for (const int threads : {1, 2, 3}) {
    set_num_threads(threads);
    Tensor gw = ember::full(p.w_shape(), 7.0);
    cpu::conv_backward_weight<float>(ConvAlgo::kWinograd, params,
                                     {x.data_ptr<float>(), gy.data_ptr<float>(),
                                      gw.data_ptr<float>()});
    if (threads == 1) require_values(gw, naive_backward_weight(p, values(x), values(gy)), 5e-4);
    runs.push_back(values(gw));
  }
  set_num_threads(threads_before);
  CHECK(runs[1] == runs[0]);
  CHECK(runs[2] == runs[0]);
}

TEST_CASE("conv kernels: Winograd's cached weights follow every change of the weights",
          "[conv]") {
  if (!cpu::conv_winograd_available()) return;
  manual_seed(16);
  Problem p{4, 16, 8, 8, 20, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, true};
  p.inference = true;
  const ConvParams params = p.params(kFloat);
  const Tensor x = randn(p.x_shape()), b = randn({p.k});
  Tensor w = randn(p.w_shape());
  const auto run = [&] {
    Tensor y = full(p.y_shape(), 7.0);
    cpu::conv_forward<float>(ConvAlgo::kWinograd, params,
                             {x.data_ptr<float>(), w.data_ptr<float>(), b.data_ptr<float>(),
                              y.data_ptr<float>()});
    return y;
  };
  const auto expected = [&] { return naive_forward(p, values(x), values(w), values(b)); };
  const Tensor first = run();
  require_values(first, expected(), 5e-4);
  REQUIRE(values(run()) == values(first));  // the same weights: the same result
  // In place, at the same address: one element, then all of them.
  w.data_ptr<float>()[7] += 1.0f;
  require_values(run(), expected(), 5e-4);
  w.mul_(-0.5);
  require_values(run(), expected(), 5e-4);
  // Back to earlier weights, and other weights of the same shape at another address.
  w.div_(-0.5);
  w.data_ptr<float>()[7] -= 1.0f;
  REQUIRE(values(run()) == values(first));
  w = randn(p.w_shape());
  require_values(run(), expected(), 5e-4);
}

TEST_CASE("conv2d under NoGradGuard takes Winograd where the heuristic prefers it", "[conv]") {
  manual_seed(17);
  // The sample model's second layer: Winograd in inference (AVX-512 and AVX2 builds), the
  // implicit GEMM or another algorithm when the forward records a graph.
  Problem p{6, 32, 16, 16, 64, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, true};
  p.inference = true;
  CHECK((cpu::conv_heuristic_algo(ConvPass::kForward, p.params(kFloat)) ==
         ConvAlgo::kWinograd) == cpu::conv_winograd_available());
  p.inference = false;
  CHECK(cpu::conv_heuristic_algo(ConvPass::kForward, p.params(kFloat)) !=
        ConvAlgo::kWinograd);
  const Tensor x = randn(p.x_shape()), w = randn(p.w_shape()).requires_grad_(), b = randn({p.k});
  const std::vector<double> want = naive_forward(p, values(x), values(w), values(b));
  {
    NoGradGuard no_grad;
    require_values(conv2d(x, w, b, 2, 1), want, 5e-4);
  }
  const Tensor y = conv2d(x, w, b, 2, 1);  // records the graph: not Winograd
  require_values(y, want, 1e-4);
  y.sum().backward();
  CHECK(w.grad().defined());
}

// ---- conv2d ----

TEST_CASE("conv2d: values match a naive float64 loop, by the heuristic and in benchmark mode",
          "[conv]") {
  manual_seed(21);
  for (bool bench : {false, true}) {
    BenchmarkModeGuard mode(bench);
    for (const Problem& p : small_problems()) {
      INFO(describe(p) << (bench ? " (benchmark mode)" : ""));
      const Tensor x = rand_double(p.x_shape()), w = rand_double(p.w_shape());
      const Tensor b = p.bias ? rand_double({p.k}) : Tensor();
      const Tensor y = conv2d(x, w, b, {p.stride[0], p.stride[1]}, {p.pad[0], p.pad[1]},
                              {p.dil[0], p.dil[1]}, p.groups);
      REQUIRE(y.sizes() == IntArrayRef(p.y_shape()));
      const std::vector<double> bias_values = p.bias ? values(b) : std::vector<double>{};
      require_values(y, naive_forward(p, values(x), values(w), bias_values));
      // float32 goes through the same path
      const Tensor yf = conv2d(x.to(kFloat), w.to(kFloat), p.bias ? b.to(kFloat) : Tensor(),
                               {p.stride[0], p.stride[1]}, {p.pad[0], p.pad[1]},
                               {p.dil[0], p.dil[1]}, p.groups);
      REQUIRE(yf.scalar_type() == kFloat);
      require_values(yf, values(y), 1e-4);
    }
  }
}

TEST_CASE("conv2d: a known 3x3 example with stride, padding and bias", "[conv]") {
  // x = 1..16 on a 4x4 plane, w = all ones, padding 1, stride 2: each output is
  // the sum of the 3x3 window around (2i, 2j), plus the bias 0.5.
  const Tensor x = arange(1, 17, kDouble).view({1, 1, 4, 4});
  const Tensor w = ones({1, 1, 3, 3}, kDouble);
  const Tensor y = conv2d(x, w, tensor({0.5}, kDouble), 2, 1);
  REQUIRE(y.sizes() == IntArrayRef{1, 1, 2, 2});
  // windows: rows 0-1 x cols 0-1: 1+2+5+6; rows 0-1 x cols 1-3: 2+3+4+6+7+8; ...
  require_values(y, {14.5, 30.5, 57.5, 99.5});
}

TEST_CASE("conv2d: one value for stride/padding/dilation means both dims", "[conv]") {
  manual_seed(22);
  const Tensor x = rand_double({2, 2, 7, 7}), w = rand_double({3, 2, 3, 3});
  require_values(conv2d(x, w, {}, 2, 1, 2), values(conv2d(x, w, {}, {2, 2}, {1, 1}, {2, 2})));
}

TEST_CASE("conv2d: an unbatched (C, H, W) input gives a (K, OH, OW) output", "[conv]") {
  manual_seed(23);
  const Tensor x = rand_double({3, 6, 5}), w = rand_double({4, 3, 3, 3}), b = rand_double({4});
  const Tensor y = conv2d(x, w, b, 1, 1);
  REQUIRE(y.sizes() == IntArrayRef{4, 6, 5});
  require_values(y, values(conv2d(x.unsqueeze(0), w, b, 1, 1)));
}

TEST_CASE("conv2d: non-contiguous input, weight and bias give the contiguous result", "[conv]") {
  manual_seed(24);
  const Problem p{2, 4, 6, 5, 6, 3, 3, {2, 1}, {1, 1}, {1, 1}, 2, true};
  const Tensor x_t = rand_double({2, 4, 5, 6}).transpose(2, 3);             // transposed
  const Tensor w_s = rand_double({6, 4, 3, 3}).slice(1, 0, 4, 2);           // sliced
  const Tensor b_e = rand_double({1}).expand({6});                          // expanded
  REQUIRE_FALSE(x_t.is_contiguous());
  REQUIRE_FALSE(w_s.is_contiguous());
  const Tensor y = conv2d(x_t, w_s, b_e, {2, 1}, 1, 1, 2);
  require_values(y, naive_forward(p, values(x_t), values(w_s), values(b_e)));
}

TEST_CASE("conv2d: empty batch and zero input channels", "[conv]") {
  const Tensor y = conv2d(zeros({0, 3, 5, 5}), ones({4, 3, 3, 3}), ones({4}));
  REQUIRE(y.sizes() == IntArrayRef{0, 4, 3, 3});
  // No input channels: every output is the bias.
  const Tensor y0 = conv2d(zeros({2, 0, 5, 5}), ones({4, 0, 3, 3}), tensor({1.0, 2.0, 3.0, 4.0}));
  REQUIRE(y0.sizes() == IntArrayRef{2, 4, 3, 3});
  REQUIRE(values(y0)[9] == 2.0);
  // Backward through an empty batch: zero weight gradient, empty input gradient.
  const Tensor x = zeros({0, 3, 5, 5}, kDouble).requires_grad_();
  const Tensor w = ones({4, 3, 3, 3}, kDouble).requires_grad_();
  conv2d(x, w).sum().backward();
  REQUIRE(x.grad().sizes() == IntArrayRef{0, 3, 5, 5});
  require_values(w.grad(), std::vector<double>(4 * 3 * 3 * 3, 0.0));
}

TEST_CASE("conv2d: gradcheck and gradgradcheck with stride, padding, dilation, groups", "[conv]") {
  manual_seed(25);
  struct Case {
    std::vector<int64_t> x, w;
    std::vector<int64_t> stride, pad, dil;
    int64_t groups;
  };
  const std::vector<Case> cases{
      {{2, 2, 5, 4}, {3, 2, 3, 2}, {1}, {1}, {1}, 1},
      {{1, 4, 6, 5}, {4, 2, 2, 3}, {2, 1}, {1, 2}, {2, 1}, 2},
      {{2, 3, 4, 4}, {2, 3, 1, 1}, {1}, {0}, {1}, 1},  // 1x1
  };
  for (const Case& c : cases) {
    const Tensor x = rand_double(c.x).requires_grad_();
    const Tensor w = rand_double(c.w).requires_grad_();
    const Tensor b = rand_double({c.w[0]}).requires_grad_();
    auto fn = [&](const tensor_list& in) {
      return conv2d(in[0], in[1], in[2], c.stride, c.pad, c.dil, c.groups);
    };
    REQUIRE_GRADCHECK(gradcheck(fn, {x, w, b}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {x, w, b}));
  }
}

TEST_CASE("conv2d: gradcheck with a transposed input and a sliced weight", "[conv]") {
  manual_seed(26);
  const Tensor x = rand_double({2, 3, 5, 4}).transpose(2, 3).requires_grad_();
  const Tensor w = rand_double({2, 6, 3, 3}).slice(1, 1, 6, 2).requires_grad_();
  auto fn = [](const tensor_list& in) { return conv2d(in[0], in[1], {}, 2, 1); };
  REQUIRE_GRADCHECK(gradcheck(fn, {x, w}));
  REQUIRE_GRADCHECK(gradgradcheck(fn, {x, w}));
}

TEST_CASE("conv2d: d/dw of the input-gradient norm (a WGAN-GP penalty) matches gradcheck",
          "[conv]") {
  manual_seed(27);
  const Tensor x = rand_double({2, 2, 5, 5});
  const Tensor w = rand_double({3, 2, 3, 3}).requires_grad_();
  // penalty(w) = || d sum(conv(x, w)^2) / dx ||^2: differentiating it needs the
  // derivative of the backward-data pass with respect to w.
  auto penalty = [&](const tensor_list& in) {
    const Tensor xi = x.clone().requires_grad_();
    const Tensor y = conv2d(xi, in[0], {}, 1, 1);
    const Tensor gx = autograd::grad({(y * y).sum()}, {xi}, {}, true, true)[0];
    return (gx * gx).sum();
  };
  REQUIRE_GRADCHECK(gradcheck(penalty, {w}));
}

// ---- conv_transpose2d ----

TEST_CASE("conv_transpose2d: values match a naive float64 loop", "[conv]") {
  manual_seed(31);
  struct Case {
    Problem conv;  // the conv whose backward-data conv_transpose2d computes
    std::array<int64_t, 2> out_pad;
  };
  // Problem: x is the transposed conv's output (n, c_out, h', w'), k its input channels.
  const std::vector<Case> cases{
      {{2, 4, 7, 7, 3, 3, 3, {2, 2}, {1, 1}, {1, 1}, 1, true}, {0, 0}},
      {{1, 6, 8, 6, 4, 3, 2, {2, 1}, {1, 0}, {1, 2}, 2, false}, {1, 0}},
      {{2, 2, 3, 4, 5, 1, 1, {1, 1}, {0, 0}, {1, 1}, 1, true}, {0, 0}},
      {{1, 3, 10, 10, 2, 2, 3, {3, 2}, {2, 1}, {2, 1}, 1, true}, {2, 1}},
  };
  for (const Case& c : cases) {
    const Problem& p = c.conv;
    INFO(describe(p) << " output_padding " << c.out_pad[0] << "," << c.out_pad[1]);
    const int64_t h_in = p.oh(), w_in = p.ow();
    // The transposed conv's output size must come back to the conv's input size.
    REQUIRE((h_in - 1) * p.stride[0] - 2 * p.pad[0] + p.dil[0] * (p.r - 1) + c.out_pad[0] + 1 ==
            p.h);
    REQUIRE((w_in - 1) * p.stride[1] - 2 * p.pad[1] + p.dil[1] * (p.s - 1) + c.out_pad[1] + 1 ==
            p.w);
    const Tensor x = rand_double({p.n, p.k, h_in, w_in}), w = rand_double(p.w_shape());
    const Tensor b = p.bias ? rand_double({p.c}) : Tensor();
    const Tensor y = conv_transpose2d(x, w, b, {p.stride[0], p.stride[1]}, {p.pad[0], p.pad[1]},
                                      {c.out_pad[0], c.out_pad[1]}, p.groups,
                                      {p.dil[0], p.dil[1]});
    REQUIRE(y.sizes() == IntArrayRef(p.x_shape()));
    require_values(y, naive_backward_data(p, values(x), values(w),
                                          p.bias ? values(b) : std::vector<double>{}));
  }
}

TEST_CASE("conv_transpose2d: a known 2x2 stride-2 example (each input pixel stamps the kernel)",
          "[conv]") {
  const Tensor x = tensor({{{{1.0, 2.0}, {3.0, 4.0}}}}, kDouble);  // (1, 1, 2, 2)
  const Tensor w = tensor({{{{1.0, 10.0}, {100.0, 1000.0}}}}, kDouble);
  const Tensor y = conv_transpose2d(x, w, {}, 2);
  REQUIRE(y.sizes() == IntArrayRef{1, 1, 4, 4});
  require_values(y, {1, 10, 2, 20, 100, 1000, 200, 2000, 3, 30, 4, 40, 300, 3000, 400, 4000});
}

TEST_CASE("conv_transpose2d: output_padding at or past the stride, below the dilation",
          "[conv]") {
  manual_seed(34);
  // Height: stride 1, dilation 2, output_padding 1 (past the stride); width:
  // stride 2, output_padding 1 (below it). Against the definition, a scatter:
  // y[n][k][i*s - p + r*d][...] += x[n][c][i][...] * w[c][k][r][...].
  const int64_t n = 2, c = 2, h = 3, wd = 4, k = 3, r = 2, s = 3;
  const std::array<int64_t, 2> stride{1, 2}, pad{1, 0}, out_pad{1, 1}, dil{2, 2};
  const Tensor x = rand_double({n, c, h, wd}), w = rand_double({c, k, r, s}),
               b = rand_double({k});
  const int64_t oh = (h - 1) * stride[0] - 2 * pad[0] + dil[0] * (r - 1) + out_pad[0] + 1;
  const int64_t ow = (wd - 1) * stride[1] - 2 * pad[1] + dil[1] * (s - 1) + out_pad[1] + 1;
  const std::vector<double> xv = values(x), wv = values(w), bv = values(b);
  std::vector<double> want(n * k * oh * ow);
  for (int64_t i = 0; i < n * k * oh * ow; ++i) want[i] = bv[i / (oh * ow) % k];
  for (int64_t ni = 0; ni < n; ++ni)
    for (int64_t ci = 0; ci < c; ++ci)
      for (int64_t ki = 0; ki < k; ++ki)
        for (int64_t i = 0; i < h; ++i)
          for (int64_t j = 0; j < wd; ++j)
            for (int64_t ri = 0; ri < r; ++ri)
              for (int64_t si = 0; si < s; ++si) {
                const int64_t y0 = i * stride[0] - pad[0] + ri * dil[0];
                const int64_t y1 = j * stride[1] - pad[1] + si * dil[1];
                if (y0 < 0 || y0 >= oh || y1 < 0 || y1 >= ow) continue;
                want[((ni * k + ki) * oh + y0) * ow + y1] +=
                    xv[((ni * c + ci) * h + i) * wd + j] * wv[((ci * k + ki) * r + ri) * s + si];
              }
  const auto fn = [&](const tensor_list& in) {
    return conv_transpose2d(in[0], in[1], in[2], {stride[0], stride[1]}, {pad[0], pad[1]},
                            {out_pad[0], out_pad[1]}, 1, {dil[0], dil[1]});
  };
  const Tensor y = fn({x, w, b});
  REQUIRE(y.sizes() == IntArrayRef{n, k, oh, ow});
  require_values(y, want, 1e-12);
  const tensor_list leaves{x.detach().requires_grad_(), w.detach().requires_grad_(),
                           b.detach().requires_grad_()};
  REQUIRE_GRADCHECK(gradcheck(fn, leaves));
  REQUIRE_GRADCHECK(gradgradcheck(fn, leaves));
}

TEST_CASE("conv_transpose2d: unbatched input and an empty batch", "[conv]") {
  manual_seed(32);
  const Tensor x = rand_double({3, 4, 4}), w = rand_double({3, 2, 3, 3});
  const Tensor y = conv_transpose2d(x, w, {}, 2, 1, 1);
  REQUIRE(y.sizes() == IntArrayRef{2, 8, 8});
  require_values(y, values(conv_transpose2d(x.unsqueeze(0), w, {}, 2, 1, 1)));
  REQUIRE(conv_transpose2d(zeros({0, 3, 4, 4}, kDouble), w).sizes() == IntArrayRef{0, 2, 6, 6});
}

TEST_CASE("conv_transpose2d: gradcheck and gradgradcheck with output_padding, dilation, groups",
          "[conv]") {
  manual_seed(33);
  struct Case {
    std::vector<int64_t> x, w;
    std::vector<int64_t> stride, pad, out_pad, dil;
    int64_t groups;
  };
  const std::vector<Case> cases{
      {{2, 3, 3, 4}, {3, 2, 3, 3}, {2}, {1}, {1}, {1}, 1},
      {{1, 4, 4, 3}, {4, 1, 2, 3}, {2, 1}, {0, 1}, {1, 0}, {1, 2}, 2},
  };
  for (const Case& c : cases) {
    const Tensor x = rand_double(c.x).requires_grad_();
    const Tensor w = rand_double(c.w).requires_grad_();
    const Tensor b = rand_double({c.w[1] * c.groups}).requires_grad_();
    auto fn = [&](const tensor_list& in) {
      return conv_transpose2d(in[0], in[1], in[2], c.stride, c.pad, c.out_pad, c.groups, c.dil);
    };
    REQUIRE_GRADCHECK(gradcheck(fn, {x, w, b}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {x, w, b}));
  }
  // A non-contiguous (transposed) input.
  const Tensor xt = rand_double({1, 2, 4, 3}).transpose(2, 3).requires_grad_();
  const Tensor w = rand_double({2, 3, 2, 2}).requires_grad_();
  auto fn = [](const tensor_list& in) { return conv_transpose2d(in[0], in[1], {}, 2); };
  REQUIRE_GRADCHECK(gradcheck(fn, {xt, w}));
  REQUIRE_GRADCHECK(gradgradcheck(fn, {xt, w}));
}

// ---- errors ----

TEST_CASE("conv2d: errors name the op and the shapes", "[conv]") {
  const Tensor x = ones({2, 4, 8, 8}), w = ones({6, 2, 3, 3});
  REQUIRE_THROWS_WITH(conv2d(ones({4, 8, 8, 1, 1}), w),
                      Catch::Contains("conv2d: expected a 3-d (C, H, W) or 4-d (N, C, H, W) input, "
                                      "got input of shape [4, 8, 8, 1, 1]"));
  REQUIRE_THROWS_WITH(conv2d(x, ones({6, 2, 3})),
                      Catch::Contains("conv2d: expected a 4-d weight, got weight of shape "
                                      "[6, 2, 3]"));
  REQUIRE_THROWS_WITH(conv2d(x, w),
                      Catch::Contains("conv2d: input of shape [2, 4, 8, 8] has 4 channels, but "
                                      "weight of shape [6, 2, 3, 3] with groups 1 expects 2"));
  REQUIRE_THROWS_WITH(conv2d(x, ones({6, 1, 3, 3}), {}, 1, 0, 1, 4),
                      Catch::Contains("conv2d: weight of shape [6, 1, 3, 3]: out channels 6 are "
                                      "not divisible by groups 4"));
  REQUIRE_THROWS_WITH(conv2d(x, w, {}, 1, 0, 1, 0),
                      Catch::Contains("conv2d: groups must be positive, got 0"));
  REQUIRE_THROWS_WITH(conv2d(x, w, {}, {0, 1}, 0, 1, 2),
                      Catch::Contains("conv2d: stride must be positive, got [0, 1]"));
  REQUIRE_THROWS_WITH(conv2d(x, w, {}, 1, -1, 1, 2),
                      Catch::Contains("conv2d: padding must be non-negative, got [-1]"));
  REQUIRE_THROWS_WITH(conv2d(x, w, {}, 1, 0, 0, 2),
                      Catch::Contains("conv2d: dilation must be positive, got [0]"));
  REQUIRE_THROWS_WITH(conv2d(x, w, {}, {1, 1, 1}, 0, 1, 2),
                      Catch::Contains("conv2d: stride must have one value or two (h, w), got "
                                      "[1, 1, 1]"));
  REQUIRE_THROWS_WITH(conv2d(ones({1, 4, 2, 2}), w, {}, 1, 0, 1, 2),
                      Catch::Contains("conv2d: input of shape [1, 4, 2, 2] padded by [0] is [2, "
                                      "2], smaller than the kernel of weight [6, 2, 3, 3] with "
                                      "dilation [1], which spans [3, 3]"));
  // With a stride, (2 - 3) / 2 + 1 would round to one output: still refused.
  REQUIRE_THROWS_WITH(conv2d(ones({1, 4, 2, 2}), w, {}, 2, 0, 1, 2),
                      Catch::Contains("smaller than the kernel"));
  REQUIRE_THROWS_WITH(conv2d(ones({1, 4, 5, 5}), w, {}, 3, 0, 3, 2),  // dilated span 7
                      Catch::Contains("which spans [7, 7]"));
  // A padded input exactly the kernel's span gives one output.
  CHECK(conv2d(ones({1, 4, 1, 1}), w, {}, 2, 1, 1, 2).sizes() == IntArrayRef{1, 6, 1, 1});
  REQUIRE_THROWS_WITH(conv2d(x, w, ones({4}), 1, 0, 1, 2),
                      Catch::Contains("conv2d: expected a bias of shape [6] for weight of shape "
                                      "[6, 2, 3, 3], got bias of shape [4]"));
  REQUIRE_THROWS_WITH(conv2d(x, ones({6, 2, 3, 3}, kDouble), {}, 1, 0, 1, 2),
                      Catch::Contains("conv2d: input, weight and bias must have the same dtype, "
                                      "got input float32, weight float64"));
  REQUIRE_THROWS_WITH(conv2d(x, w, ones({6}, kDouble), 1, 0, 1, 2),
                      Catch::Contains("input float32, weight float32, bias float64"));
  REQUIRE_THROWS_WITH(conv2d(ones({2, 4, 8, 8}, kLong), ones({6, 2, 3, 3}, kLong), {}, 1, 0, 1, 2),
                      Catch::Contains("conv2d: expected a float32 or float64 input, got int64"));
}

TEST_CASE("conv_transpose2d: errors name the op and the shapes", "[conv]") {
  const Tensor x = ones({2, 4, 5, 5}), w = ones({4, 3, 3, 3});
  REQUIRE_THROWS_WITH(conv_transpose2d(ones({2, 3, 5, 5}), w),
                      Catch::Contains("conv_transpose2d: input of shape [2, 3, 5, 5] has 3 "
                                      "channels, but weight of shape [4, 3, 3, 3] expects 4"));
  REQUIRE_THROWS_WITH(conv_transpose2d(x, w, {}, 1, 0, 0, 3),
                      Catch::Contains("conv_transpose2d: weight of shape [4, 3, 3, 3]: in channels "
                                      "4 are not divisible by groups 3"));
  REQUIRE_THROWS_WITH(conv_transpose2d(x, w, {}, 2, 0, 2),
                      Catch::Contains("conv_transpose2d: output_padding must be non-negative and "
                                      "smaller than the stride [2] or the dilation [1], got [2]"));
  REQUIRE_THROWS_WITH(conv_transpose2d(x, w, {}, -1),
                      Catch::Contains("conv_transpose2d: stride must be positive, got [-1]"));
  REQUIRE_THROWS_WITH(conv_transpose2d(x, w, ones({4})),
                      Catch::Contains("conv_transpose2d: expected a bias of shape [3] for weight "
                                      "of shape [4, 3, 3, 3], got bias of shape [4]"));
  REQUIRE_THROWS_WITH(conv_transpose2d(ones({1, 4, 1, 1}), w, {}, 1, 2),
                      Catch::Contains("conv_transpose2d: input of shape [1, 4, 1, 1] with weight "
                                      "of shape [4, 3, 3, 3], padding [2], dilation [1] and "
                                      "stride [1] gives an output of size [-1, -1]: the output is "
                                      "too small"));
  REQUIRE_THROWS_WITH(conv_transpose2d(x, ones({4, 3, 3, 3}, kDouble)),
                      Catch::Contains("conv_transpose2d: input, weight and bias must have the same "
                                      "dtype"));
}
