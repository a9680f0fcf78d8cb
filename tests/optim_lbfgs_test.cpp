// L-BFGS (nn/optim/lbfgs.h): its first two iterations against the update
// rules written out below in plain C++, convergence to known minima (the
// Rosenbrock function's (1, 1), a quadratic's A⁻¹b) with and without the
// strong-Wolfe line search, the stopping rules, state_dict round trips and
// the errors.
#include "test_helpers.h"

#include <ember/nn/optim/optim.h>
#include <ember/nn/optim/strong_wolfe.h>

#include <cmath>
#include <string>
#include <vector>

using namespace ember;
using ember_test::require_values;
using ember_test::values;

namespace {

Tensor leaf(const std::vector<double>& v) { return tensor(v, kDouble).detach().requires_grad_(); }

// Rosenbrock: f(x, y) = (1 - x)^2 + 100 (y - x^2)^2, minimum 0 at (1, 1).
Tensor rosenbrock(const Tensor& x, const Tensor& y) {
  return (1 - x).pow(2).sum() + 100 * (y - x * x).pow(2).sum();
}

// A closure over one tensor of two elements holding (x, y); counts its calls.
optim::LBFGS::LossClosure rosenbrock_closure(optim::Optimizer& opt, const Tensor& xy, int& calls) {
  return [&opt, xy, &calls] {
    ++calls;
    opt.zero_grad();
    Tensor loss = rosenbrock(xy.narrow(0, 0, 1), xy.narrow(0, 1, 1));
    loss.backward();
    return loss;
  };
}

// f(x) = 0.5 sum(a x^2) - sum(b x), gradient a x - b, minimum at x = b / a.
const std::vector<double> kA = {1.0, 3.0, 0.5, 2.0};
const std::vector<double> kB = {1.0, -2.0, 0.25, 4.0};
const std::vector<double> kX0 = {0.5, 1.0, -2.0, 1.5};

optim::LBFGS::LossClosure quadratic_closure(optim::Optimizer& opt, const Tensor& x) {
  return [&opt, x] {
    opt.zero_grad();
    Tensor loss = (0.5 * tensor(kA, kDouble) * x * x - tensor(kB, kDouble) * x).sum();
    loss.backward();
    return loss;
  };
}

double dot(const std::vector<double>& u, const std::vector<double>& v) {
  double s = 0;
  for (size_t i = 0; i < u.size(); ++i) s += u[i] * v[i];
  return s;
}

std::vector<double> quadratic_grad(const std::vector<double>& x) {
  std::vector<double> g(x.size());
  for (size_t i = 0; i < x.size(); ++i) g[i] = kA[i] * x[i] - kB[i];
  return g;
}

optim::LBFGSParamState& lbfgs_state(optim::LBFGS& opt, const Tensor& first_param) {
  return static_cast<optim::LBFGSParamState&>(*opt.state().at(first_param.unsafeGetTensorImpl()));
}

}  // namespace

TEST_CASE("LBFGS without a line search: the first two iterations follow the L-BFGS rules",
          "[optim][lbfgs]") {
  const double lr = 0.7;
  // By hand: iteration 1 steps t1 = lr * min(1, 1 / |g0|_1) along d0 = -g0.
  // Iteration 2 forms s = t1 d0 and y = g1 - g0, then the two-loop recursion
  // with that one pair: q = -g1, alpha = (s.q) / (y.s), q -= alpha y,
  // r = (y.s / y.y) q, beta = (y.r) / (y.s), d1 = r + (alpha - beta) s, and
  // steps lr along d1.
  std::vector<double> x = kX0;
  const std::vector<double> g0 = quadratic_grad(x);
  double g0_l1 = 0;
  for (double g : g0) g0_l1 += std::abs(g);
  const double t1 = lr * std::min(1.0, 1.0 / g0_l1);
  std::vector<double> s(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    s[i] = -t1 * g0[i];
    x[i] += s[i];
  }
  const std::vector<double> x1 = x;
  const std::vector<double> g1 = quadratic_grad(x);
  std::vector<double> y(x.size()), q(x.size()), r(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = g1[i] - g0[i];
  const double ys = dot(y, s);
  for (size_t i = 0; i < x.size(); ++i) q[i] = -g1[i];
  const double alpha = dot(s, q) / ys;
  for (size_t i = 0; i < x.size(); ++i) r[i] = (ys / dot(y, y)) * (q[i] - alpha * y[i]);
  const double beta = dot(y, r) / ys;
  for (size_t i = 0; i < x.size(); ++i) x[i] += lr * (r[i] + (alpha - beta) * s[i]);

  SECTION("one iteration") {
    Tensor p = leaf(kX0);
    optim::LBFGS opt({p}, optim::LBFGSOptions(lr).max_iter(1));
    opt.step(quadratic_closure(opt, p));
    require_values(p, x1, 1e-14);
  }
  SECTION("two iterations in one step") {
    Tensor p = leaf(kX0);
    // max_eval would default to 2 * 5 / 4 = 2 closure calls: the step would end
    // after the first iteration's second call.
    optim::LBFGS opt({p}, optim::LBFGSOptions(lr).max_iter(2).max_eval(3));
    opt.step(quadratic_closure(opt, p));
    require_values(p, x, 1e-14);
    optim::LBFGSParamState& st = lbfgs_state(opt, p);
    CHECK(st.n_iter() == 2);
    CHECK(st.func_evals() == 2);  // the last iteration's loss is left to the next step
    REQUIRE(st.old_dirs().size() == 1);
    require_values(st.old_dirs()[0], y, 1e-14);
    require_values(st.old_stps()[0], s, 1e-14);
    CHECK(st.H_diag() == Approx(ys / dot(y, y)).epsilon(1e-14));
  }
  SECTION("two steps of one iteration each give the same point") {
    Tensor p = leaf(kX0);
    optim::LBFGS opt({p}, optim::LBFGSOptions(lr).max_iter(1));
    opt.step(quadratic_closure(opt, p));
    opt.step(quadratic_closure(opt, p));
    require_values(p, x, 1e-14);
  }
}

TEST_CASE("LBFGS with strong Wolfe reaches the Rosenbrock minimum (1, 1)", "[optim][lbfgs]") {
  Tensor xy = leaf({-1.5, 2.0});
  optim::LBFGS opt({xy}, optim::LBFGSOptions(1).line_search_fn("strong_wolfe"));
  int calls = 0;
  const auto closure = rosenbrock_closure(opt, xy, calls);
  const double first = opt.step(closure).item<double>();
  CHECK(first == Approx(std::pow(2.5, 2) + 100 * std::pow(2.0 - 2.25, 2)));
  for (int i = 0; i < 20; ++i) opt.step(closure);
  // It stops once the loss changes by less than tolerance_change (1e-9).
  require_values(xy, {1.0, 1.0}, 1e-5);
  CHECK(rosenbrock(xy.narrow(0, 0, 1), xy.narrow(0, 1, 1)).item<double>() < 1e-9);
  CHECK(lbfgs_state(opt, xy).func_evals() == calls);
}

TEST_CASE("LBFGS without a line search also converges on Rosenbrock with a small lr",
          "[optim][lbfgs]") {
  Tensor xy = leaf({-1.5, 2.0});
  optim::LBFGS opt({xy}, optim::LBFGSOptions(0.1).max_iter(200).max_eval(400));
  int calls = 0;
  const auto closure = rosenbrock_closure(opt, xy, calls);
  for (int i = 0; i < 10; ++i) opt.step(closure);
  CHECK(rosenbrock(xy.narrow(0, 0, 1), xy.narrow(0, 1, 1)).item<double>() < 1e-6);
}

TEST_CASE("LBFGS treats several parameters as one flat vector", "[optim][lbfgs]") {
  // (x, y) as one tensor and as two tensors of other shapes: the same trajectory.
  Tensor xy = leaf({-1.2, 1.0});
  Tensor x = tensor({-1.2}, kDouble).detach().requires_grad_();
  Tensor y = tensor({1.0}, kDouble).view({1, 1}).detach().requires_grad_();
  const auto options = optim::LBFGSOptions(1).max_iter(5).line_search_fn("strong_wolfe");
  optim::LBFGS one({xy}, options);
  optim::LBFGS two({x, y}, options);
  int calls_one = 0, calls_two = 0;
  const auto closure_one = rosenbrock_closure(one, xy, calls_one);
  const auto closure_two = [&] {
    ++calls_two;
    two.zero_grad();
    Tensor loss = rosenbrock(x, y.view({1}));
    loss.backward();
    return loss;
  };
  for (int i = 0; i < 3; ++i) {
    one.step(closure_one);
    two.step(closure_two);
  }
  CHECK(calls_one == calls_two);
  const std::vector<double> got = values(xy);
  require_values(x, {got[0]}, 0);
  require_values(y, {got[1]}, 0);
}

TEST_CASE("LBFGS with strong Wolfe solves a quadratic: x = b / a", "[optim][lbfgs]") {
  Tensor p = leaf(kX0);
  // Tolerances tight enough that it stops on the gradient, not on a small change.
  optim::LBFGS opt({p}, optim::LBFGSOptions(1)
                            .max_iter(50)
                            .tolerance_grad(1e-12)
                            .tolerance_change(1e-15)
                            .line_search_fn("strong_wolfe"));
  opt.step(quadratic_closure(opt, p));
  std::vector<double> want(kA.size());
  for (size_t i = 0; i < kA.size(); ++i) want[i] = kB[i] / kA[i];
  require_values(p, want, 1e-8);
}

TEST_CASE("LBFGS stops early: zero gradient, max_eval, history_size", "[optim][lbfgs]") {
  SECTION("at a minimum, one closure call and no change") {
    Tensor xy = leaf({1.0, 1.0});
    optim::LBFGS opt({xy}, optim::LBFGSOptions(1));
    int calls = 0;
    CHECK(opt.step(rosenbrock_closure(opt, xy, calls)).item<double>() == 0);
    CHECK(calls == 1);
    require_values(xy, {1.0, 1.0}, 0);
  }
  SECTION("max_eval caps the closure calls of a step without line search") {
    Tensor xy = leaf({-1.5, 2.0});
    optim::LBFGS opt({xy}, optim::LBFGSOptions(1e-3).max_iter(100).max_eval(7));
    int calls = 0;
    opt.step(rosenbrock_closure(opt, xy, calls));
    CHECK(calls == 7);
  }
  SECTION("max_eval defaults to max_iter * 5 / 4") {
    Tensor xy = leaf({-1.5, 2.0});
    optim::LBFGS opt({xy}, optim::LBFGSOptions(1).max_iter(20));
    const auto& o = static_cast<const optim::LBFGSOptions&>(opt.param_groups()[0].options());
    REQUIRE(o.max_eval().has_value());
    CHECK(*o.max_eval() == 25);
  }
  SECTION("the history keeps history_size pairs") {
    Tensor xy = leaf({-1.5, 2.0});
    optim::LBFGS opt({xy},
                     optim::LBFGSOptions(1).history_size(3).line_search_fn("strong_wolfe"));
    int calls = 0;
    opt.step(rosenbrock_closure(opt, xy, calls));
    optim::LBFGSParamState& st = lbfgs_state(opt, xy);
    CHECK(st.n_iter() > 4);
    CHECK(st.old_dirs().size() == 3);
    CHECK(st.old_stps().size() == 3);
    CHECK(st.ro().size() == 3);
  }
}

TEST_CASE("LBFGS state_dict round trip continues the same trajectory", "[optim][lbfgs]") {
  const auto options = optim::LBFGSOptions(1).max_iter(3).line_search_fn("strong_wolfe");
  Tensor a = leaf({-1.5, 2.0});
  optim::LBFGS first({a}, options);
  int calls_a = 0;
  const auto closure_a = rosenbrock_closure(first, a, calls_a);
  first.step(closure_a);
  first.step(closure_a);

  Tensor b = a.detach().clone().requires_grad_();
  optim::LBFGS second({b}, optim::LBFGSOptions(5).max_iter(1));  // options come from the dict
  second.load_state_dict(first.state_dict());
  const auto& o = static_cast<const optim::LBFGSOptions&>(second.param_groups()[0].options());
  CHECK(o.lr() == 1);
  CHECK(o.max_iter() == 3);
  CHECK(o.line_search_fn() == std::optional<std::string>("strong_wolfe"));
  CHECK(lbfgs_state(second, b).old_dirs().size() == lbfgs_state(first, a).old_dirs().size());

  int calls_b = 0;
  first.step(closure_a);
  second.step(rosenbrock_closure(second, b, calls_b));
  require_values(b, values(a), 0);
}

TEST_CASE("LBFGS errors", "[optim][lbfgs]") {
  Tensor p = leaf({1.0, 2.0});
  optim::LBFGS opt({p}, optim::LBFGSOptions(1));
  REQUIRE_THROWS_WITH(opt.step(nullptr), Catch::Contains("LBFGS: step() needs a closure"));
  REQUIRE_THROWS_WITH(opt.step([] { return Tensor(); }),
                      Catch::Contains("the closure must return the loss"));

  Tensor q = leaf({3.0});
  REQUIRE_THROWS_WITH(
      optim::LBFGS(std::vector<optim::OptimizerParamGroup>{optim::OptimizerParamGroup({p}),
                                                           optim::OptimizerParamGroup({q})},
                   optim::LBFGSOptions(1)),
      Catch::Contains("LBFGS: takes one parameter group, got 2"));
  REQUIRE_THROWS_WITH(optim::LBFGS({p}, optim::LBFGSOptions(1).line_search_fn("backtracking")),
                      Catch::Contains("line_search_fn must be \"strong_wolfe\" or unset"));
  REQUIRE_THROWS_WITH(optim::LBFGS({p}, optim::LBFGSOptions(1).history_size(0)),
                      Catch::Contains("invalid history_size 0"));
  Tensor f = tensor({1.0f}).requires_grad_();
  REQUIRE_THROWS_WITH(optim::LBFGS({p, f}, optim::LBFGSOptions(1)),
                      Catch::Contains("every parameter must have one dtype and device"));
}

TEST_CASE("cubic_minimizer finds the minimum of a cubic from two points", "[optim][lbfgs]") {
  // c(t) = t^3 - 3t: slopes 3t^2 - 3, local minimum at t = 1.
  auto point = [](double t) {
    return optim::detail::LinePoint{t, t * t * t - 3 * t, Tensor(), 3 * t * t - 3};
  };
  CHECK(optim::detail::cubic_minimizer(point(0), point(2), 0, 2) == Approx(1).epsilon(1e-14));
  CHECK(optim::detail::cubic_minimizer(point(2), point(0.5), 0.5, 2) == Approx(1).epsilon(1e-14));
  CHECK(optim::detail::cubic_minimizer(point(0), point(2), 1.5, 2) == 1.5);  // clamped
  // A quadratic q(t) = (t - 0.3)^2 seen from t = 0 and t = 1: its minimum.
  auto quad = [](double t) {
    return optim::detail::LinePoint{t, (t - 0.3) * (t - 0.3), Tensor(), 2 * (t - 0.3)};
  };
  CHECK(optim::detail::cubic_minimizer(quad(0), quad(1), 0, 1) == Approx(0.3).epsilon(1e-14));
}

// One step adds at most max_iter to n_iter and about max_eval to func_evals,
// so limits stay <= 2^32 and counters <= 2^62: no later step can overflow.
TEST_CASE("LBFGS refuses loaded counters and limits of another dtype or out of range",
          "[optim][lbfgs]") {
  Tensor a = leaf({-1.5, 2.0});
  optim::LBFGS opt({a}, optim::LBFGSOptions(1).max_iter(2));
  int calls = 0;
  opt.step(rosenbrock_closure(opt, a, calls));
  const optim::TensorDict good = opt.state_dict();
  const auto refuses = [&](const std::string& key, const Tensor& value, const std::string& want) {
    INFO(key);
    optim::TensorDict d = good;
    d.insert_or_assign(key, value);
    REQUIRE_THROWS_WITH(opt.load_state_dict(d),
                        Catch::Contains("LBFGS.load_state_dict: field '" + key + "': " + want));
  };
  const int64_t big = (int64_t(1) << 62) + 1;
  refuses("state.0.n_iter", tensor(big, kLong),
          "value 4611686018427387905 is outside the range [0, 4611686018427387904]");
  refuses("state.0.func_evals", tensor(std::nan(""), kDouble), "has dtype float64");
  refuses("state.0.func_evals", tensor(int64_t(-3), kLong), "value -3 is outside");
  refuses("param_groups.0.max_iter", tensor(int64_t(0), kLong),
          "value 0 is outside the range [1, 4294967296]");
  refuses("param_groups.0.max_eval", tensor((int64_t(1) << 32) + 1, kLong),
          "value 4294967297 is outside");
  refuses("param_groups.0.history_size", tensor(1e9, kDouble), "has dtype float64");
  opt.load_state_dict(good);  // the good dict still loads
}
