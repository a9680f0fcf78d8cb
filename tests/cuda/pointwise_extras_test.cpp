// The pointwise extras on CUDA (erf ... signbit in elementwise_unary.cu, hypot
// ... heaviside in elementwise_binary.cu, lerp/addcmul/addcdiv in
// elementwise_ternary.cu, cummax/cummin/logcumsumexp in scan_kernels.cu)
// against the CPU: random data with edge values (0, -0, +-1, +-inf, NaN,
// poles) spliced in, dense, transposed and broadcast, float32 and float64;
// and a few gradients. Tolerance relative to max(1, |cpu value|): 1e-5 for
// float32 (CUDA's libm and the host's may differ by ulps), 1e-12 for float64.
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <functional>
#include <limits>
#include <vector>

#include "cuda_test_helpers.h"

using namespace ember;
using namespace cuda_test;

namespace {

using Unary = std::function<Tensor(const Tensor&)>;
using Binary = std::function<Tensor(const Tensor&, const Tensor&)>;

constexpr double kInf = std::numeric_limits<double>::infinity();

// n random values (|randn| * scale, random sign) of dtype t whose first
// elements are the edge values.
Tensor with_edges(int64_t n, ScalarType t, double scale = 3) {
  const std::vector<double> edges = {0.0, -0.0, 1.0, -1.0, 0.5, -2.0, kInf, -kInf,
                                     std::numeric_limits<double>::quiet_NaN(), 1e-30, 30.0};
  Tensor x = randn({n}, kDouble) * scale;
  for (int64_t i = 0; i < std::min<int64_t>(n, edges.size()); ++i) x.index_put_({i}, edges[i]);
  return x.to(t);
}

// The op on CUDA against the CPU for dense, transposed and 0-size inputs.
void check_unary(const char* name, const Unary& op, double scale = 3) {
  for (ScalarType t : {kFloat, kDouble})
    for (int64_t n : {0, 1, 37, 4100}) {
      INFO(name << ", " << t << ", n " << n);
      const Tensor x = with_edges(n, t, scale);
      const Tensor want = op(x);
      check_same(op(x.to(kGpu)), want, tolerance(want.scalar_type(), 1e-5));
      if (n == 4100) {  // transposed (41, 100) -> (100, 41)
        const Tensor xt = x.view({41, 100}).t();
        check_same(op(x.to(kGpu).view({41, 100}).t()), op(xt), tolerance(t, 1e-5));
      }
    }
}

void check_binary(const char* name, const Binary& op) {
  for (ScalarType t : {kFloat, kDouble}) {
    INFO(name << ", " << t);
    const Tensor a = with_edges(4100, t), b = with_edges(4100, t).flip({0});
    check_same(op(a.to(kGpu), b.to(kGpu)), op(a, b), tolerance(t, 1e-5));
    const Tensor r = with_edges(31, t).view({31, 1}), c = with_edges(33, t).view({1, 33});
    check_same(op(r.to(kGpu), c.to(kGpu)), op(r, c), tolerance(t, 1e-5));  // broadcast
  }
}

}  // namespace

TEST_CASE("cuda erf ... signbit match the CPU, edge values included", "[cuda][cuda_pointwise]") {
  manual_seed(61);
  check_unary("erf", [](const Tensor& x) { return erf(x); });
  check_unary("erfc", [](const Tensor& x) { return erfc(x); });
  check_unary("erfinv", [](const Tensor& x) { return erfinv(x); }, 0.5);
  check_unary("lgamma", [](const Tensor& x) { return lgamma(x); });
  check_unary("digamma", [](const Tensor& x) { return digamma(x); });
  check_unary("trigamma", [](const Tensor& x) { return polygamma(1, x); });
  check_unary("exp2", [](const Tensor& x) { return exp2(x); });
  check_unary("sinc", [](const Tensor& x) { return sinc(x); });
  check_unary("logit", [](const Tensor& x) { return logit(x); }, 0.5);
  check_unary("logit eps", [](const Tensor& x) { return logit(x, 0.1); }, 0.5);
  check_unary("nan_to_num", [](const Tensor& x) { return nan_to_num(x, 1.0, 2.0); });
  check_unary("isinf", [](const Tensor& x) { return isinf(x); });
  check_unary("isposinf", [](const Tensor& x) { return isposinf(x); });
  check_unary("isneginf", [](const Tensor& x) { return isneginf(x); });
  check_unary("signbit", [](const Tensor& x) { return signbit(x); });
  check_same(erf(tensor({1, 2}, kLong).to(kGpu)), erf(tensor({1, 2}, kLong)), 1e-6);
}

TEST_CASE("cuda hypot ... isclose match the CPU, edge values and broadcasting included",
          "[cuda][cuda_pointwise]") {
  manual_seed(62);
  check_binary("hypot", [](const Tensor& a, const Tensor& b) { return hypot(a, b); });
  check_binary("xlogy", [](const Tensor& a, const Tensor& b) { return xlogy(a, b); });
  check_binary("copysign", [](const Tensor& a, const Tensor& b) { return copysign(a, b); });
  check_binary("logaddexp", [](const Tensor& a, const Tensor& b) { return logaddexp(a, b); });
  check_binary("logaddexp2", [](const Tensor& a, const Tensor& b) { return logaddexp2(a, b); });
  check_binary("heaviside", [](const Tensor& a, const Tensor& b) { return heaviside(a, b); });
  check_binary("isclose", [](const Tensor& a, const Tensor& b) {
    return isclose(a, a + b * 1e-6, 1e-5, 1e-8, true);
  });
  check_binary("xlogy scalar", [](const Tensor& a, const Tensor&) { return xlogy(a, 2.5); });
}

TEST_CASE("cuda lerp, addcmul, addcdiv and their in-place forms match the CPU",
          "[cuda][cuda_pointwise]") {
  manual_seed(63);
  for (ScalarType t : {kFloat, kDouble}) {
    INFO(t);
    const Tensor s = with_edges(4100, t).view({41, 100}), a = random_nonzero({100}, t),
                 b = random_nonzero({41, 1}, t), w = with_edges(100, t, 0.5);
    const Tensor sg = s.to(kGpu), ag = a.to(kGpu), bg = b.to(kGpu), wg = w.to(kGpu);
    const double tol = tolerance(t, 1e-5);
    check_same(lerp(sg, ag, 0.3), lerp(s, a, 0.3), tol);
    check_same(lerp(sg, ag, wg), lerp(s, a, w), tol);
    check_same(addcmul(sg, ag, bg, 0.7), addcmul(s, a, b, 0.7), tol);
    check_same(addcdiv(sg.t(), bg.t(), ag.view({100, 1}), -2), addcdiv(s.t(), b.t(), a.view({100, 1}), -2), tol);
    check_same(sg.clone().addcmul_(ag, bg, 0.5), s.clone().addcmul_(a, b, 0.5), tol);
    check_same(sg.clone().addcdiv_(ag, bg), s.clone().addcdiv_(a, b), tol);
    check_same(sg.clone().lerp_(ag, wg), s.clone().lerp_(a, w), tol);
  }
  const Tensor i = random_nonzero({1025}, kLong);
  check_same(addcmul(i.to(kGpu), i.to(kGpu), i.to(kGpu), 3), addcmul(i, i, i, 3));
}

TEST_CASE("cuda cummax, cummin, logcumsumexp match the CPU on every dim",
          "[cuda][cuda_pointwise]") {
  manual_seed(64);
  for (ScalarType t : {kBool, kLong, kFloat, kDouble})
    for (int64_t d : {0, 1, 2}) {
      INFO(t << ", dim " << d);
      const Tensor x = t == kBool || t == kLong ? random_nonzero({3, 50, 7}, t)
                                                : with_edges(1050, t).view({3, 50, 7});
      const Tensor xg = x.to(kGpu).transpose(0, 2), xc = x.transpose(0, 2);
      auto [vg, ig] = cummax(xg, d);
      auto [vc, ic] = cummax(xc, d);
      check_same(vg, vc);
      check_same(ig, ic);
      auto [ng, jg] = cummin(xg, d);
      auto [nc, jc] = cummin(xc, d);
      check_same(ng, nc);
      check_same(jg, jc);
      if (t == kFloat || t == kDouble)
        check_same(logcumsumexp(xg, d), logcumsumexp(xc, d), tolerance(t, 1e-5));
    }
}

TEST_CASE("cuda pointwise extras gradients match the CPU", "[cuda][cuda_pointwise]") {
  manual_seed(65);
  const std::vector<Unary> ops = {
      [](const Tensor& x) { return erfinv(x * 0.3); },
      [](const Tensor& x) { return lgamma(x) + digamma(x.abs() + 0.5); },
      [](const Tensor& x) { return sinc(x) + logit(x.sigmoid(), 0.2); },
      [](const Tensor& x) { return logaddexp(x, x.flip({1})) * hypot(x, x * 2); },
      [](const Tensor& x) { return addcdiv(x, x, x.abs() + 1, 0.5).lerp(x * 2, x.sigmoid()); },
      [](const Tensor& x) { return std::get<0>(cummax(x, 1)) + logcumsumexp(x, 0); },
  };
  for (size_t k = 0; k < ops.size(); ++k) {
    INFO("op " << k);
    const Tensor x = random_nonzero({6, 7}, kDouble);
    const Tensor xg = gpu_leaf(x), xc = cpu_leaf(x);
    ops[k](xg).sum().backward();
    ops[k](xc).sum().backward();
    check_same(xg.grad(), xc.grad(), 1e-12);
  }
}
