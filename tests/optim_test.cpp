// Optimizers (nn/optim): SGD, Adam and AdamW steps on a fixed quadratic
// against their update rules written out below in plain C++, parameter
// groups, zero_grad, state_dict round trips, and the option checks.
#include "test_helpers.h"

#include <ember/nn/modules/linear.h>
#include <ember/nn/optim/optim.h>
#include <ember/nn/utils/clip_grad.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace ember;
using ember_test::require_values;
using ember_test::values;

namespace {

// The loss of every test: f(x) = 0.5 * sum(a * x^2), so grad f = a * x.
const std::vector<double> kA = {1.0, 2.0, 0.5, 4.0};
const std::vector<double> kX0 = {1.0, -2.0, 3.0, 0.5};

Tensor leaf(const std::vector<double>& v, ScalarType t = kDouble) {
  return tensor(v, t).detach().requires_grad_();
}

void backward_quadratic(const Tensor& x) {
  const Tensor a = tensor(kA, x.dtype());
  ((a * x * x).sum() * 0.5).backward();
}

// Runs `steps` steps of opt on x (zero_grad, backward, step).
void run(optim::Optimizer& opt, const Tensor& x, int steps) {
  for (int s = 0; s < steps; ++s) {
    opt.zero_grad();
    backward_quadratic(x);
    opt.step();
  }
}

struct SgdRef {
  double lr, momentum = 0, dampening = 0, weight_decay = 0;
  bool nesterov = false;
};

// torch.optim.SGD on the quadratic, element by element:
//   g = a*x + wd*x;  buf = (t == 1) ? g : momentum*buf + (1 - dampening)*g
//   d = nesterov ? g + momentum*buf : buf   (d = g without momentum);  x -= lr*d
std::vector<double> sgd_reference(const SgdRef& h, int steps) {
  std::vector<double> x = kX0, buf(x.size());
  for (int t = 1; t <= steps; ++t)
    for (size_t i = 0; i < x.size(); ++i) {
      const double g = kA[i] * x[i] + h.weight_decay * x[i];
      double d = g;
      if (h.momentum != 0) {
        buf[i] = t == 1 ? g : h.momentum * buf[i] + (1 - h.dampening) * g;
        d = h.nesterov ? g + h.momentum * buf[i] : buf[i];
      }
      x[i] -= h.lr * d;
    }
  return x;
}

struct AdamRef {
  double lr, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0;
  bool amsgrad = false, adamw = false;
};

// torch.optim.Adam / AdamW on the quadratic, element by element, step t = 1, 2, ...:
//   AdamW: x *= 1 - lr*wd, g = a*x;   Adam: g = a*x + wd*x
//   m = b1*m + (1-b1)*g;  v = b2*v + (1-b2)*g^2;  vmax = max(vmax, v) (amsgrad, used for v)
//   x -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
std::vector<double> adam_reference(const AdamRef& h, int steps) {
  std::vector<double> x = kX0, m(x.size()), v(x.size()), vmax(x.size());
  for (int t = 1; t <= steps; ++t)
    for (size_t i = 0; i < x.size(); ++i) {
      double g = kA[i] * x[i];
      if (h.adamw)
        x[i] *= 1 - h.lr * h.weight_decay;
      else
        g += h.weight_decay * x[i];
      m[i] = h.beta1 * m[i] + (1 - h.beta1) * g;
      v[i] = h.beta2 * v[i] + (1 - h.beta2) * g * g;
      vmax[i] = std::max(vmax[i], v[i]);
      const double vv = h.amsgrad ? vmax[i] : v[i];
      const double denom = std::sqrt(vv) / std::sqrt(1 - std::pow(h.beta2, t)) + h.eps;
      x[i] -= h.lr / (1 - std::pow(h.beta1, t)) * m[i] / denom;
    }
  return x;
}

struct RmspropRef {
  double lr, alpha = 0.99, eps = 1e-8, weight_decay = 0, momentum = 0;
  bool centered = false;
};

// torch.optim.RMSprop on the quadratic, element by element:
//   g = a*x + wd*x;  sq = alpha*sq + (1-alpha)*g^2;  ga = alpha*ga + (1-alpha)*g (centered)
//   avg = sqrt(centered ? sq - ga^2 : sq) + eps
//   buf = momentum*buf + g/avg, x -= lr*buf  (momentum > 0);  x -= lr*g/avg  (otherwise)
std::vector<double> rmsprop_reference(const RmspropRef& h, int steps) {
  std::vector<double> x = kX0, sq(x.size()), ga(x.size()), buf(x.size());
  for (int t = 1; t <= steps; ++t)
    for (size_t i = 0; i < x.size(); ++i) {
      const double g = kA[i] * x[i] + h.weight_decay * x[i];
      sq[i] = h.alpha * sq[i] + (1 - h.alpha) * g * g;
      ga[i] = h.alpha * ga[i] + (1 - h.alpha) * g;
      const double avg = std::sqrt(h.centered ? sq[i] - ga[i] * ga[i] : sq[i]) + h.eps;
      buf[i] = h.momentum * buf[i] + g / avg;
      x[i] -= h.lr * (h.momentum > 0 ? buf[i] : g / avg);
    }
  return x;
}

struct AdagradRef {
  double lr, lr_decay = 0, weight_decay = 0, initial = 0, eps = 1e-10;
};

// torch.optim.Adagrad on the quadratic, element by element, step t = 1, 2, ...:
//   g = a*x + wd*x;  sum += g^2;  x -= lr / (1 + (t-1)*lr_decay) * g / (sqrt(sum) + eps)
std::vector<double> adagrad_reference(const AdagradRef& h, int steps) {
  std::vector<double> x = kX0, sum(x.size(), h.initial);
  for (int t = 1; t <= steps; ++t)
    for (size_t i = 0; i < x.size(); ++i) {
      const double g = kA[i] * x[i] + h.weight_decay * x[i];
      sum[i] += g * g;
      x[i] -= h.lr / (1 + (t - 1) * h.lr_decay) * g / (std::sqrt(sum[i]) + h.eps);
    }
  return x;
}

}  // namespace

TEST_CASE("RMSprop steps follow PyTorch's rule: plain, weight decay, momentum, centered",
          "[optim]") {
  const std::vector<std::pair<optim::RMSpropOptions, RmspropRef>> cases = {
      {optim::RMSpropOptions(0.01), {0.01}},
      {optim::RMSpropOptions(0.02).alpha(0.9).eps(1e-4).weight_decay(0.1),
       {0.02, 0.9, 1e-4, 0.1}},
      {optim::RMSpropOptions(0.01).momentum(0.8), {0.01, 0.99, 1e-8, 0, 0.8}},
      {optim::RMSpropOptions(0.01).momentum(0.5).centered(true).alpha(0.9),
       {0.01, 0.9, 1e-8, 0, 0.5, true}},
  };
  for (const auto& [options, ref] : cases) {
    INFO("momentum " << ref.momentum << " centered " << ref.centered);
    Tensor x = leaf(kX0);
    optim::RMSprop opt({x}, options);
    run(opt, x, 6);
    require_values(x, rmsprop_reference(ref, 6));
  }
  // First plain step: sq = 0.01 g^2, so x moves by lr * g / (0.1 |g|) = 10 lr * sign(g).
  Tensor y = leaf(kX0);
  optim::RMSprop first({y}, optim::RMSpropOptions(0.01).eps(0));
  run(first, y, 1);
  require_values(y, {0.9, -1.9, 2.9, 0.4});
  REQUIRE(optim::RMSpropOptions().lr() == 0.01);  // PyTorch's defaults
  REQUIRE(optim::RMSpropOptions().alpha() == 0.99);
}

TEST_CASE("Adagrad steps follow PyTorch's rule with lr decay and an initial accumulator",
          "[optim]") {
  Tensor x = leaf(kX0);
  optim::Adagrad opt({x}, optim::AdagradOptions(0.1));
  run(opt, x, 5);
  require_values(x, adagrad_reference({0.1}, 5));
  Tensor y = leaf(kX0);
  optim::Adagrad decayed(
      {y}, optim::AdagradOptions(0.2).lr_decay(0.5).weight_decay(0.1).initial_accumulator_value(
               0.3));
  run(decayed, y, 5);
  require_values(y, adagrad_reference({0.2, 0.5, 0.1, 0.3}, 5));
  // First step: sum = g^2, so x moves by lr * sign(g) (eps aside).
  Tensor z = leaf(kX0);
  optim::Adagrad first({z}, optim::AdagradOptions(0.1).eps(0));
  run(first, z, 1);
  require_values(z, {0.9, -1.9, 2.9, 0.4});
}

TEST_CASE("RMSprop and Adagrad state_dicts use PyTorch's names and round-trip", "[optim]") {
  Tensor x = leaf(kX0);
  optim::RMSprop rms({x}, optim::RMSpropOptions(0.01).momentum(0.9).centered(true));
  run(rms, x, 2);
  optim::TensorDict d = rms.state_dict();
  REQUIRE(d.keys() == std::vector<std::string>{
                              "state.0.step", "state.0.square_avg", "state.0.momentum_buffer",
                              "state.0.grad_avg", "param_groups.0.params", "param_groups.0.lr",
                              "param_groups.0.alpha", "param_groups.0.eps",
                              "param_groups.0.weight_decay", "param_groups.0.momentum",
                              "param_groups.0.centered"});
  Tensor x2 = leaf(values(x));
  optim::RMSprop restored({x2}, optim::RMSpropOptions(0.01).momentum(0.9).centered(true));
  restored.load_state_dict(d);
  run(rms, x, 1);
  run(restored, x2, 1);
  REQUIRE(values(x2) == values(x));

  Tensor y = leaf(kX0);
  optim::Adagrad ada({y}, optim::AdagradOptions(0.1).initial_accumulator_value(0.5));
  run(ada, y, 2);
  d = ada.state_dict();
  REQUIRE(d.keys() == std::vector<std::string>{
                              "state.0.step", "state.0.sum", "param_groups.0.params",
                              "param_groups.0.lr", "param_groups.0.lr_decay",
                              "param_groups.0.weight_decay",
                              "param_groups.0.initial_accumulator_value", "param_groups.0.eps"});
  REQUIRE(d["state.0.step"].item<int64_t>() == 2);
}

TEST_CASE("SGD steps follow x -= lr * (a*x + wd*x) on the quadratic", "[optim]") {
  for (double wd : {0.0, 0.1}) {
    INFO("weight_decay " << wd);
    Tensor x = leaf(kX0);
    optim::SGD opt({x}, optim::SGDOptions(0.1).weight_decay(wd));
    run(opt, x, 3);
    require_values(x, sgd_reference({0.1, 0, 0, wd}, 3));
  }
}

TEST_CASE("SGD momentum starts its buffer at the gradient, then applies dampening", "[optim]") {
  Tensor x = leaf(kX0);
  optim::SGD opt({x}, optim::SGDOptions(0.05).momentum(0.9).dampening(0.3).weight_decay(0.01));
  run(opt, x, 4);
  require_values(x, sgd_reference({0.05, 0.9, 0.3, 0.01}, 4));
  // The first step alone: buf = g, so x1 = x0 - lr * g with no dampening.
  Tensor y = leaf(kX0);
  optim::SGD one({y}, optim::SGDOptions(0.05).momentum(0.9).dampening(0.3));
  run(one, y, 1);
  require_values(y, {1 - 0.05 * 1, -2 + 0.05 * 4, 3 - 0.05 * 1.5, 0.5 - 0.05 * 2});
}

TEST_CASE("SGD nesterov steps along g + momentum * buf", "[optim]") {
  Tensor x = leaf(kX0);
  optim::SGD opt({x}, optim::SGDOptions(0.05).momentum(0.8).nesterov(true));
  run(opt, x, 4);
  require_values(x, sgd_reference({0.05, 0.8, 0, 0, true}, 4));
}

TEST_CASE("Adam steps follow PyTorch's rule with bias corrections", "[optim]") {
  SECTION("defaults") {
    Tensor x = leaf(kX0);
    optim::Adam opt({x}, optim::AdamOptions(0.1));
    run(opt, x, 5);
    require_values(x, adam_reference({0.1}, 5));
  }
  SECTION("L2 weight decay and other betas") {
    Tensor x = leaf(kX0);
    optim::Adam opt({x}, optim::AdamOptions(0.05).betas({0.8, 0.99}).eps(1e-3).weight_decay(0.2));
    run(opt, x, 5);
    require_values(x, adam_reference({0.05, 0.8, 0.99, 1e-3, 0.2}, 5));
  }
  SECTION("first step moves every element by lr (m / sqrt(v) = sign(g) after correction)") {
    Tensor x = leaf(kX0);
    optim::Adam opt({x}, optim::AdamOptions(0.1).eps(0));
    run(opt, x, 1);
    require_values(x, {0.9, -1.9, 2.9, 0.4});
  }
}

TEST_CASE("Adam amsgrad divides by the running max of v", "[optim]") {
  // beta2 = 0.5 lets v fall as the gradients shrink, so the max matters.
  AdamRef ams{0.1, 0.9, 0.5};
  ams.amsgrad = true;
  Tensor x = leaf(kX0);
  optim::Adam opt({x}, optim::AdamOptions(0.1).betas({0.9, 0.5}).amsgrad(true));
  run(opt, x, 8);
  const std::vector<double> want = adam_reference(ams, 8);
  require_values(x, want);
  const std::vector<double> plain = adam_reference({0.1, 0.9, 0.5}, 8);
  REQUIRE(std::abs(want[1] - plain[1]) > 1e-6);  // the case does exercise the max
}

TEST_CASE("AdamW decays the parameter by lr * wd instead of adding wd * x to the gradient",
          "[optim]") {
  for (bool amsgrad : {false, true}) {
    INFO("amsgrad " << amsgrad);
    Tensor x = leaf(kX0);
    optim::AdamW opt({x}, optim::AdamWOptions(0.1).weight_decay(0.3).amsgrad(amsgrad));
    run(opt, x, 5);
    AdamRef h{0.1};
    h.weight_decay = 0.3;
    h.amsgrad = amsgrad;
    h.adamw = true;
    require_values(x, adam_reference(h, 5));
  }
  REQUIRE(optim::AdamWOptions().weight_decay() == 0.01);  // PyTorch's default
}

TEST_CASE("float32 parameters follow the float64 rule within float precision", "[optim]") {
  Tensor x = leaf(kX0, kFloat);
  optim::Adam adam({x}, optim::AdamOptions(0.1).weight_decay(0.1));
  run(adam, x, 5);
  AdamRef h{0.1};
  h.weight_decay = 0.1;
  require_values(x, adam_reference(h, 5), 1e-5);
  Tensor y = leaf(kX0, kFloat);
  optim::SGD sgd({y}, optim::SGDOptions(0.05).momentum(0.9).nesterov(true));
  run(sgd, y, 5);
  require_values(y, sgd_reference({0.05, 0.9, 0, 0, true}, 5), 1e-5);
}

TEST_CASE("optimizers update large parameters in parallel chunks like small ones", "[optim]") {
  // 100003 elements: several chunks of cpu::kGrainSize and a ragged end.
  const int64_t n = 100003;
  Tensor x = (arange(n, kDouble) * 1e-4 - 3).detach().requires_grad_();
  Tensor g = rand({n}, kDouble) - 0.5;
  x.set_grad(g);
  optim::Adam opt({x}, optim::AdamOptions(0.01));
  const std::vector<double> x0 = values(x), gv = values(g);
  opt.step();
  const std::vector<double> got = values(x);
  for (int64_t i = 0; i < n; i += 997) {
    // First step: m = 0.1 g, v = 0.001 g^2; corrected m / sqrt(v) = sign(g).
    const double denom = std::abs(gv[i]) + 1e-8;
    REQUIRE(got[i] == Approx(x0[i] - 0.01 * gv[i] / denom).epsilon(1e-12).margin(1e-12));
  }
}

TEST_CASE("parameter groups keep their own lr and read and set it through options()",
          "[optim]") {
  Tensor x = leaf(kX0), y = leaf(kX0);
  std::vector<optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{x});  // takes the defaults: lr 0.1
  groups.emplace_back(std::vector<Tensor>{y}, std::make_unique<optim::SGDOptions>(0.01));
  optim::SGD opt(groups, optim::SGDOptions(0.1));
  REQUIRE(opt.param_groups().size() == 2);
  REQUIRE(opt.size() == 2);
  REQUIRE(opt.param_groups()[0].options().lr() == 0.1);
  REQUIRE(opt.param_groups()[1].options().get_lr() == 0.01);
  for (int s = 0; s < 2; ++s) {
    opt.zero_grad();
    backward_quadratic(x);
    backward_quadratic(y);
    opt.step();
  }
  require_values(x, sgd_reference({0.1}, 2));
  require_values(y, sgd_reference({0.01}, 2));

  // A later group and an lr changed by hand.
  Tensor z = leaf(kX0);
  opt.add_param_group(optim::OptimizerParamGroup({z}));
  REQUIRE(opt.param_groups()[2].options().lr() == 0.1);
  static_cast<optim::SGDOptions&>(opt.param_groups()[2].options()).lr(0.02).momentum(0.5);
  opt.zero_grad();
  backward_quadratic(z);
  opt.step();
  require_values(z, sgd_reference({0.02, 0.5}, 1));
  REQUIRE(opt.parameters().size() == 3);
  REQUIRE(opt.parameters()[2].is_same(z));
}

TEST_CASE("zero_grad drops gradients or zeroes them in place", "[optim]") {
  Tensor x = leaf(kX0);
  optim::SGD opt({x}, optim::SGDOptions(0.1));
  backward_quadratic(x);
  Tensor g = x.grad();
  opt.zero_grad(/*set_to_none=*/false);
  REQUIRE(x.grad().is_same(g));
  require_values(x.grad(), {0, 0, 0, 0});
  opt.zero_grad();
  REQUIRE_FALSE(x.grad().defined());
  opt.zero_grad();  // no gradient: nothing to do
}

TEST_CASE("a step skips parameters without a gradient and makes no state for them", "[optim]") {
  Tensor x = leaf(kX0), unused = leaf({5.0, 6.0});
  optim::Adam opt({x, unused}, optim::AdamOptions(0.1));
  run(opt, x, 2);
  require_values(unused, {5.0, 6.0});
  REQUIRE(opt.state().size() == 1);
  REQUIRE(opt.state().count(x.unsafeGetTensorImpl()) == 1);
  const auto& s =
      static_cast<const optim::AdamParamState&>(*opt.state().at(x.unsafeGetTensorImpl()));
  REQUIRE(s.step() == 2);
  REQUIRE(s.exp_avg().sizes() == x.sizes());
  REQUIRE_FALSE(s.max_exp_avg_sq().defined());
}

TEST_CASE("a step bumps the parameter's version counter", "[optim]") {
  Tensor x = leaf(kX0);
  optim::Adam opt({x}, optim::AdamOptions(0.1));
  backward_quadratic(x);
  const uint32_t before = x._version();
  opt.step();
  REQUIRE(x._version() > before);
}

TEST_CASE("non-contiguous parameters and gradients are updated element by element", "[optim]") {
  // x: a transposed (2, 2) view, as a leaf; its gradient is set by hand, also transposed.
  Tensor x = tensor({{1.0, 3.0}, {-2.0, 0.5}}, kDouble).t().detach().requires_grad_();
  REQUIRE_FALSE(x.is_contiguous());
  x.set_grad(tensor({{1.0, 6.0}, {-8.0, 2.0}}, kDouble).t());  // grad = a * x in x's layout
  optim::SGD opt({x}, optim::SGDOptions(0.1).momentum(0.9));
  const uint32_t before = x._version();
  opt.step();
  // x = [[1, -2], [3, 0.5]], grad = [[1, -8], [6, 2]]: x - 0.1 * grad.
  require_values(x, {0.9, -1.2, 2.4, 0.3});
  REQUIRE(x._version() > before);
  REQUIRE_FALSE(x.is_contiguous());
}

TEST_CASE("zero-size parameters step without error", "[optim]") {
  Tensor x = zeros({0, 3}, kDouble).requires_grad_();
  x.set_grad(zeros({0, 3}, kDouble));
  optim::Adam adam({x}, optim::AdamOptions(0.1).amsgrad(true));
  adam.step();
  optim::SGD sgd({x}, optim::SGDOptions(0.1).momentum(0.9));
  sgd.step();
  REQUIRE(x.numel() == 0);
}

TEST_CASE("step(closure) evaluates the loss with grad mode on and returns it", "[optim]") {
  Tensor x = leaf(kX0);
  optim::SGD opt({x}, optim::SGDOptions(0.1));
  NoGradGuard no_grad;  // the closure still records its graph
  Tensor loss = opt.step([&] {
    opt.zero_grad();
    Tensor l = (tensor(kA, kDouble) * x * x).sum() * 0.5;
    l.backward();
    return l;
  });
  // f(x0) = 0.5 * (1 + 8 + 4.5 + 1) = 7.25
  REQUIRE(loss.item<double>() == Approx(7.25));
  require_values(x, sgd_reference({0.1}, 1));
}

TEST_CASE("a steady step allocates no memory after the first", "[optim]") {
  Tensor x = leaf(kX0), y = leaf(kX0);
  x.set_grad(ones({4}, kDouble));
  y.set_grad(ones({4}, kDouble));
  optim::Adam adam({x}, optim::AdamOptions(0.1).amsgrad(true));
  optim::SGD sgd({y}, optim::SGDOptions(0.1).momentum(0.9));
  adam.step();
  sgd.step();
  const uint64_t allocs = cpu::memory_stats().num_allocs;
  for (int s = 0; s < 3; ++s) {
    adam.step();
    sgd.step();
  }
  REQUIRE(cpu::memory_stats().num_allocs == allocs);
}

// ---- state_dict ----

namespace {

std::vector<std::string> dict_keys(const optim::TensorDict& d) { return d.keys(); }

bool bit_equal(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && a.dtype() == b.dtype() &&
         std::memcmp(a.contiguous().data_ptr(), b.contiguous().data_ptr(), a.nbytes()) == 0;
}

}  // namespace

TEST_CASE("Adam's state_dict names state and group options as PyTorch's layout", "[optim]") {
  Tensor x = leaf(kX0), y = leaf({1.0, 2.0}), unused = leaf({3.0});
  std::vector<optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{x});
  groups.emplace_back(std::vector<Tensor>{unused, y},
                      std::make_unique<optim::AdamOptions>(optim::AdamOptions(0.5).amsgrad(true)));
  optim::Adam opt(groups, optim::AdamOptions(0.1));
  backward_quadratic(x);
  y.set_grad(ones({2}, kDouble));
  opt.step();
  const optim::TensorDict d = opt.state_dict();
  REQUIRE(dict_keys(d) == std::vector<std::string>{
                              "state.0.step", "state.0.exp_avg", "state.0.exp_avg_sq",
                              "param_groups.0.params", "param_groups.0.lr",
                              "param_groups.0.betas", "param_groups.0.eps",
                              "param_groups.0.weight_decay", "param_groups.0.amsgrad",
                              "state.2.step", "state.2.exp_avg", "state.2.exp_avg_sq",
                              "state.2.max_exp_avg_sq", "param_groups.1.params",
                              "param_groups.1.lr", "param_groups.1.betas", "param_groups.1.eps",
                              "param_groups.1.weight_decay", "param_groups.1.amsgrad"});
  REQUIRE(d["state.0.step"].dtype() == kLong);
  REQUIRE(d["state.0.step"].dim() == 0);
  REQUIRE(d["state.0.step"].item<int64_t>() == 1);
  REQUIRE(d["param_groups.1.lr"].dtype() == kDouble);
  REQUIRE(d["param_groups.1.lr"].dim() == 0);
  REQUIRE(d["param_groups.1.lr"].item<double>() == 0.5);
  require_values(d["param_groups.1.params"], {1, 2});
  require_values(d["param_groups.1.betas"], {0.9, 0.999});
  REQUIRE(d["param_groups.1.amsgrad"].item<double>() == 1.0);
  // exp_avg after one step: (1 - beta1) * g.
  require_values(d["state.2.exp_avg"], {0.1, 0.1});
  // The dict holds copies: stepping on leaves it alone.
  opt.step();
  REQUIRE(d["state.0.step"].item<int64_t>() == 1);
  require_values(d["state.2.exp_avg"], {0.1, 0.1});
}

TEST_CASE("state_dict round trip: restoring and stepping again gives bit-identical parameters",
          "[optim]") {
  for (int kind = 0; kind < 3; ++kind) {
    INFO("optimizer " << kind);
    auto make = [&](const Tensor& p) -> std::unique_ptr<optim::Optimizer> {
      if (kind == 0) return std::make_unique<optim::Adam>(std::vector<Tensor>{p},
                                                          optim::AdamOptions(0.05).amsgrad(true));
      if (kind == 1) return std::make_unique<optim::AdamW>(std::vector<Tensor>{p},
                                                           optim::AdamWOptions(0.05));
      return std::make_unique<optim::SGD>(std::vector<Tensor>{p},
                                          optim::SGDOptions(0.05).momentum(0.9).nesterov(true));
    };
    Tensor x = leaf(kX0, kFloat);
    auto opt = make(x);
    run(*opt, x, 3);
    const optim::TensorDict saved = opt->state_dict();
    const Tensor saved_x = x.detach().clone();
    run(*opt, x, 3);
    const Tensor first = x.detach().clone();

    Tensor x2 = leaf(values(saved_x), kFloat);
    auto restored = make(x2);
    restored->param_groups()[0].options().lr(1.0);  // overwritten by the load
    restored->load_state_dict(saved);
    REQUIRE(restored->param_groups()[0].options().lr() == 0.05);
    run(*restored, x2, 3);
    REQUIRE(bit_equal(x2.detach(), first));
  }
}

TEST_CASE("load_state_dict reports each mismatch and changes nothing", "[optim]") {
  Tensor x = leaf(kX0);
  optim::Adam opt({x}, optim::AdamOptions(0.1));
  run(opt, x, 1);
  const optim::TensorDict good = opt.state_dict();

  Tensor other = leaf({1.0, 2.0});
  optim::Adam wrong_shape({other}, optim::AdamOptions(0.3));
  REQUIRE_THROWS_WITH(wrong_shape.load_state_dict(good),
                      Catch::Contains("'state.0.exp_avg' has shape [4] but its parameter has "
                                      "shape [2]"));
  REQUIRE(wrong_shape.param_groups()[0].options().lr() == 0.3);
  REQUIRE(wrong_shape.state().empty());

  optim::Adam two_params({leaf(kX0), leaf(kX0)}, optim::AdamOptions(0.1));
  REQUIRE_THROWS_WITH(two_params.load_state_dict(good),
                      Catch::Contains("parameter group 0 has 1 parameters in the state dict "
                                      "and 2 in this optimizer"));

  std::vector<optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{leaf(kX0)});
  groups.emplace_back(std::vector<Tensor>{leaf(kX0)});
  optim::Adam two_groups(groups, optim::AdamOptions(0.1));
  REQUIRE_THROWS_WITH(two_groups.load_state_dict(good),
                      Catch::Contains("the state dict has 1 parameter groups, this optimizer "
                                      "has 2"));

  optim::TensorDict extra = good;
  extra.insert("state.0.momentum", zeros({4}));
  optim::Adam fresh({leaf(kX0)}, optim::AdamOptions(0.1));
  REQUIRE_THROWS_WITH(fresh.load_state_dict(extra),
                      Catch::Contains("Adam.load_state_dict: unexpected key 'state.0.momentum'"));
  REQUIRE(fresh.state().empty());

  optim::TensorDict missing("State dict key");
  for (const auto& item : good)
    if (item.key() != "param_groups.0.eps") missing.insert(item.key(), item.value());
  REQUIRE_THROWS_WITH(fresh.load_state_dict(missing),
                      Catch::Contains("missing key 'param_groups.0.eps'"));

  // An SGD dict into Adam: the Adam options are missing.
  Tensor y = leaf(kX0);
  optim::SGD sgd({y}, optim::SGDOptions(0.1));
  REQUIRE_THROWS_WITH(fresh.load_state_dict(sgd.state_dict()),
                      Catch::Contains("missing key 'param_groups.0.betas'"));

  fresh.load_state_dict(good);
  REQUIRE(fresh.state().size() == 1);
}

// ---- errors ----

TEST_CASE("optimizer options out of range are rejected with the option named", "[optim]") {
  Tensor x = leaf(kX0);
  REQUIRE_THROWS_WITH(optim::SGD({x}, optim::SGDOptions(-0.1)),
                      Catch::Contains("SGD: invalid learning rate -0.1 (must be >= 0)"));
  REQUIRE_THROWS_WITH(optim::SGD({x}, optim::SGDOptions(0.1).momentum(-1)),
                      Catch::Contains("SGD: invalid momentum -1"));
  REQUIRE_THROWS_WITH(optim::SGD({x}, optim::SGDOptions(0.1).weight_decay(-1)),
                      Catch::Contains("SGD: invalid weight_decay -1"));
  REQUIRE_THROWS_WITH(optim::SGD({x}, optim::SGDOptions(0.1).nesterov(true)),
                      Catch::Contains("nesterov momentum requires a momentum > 0 and zero "
                                      "dampening"));
  REQUIRE_THROWS_WITH(optim::Adam({x}, optim::AdamOptions(-1)),
                      Catch::Contains("Adam: invalid learning rate -1"));
  REQUIRE_THROWS_WITH(optim::Adam({x}, optim::AdamOptions().betas({1.0, 0.999})),
                      Catch::Contains("Adam: invalid beta1 1 (must be in [0, 1))"));
  REQUIRE_THROWS_WITH(optim::Adam({x}, optim::AdamOptions().betas({0.9, -0.1})),
                      Catch::Contains("Adam: invalid beta2 -0.1"));
  REQUIRE_THROWS_WITH(optim::Adam({x}, optim::AdamOptions().eps(-1e-8)),
                      Catch::Contains("Adam: invalid eps -1e-08"));
  REQUIRE_THROWS_WITH(optim::AdamW({x}, optim::AdamWOptions().weight_decay(-0.5)),
                      Catch::Contains("AdamW: invalid weight_decay -0.5"));
  REQUIRE_THROWS_WITH(optim::RMSprop({x}, optim::RMSpropOptions().alpha(-0.5)),
                      Catch::Contains("RMSprop: invalid alpha -0.5"));
  REQUIRE_THROWS_WITH(optim::RMSprop({x}, optim::RMSpropOptions().momentum(-1)),
                      Catch::Contains("RMSprop: invalid momentum -1"));
  REQUIRE_THROWS_WITH(optim::Adagrad({x}, optim::AdagradOptions().lr_decay(-1)),
                      Catch::Contains("Adagrad: invalid lr_decay -1"));
  REQUIRE_THROWS_WITH(optim::Adagrad({x}, optim::AdagradOptions().initial_accumulator_value(-1)),
                      Catch::Contains("Adagrad: invalid initial_accumulator_value -1"));
}

TEST_CASE("bad parameter lists are rejected with the reason", "[optim]") {
  Tensor x = leaf(kX0);
  REQUIRE_THROWS_WITH(optim::SGD(std::vector<optim::OptimizerParamGroup>{}, optim::SGDOptions(0.1)),
                      Catch::Contains("SGD: got an empty list of parameter groups"));
  REQUIRE_THROWS_WITH(optim::SGD({x, x}, optim::SGDOptions(0.1)),
                      Catch::Contains("parameter 1 of the group appears more than once"));
  REQUIRE_THROWS_WITH(optim::Adam({x * 2}, optim::AdamOptions()),
                      Catch::Contains("Adam: can't optimize a non-leaf tensor"));
  REQUIRE_THROWS_WITH(optim::Adam({arange(3)}, optim::AdamOptions()),
                      Catch::Contains("can only optimize floating point tensors"));
  optim::SGD opt({x}, optim::SGDOptions(0.1));
  REQUIRE_THROWS_WITH(opt.add_param_group(optim::OptimizerParamGroup({x})),
                      Catch::Contains("appears more than once among the parameter groups"));
  REQUIRE_THROWS_WITH(
      opt.add_param_group(optim::OptimizerParamGroup({leaf(kX0)},
                                                     std::make_unique<optim::AdamOptions>())),
      Catch::Contains("SGD: a parameter group's options must be SGDOptions"));
  REQUIRE_THROWS_WITH(
      opt.add_param_group(optim::OptimizerParamGroup(
          {leaf(kX0)}, std::make_unique<optim::SGDOptions>(optim::SGDOptions(-2)))),
      Catch::Contains("SGD: invalid learning rate -2"));
}

TEST_CASE("a gradient that does not match its parameter is an error at step", "[optim]") {
  Tensor x = leaf(kX0);
  x.set_grad(ones({4}, kFloat));
  optim::Adam opt({x}, optim::AdamOptions());
  REQUIRE_THROWS_WITH(opt.step(), Catch::Contains("Adam: the gradient (float32 tensor [4] on "
                                                  "cpu) does not match its parameter"));
}

// ---- gradient clipping (nn/utils/clip_grad) ----

namespace {

Tensor with_grad(const std::vector<double>& grad, ScalarType t = kDouble) {
  Tensor p = zeros({static_cast<int64_t>(grad.size())}, t).requires_grad_();
  p.set_grad(tensor(grad, t));
  return p;
}

}  // namespace

TEST_CASE("clip_grad_norm_ scales all gradients by max_norm / (total + 1e-6)",
          "[optim][clip_grad]") {
  Tensor a = with_grad({3, 4}), b = with_grad({12}), none = zeros({2}).requires_grad_();
  // total 2-norm = sqrt(9 + 16 + 144) = 13
  const double total = nn::utils::clip_grad_norm_({a, none, b}, 6.5);
  REQUIRE(total == Approx(13).epsilon(1e-14));
  const double c = 6.5 / (13 + 1e-6);
  require_values(a.grad(), {3 * c, 4 * c});
  require_values(b.grad(), {12 * c});
  REQUIRE_FALSE(none.grad().defined());
}

TEST_CASE("clip_grad_norm_ leaves gradients under max_norm alone", "[optim][clip_grad]") {
  Tensor a = with_grad({3, 4});
  REQUIRE(nn::utils::clip_grad_norm_(a, 100.0) == Approx(5));
  require_values(a.grad(), {3, 4});
  REQUIRE(nn::utils::clip_grad_norm_(std::vector<Tensor>{}, 1.0) == 0);
}

TEST_CASE("clip_grad_norm_ with the 1-, 3- and inf-norms", "[optim][clip_grad]") {
  struct Case {
    double p, total;
  };
  for (const Case& k : {Case{1, 3 + 4 + 12}, Case{3, std::cbrt(27.0 + 64 + 1728)},
                        Case{std::numeric_limits<double>::infinity(), 12}}) {
    INFO("norm_type " << k.p);
    Tensor a = with_grad({3, -4}), b = with_grad({12}, kFloat);
    REQUIRE(nn::utils::clip_grad_norm_({a, b}, 2.0, k.p) == Approx(k.total).epsilon(1e-6));
    const double c = 2.0 / (k.total + 1e-6);
    require_values(a.grad(), {3 * c, -4 * c});
    require_values(b.grad(), {12 * c}, 1e-6);
  }
}

TEST_CASE("clip_grad_norm_ over a large gradient sums every parallel chunk",
          "[optim][clip_grad]") {
  const int64_t n = 100003;
  Tensor p = zeros({n}, kFloat).requires_grad_();
  p.set_grad(full({n}, 2.0, kFloat));
  REQUIRE(nn::utils::clip_grad_norm_(p, 1.0) == Approx(2 * std::sqrt(double(n))).epsilon(1e-9));
  Tensor q = zeros({n}, kDouble).requires_grad_();
  q.set_grad(arange(n, kDouble) - 7);  // the largest |g| is the last, n - 8
  REQUIRE(nn::utils::clip_grad_norm_(q, 1.0, std::numeric_limits<double>::infinity()) == n - 8);
}

TEST_CASE("clip_grad_norm_ with a non-finite total errors or scales by NaN",
          "[optim][clip_grad]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  Tensor a = with_grad({1, nan});
  REQUIRE_THROWS_WITH(nn::utils::clip_grad_norm_(a, 1.0, 2.0, /*error_if_nonfinite=*/true),
                      Catch::Contains("clip_grad_norm_: the total norm of order 2 of the "
                                      "gradients is nan"));
  require_values(a.grad(), {1, nan});  // untouched
  REQUIRE(std::isnan(nn::utils::clip_grad_norm_(a, 1.0)));
  require_values(a.grad(), {nan, nan});
  Tensor b = with_grad({nan, 5});
  REQUIRE(std::isnan(nn::utils::clip_grad_norm_(b, 1.0, inf)));
  Tensor c = with_grad({inf, 1});
  REQUIRE_THROWS_WITH(nn::utils::clip_grad_norm_(c, 1.0, inf, true),
                      Catch::Contains("of order inf of the gradients is inf"));
  REQUIRE_THROWS_WITH(nn::utils::clip_grad_norm_(c, 1.0, 0.0),
                      Catch::Contains("clip_grad_norm_: norm_type must be positive (or inf), "
                                      "got 0"));
}

TEST_CASE("clip_grad_value_ clamps each gradient element", "[optim][clip_grad]") {
  Tensor a = with_grad({-3, 0.5, 2}), b = zeros({1}).requires_grad_();
  // a transposed gradient is clamped in place too
  Tensor c = zeros({2, 2}, kDouble).requires_grad_();
  c.set_grad(tensor({{5.0, -5.0}, {0.1, 1.5}}, kDouble).t());
  const uint32_t before = a.grad()._version();
  nn::utils::clip_grad_value_({a, b, c}, 1.0);
  require_values(a.grad(), {-1, 0.5, 1});
  REQUIRE(a.grad()._version() > before);
  REQUIRE_FALSE(b.grad().defined());
  require_values(c.grad(), {1, 0.1, -1, 1});
}

// ---- with a module ----

TEST_CASE("Adam with a StepLR and clipping fits a Linear model to a linear target",
          "[optim]") {
  manual_seed(3);
  nn::Linear model(3, 1);
  // y = x . (1.5, -2, 0.5) + 0.25 on 64 random points.
  const Tensor x = randn({64, 3});
  const Tensor y = x.matmul(tensor({{1.5}, {-2.0}, {0.5}})) + 0.25;
  optim::Adam opt(model->parameters(), optim::AdamOptions(0.05));
  optim::StepLR sched(opt, 100, 0.5);
  auto loss_now = [&] {
    const Tensor d = model->forward(x) - y;
    return (d * d).mean();
  };
  const double initial = loss_now().item<double>();
  for (int s = 0; s < 300; ++s) {
    opt.zero_grad();
    Tensor loss = loss_now();
    loss.backward();
    nn::utils::clip_grad_norm_(model->parameters(), 10.0);
    opt.step();
    sched.step();
  }
  const double final_loss = loss_now().item<double>();
  INFO("loss " << initial << " -> " << final_loss);
  REQUIRE(final_loss < initial * 1e-4);
  require_values(model->weight, {1.5, -2.0, 0.5}, 1e-2);
  require_values(model->bias, {0.25}, 1e-2);
  REQUIRE(sched.get_last_lr()[0] == Approx(0.05 * 0.125));
}

// ---- counters read back from files (issue #22) ----

TEST_CASE("a step count of another dtype, out of range or about to overflow is refused",
          "[optim]") {
  const int64_t max = std::numeric_limits<int64_t>::max();
  for (int kind = 0; kind < 4; ++kind) {
    Tensor x = leaf(kX0);
    const std::vector<Tensor> params{x};
    std::unique_ptr<optim::Optimizer> opt;
    if (kind == 0) opt = std::make_unique<optim::Adam>(params, optim::AdamOptions(0.1));
    if (kind == 1) opt = std::make_unique<optim::AdamW>(params, optim::AdamWOptions(0.1));
    if (kind == 2) opt = std::make_unique<optim::Adagrad>(params, optim::AdagradOptions(0.1));
    if (kind == 3) opt = std::make_unique<optim::RMSprop>(params, optim::RMSpropOptions(0.1));
    const char* names[] = {"Adam", "AdamW", "Adagrad", "RMSprop"};
    const std::string field = std::string(names[kind]) + ".load_state_dict: field 'state.0.step'";
    INFO(field);
    run(*opt, x, 1);
    optim::TensorDict d = opt->state_dict();
    const auto load_with = [&](const Tensor& step) {
      d.insert_or_assign("state.0.step", step);
      opt->load_state_dict(d);
    };
    // A float step would go through a float-to-integer conversion, undefined for NaN.
    REQUIRE_THROWS_WITH(
        load_with(tensor(std::nan(""), kDouble)),
        Catch::Contains(field + ": has dtype float64, but a counter is saved as int64"));
    REQUIRE_THROWS_WITH(load_with(tensor({int64_t(1), int64_t(2)}, kLong)),
                        Catch::Contains(field + ": has shape [2], but a counter is one number"));
    REQUIRE_THROWS_WITH(load_with(tensor(int64_t(-1), kLong)),
                        Catch::Contains(field + ": value -1 is outside the range [0, " +
                                        std::to_string(max - 1) + "]"));
    // step() adds 1: INT64_MAX would overflow, INT64_MAX - 1 is the last that does not.
    REQUIRE_THROWS_WITH(load_with(tensor(max, kLong)),
                        Catch::Contains(field + ": value " + std::to_string(max) + " is outside"));
    load_with(tensor(max - 1, kLong));
    run(*opt, x, 1);
    REQUIRE(opt->state_dict()["state.0.step"].item<int64_t>() == max);
  }
}

TEST_CASE("loading an optimizer file with a NaN step names the file and the field", "[optim]") {
  ember_test::TempDir dir("optim_test");
  Tensor x = leaf(kX0);
  optim::Adam opt({x}, optim::AdamOptions(0.1));
  run(opt, x, 1);
  optim::TensorDict d = opt.state_dict();
  d.insert_or_assign("state.0.step", tensor(std::nan(""), kDouble));  // as a fuzzer's F64 NaN
  const std::string path = dir.file("adam.safetensors");
  save_safetensors(path, d, {{"format", "pt"}});
  REQUIRE_THROWS_WITH(load(opt, path),
                      Catch::Contains("load: '" + path + "': Adam.load_state_dict: field "
                                      "'state.0.step': has dtype float64"));
  REQUIRE(opt.state_dict()["state.0.step"].item<int64_t>() == 1);  // unchanged
}

TEST_CASE("parse_counter reads whole decimal int64 text within its range", "[optim]") {
  REQUIRE(parse_counter("2811", "sec", "step") == 2811);
  REQUIRE(parse_counter("-1", "sec", "epoch", {.min = -1}) == -1);
  REQUIRE_THROWS_WITH(parse_counter("3.0", "sec", "step", {}, "ck.safetensors"),
                      Catch::Contains("sec: field 'step' of 'ck.safetensors': '3.0' is not an "
                                      "int64 integer"));
  REQUIRE_THROWS_WITH(parse_counter("", "sec", "step"), Catch::Contains("is not an int64"));
  REQUIRE_THROWS_WITH(parse_counter("99999999999999999999", "sec", "step"),
                      Catch::Contains("is not an int64"));
  REQUIRE_THROWS_WITH(parse_counter("9223372036854775807", "sec", "step"),
                      Catch::Contains("sec: field 'step': value 9223372036854775807 is outside"));
  REQUIRE_THROWS_WITH(read_counter(nullptr, "sec", "step"),
                      Catch::Contains("sec: field 'step': missing"));
}
