// Learning-rate schedulers (nn/optim/schedulers): each lr sequence against
// its formula written in the test, momentum cycling, ReduceLROnPlateau's
// patience and cooldown, state_dict round trips and the argument checks.
#include "test_helpers.h"

#include <ember/nn/optim/optim.h>

#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

using namespace ember;

namespace {

constexpr double kPi = std::numbers::pi;

// Two groups with base lrs 0.1 and 0.02, so per-group formulas are exercised.
struct TwoGroups {
  Tensor x = zeros({2}, kDouble).requires_grad_(), y = zeros({3}, kDouble).requires_grad_();
  optim::SGD opt{std::vector<optim::OptimizerParamGroup>{
                     optim::OptimizerParamGroup({x}),
                     optim::OptimizerParamGroup({y}, std::make_unique<optim::SGDOptions>(0.02))},
                 optim::SGDOptions(0.1)};
};

double group_lr(optim::Optimizer& opt, size_t g) { return opt.param_groups()[g].options().lr(); }

// Steps the scheduler `epochs` times and checks, before each step and after
// the last, that every group's lr is want(base_lr, epoch).
void check_sequence(optim::LRScheduler& sched, optim::Optimizer& opt, int epochs,
                    const std::function<double(double, int)>& want) {
  const std::vector<double> base = {0.1, 0.02};
  for (int e = 0; e <= epochs; ++e) {
    INFO("epoch " << e);
    REQUIRE(sched.last_epoch() == e);
    for (size_t g = 0; g < base.size(); ++g) {
      INFO("group " << g);
      REQUIRE(group_lr(opt, g) == Approx(want(base[g], e)).epsilon(1e-12).margin(1e-15));
      REQUIRE(sched.get_last_lr()[g] == group_lr(opt, g));
    }
    if (e < epochs) sched.step();
  }
}

}  // namespace

TEST_CASE("StepLR multiplies by gamma every step_size epochs", "[optim][scheduler]") {
  TwoGroups t;
  optim::StepLR sched(t.opt, 3, 0.5);
  // lr = base * gamma^floor(epoch / step_size)
  check_sequence(sched, t.opt, 10, [](double base, int e) { return base * std::pow(0.5, e / 3); });
}

TEST_CASE("MultiStepLR multiplies by gamma at each milestone, given in any order",
          "[optim][scheduler]") {
  TwoGroups t;
  optim::MultiStepLR sched(t.opt, {6, 2, 6}, 0.1);
  // lr = base * gamma^(milestones <= epoch); 6 is listed twice, so it counts twice.
  check_sequence(sched, t.opt, 8, [](double base, int e) {
    return base * std::pow(0.1, (e >= 2) + 2 * (e >= 6));
  });
}

TEST_CASE("ExponentialLR multiplies by gamma every epoch", "[optim][scheduler]") {
  TwoGroups t;
  optim::ExponentialLR sched(t.opt, 0.9);
  check_sequence(sched, t.opt, 7, [](double base, int e) { return base * std::pow(0.9, e); });
}

TEST_CASE("CosineAnnealingLR follows the closed form, also past T_max", "[optim][scheduler]") {
  TwoGroups t;
  optim::CosineAnnealingLR sched(t.opt, 5, 0.001);
  // lr = eta_min + (base - eta_min) * (1 + cos(pi * epoch / T_max)) / 2
  check_sequence(sched, t.opt, 12, [](double base, int e) {
    return 0.001 + (base - 0.001) * (1 + std::cos(kPi * e / 5)) / 2;
  });
  // At T_max it reaches eta_min; at 2 T_max it is back at the base lr.
}

TEST_CASE("LinearLR warms up from start_factor to end_factor, then holds", "[optim][scheduler]") {
  TwoGroups t;
  optim::LinearLR sched(t.opt, 0.25, 1.0, 4);
  // lr = base * (start + (end - start) * min(epoch, total_iters) / total_iters)
  check_sequence(sched, t.opt, 7, [](double base, int e) {
    return base * (0.25 + 0.75 * std::min(e, 4) / 4.0);
  });
}

TEST_CASE("LinearLR's defaults are PyTorch's: 1/3 to 1 over 5 steps", "[optim][scheduler]") {
  TwoGroups t;
  optim::LinearLR sched(t.opt);
  REQUIRE(group_lr(t.opt, 0) == Approx(0.1 / 3));
  for (int e = 0; e < 5; ++e) sched.step();
  REQUIRE(group_lr(t.opt, 0) == Approx(0.1));
}

namespace {

double cos_anneal(double start, double end, double pct) {
  return end + (start - end) / 2 * (std::cos(kPi * pct) + 1);
}
double linear_anneal(double start, double end, double pct) { return start + (end - start) * pct; }

}  // namespace

TEST_CASE("OneCycleLR (cos, two phases) goes initial -> max -> min and cycles SGD's momentum",
          "[optim][scheduler]") {
  Tensor x = zeros({2}, kDouble).requires_grad_();
  optim::SGD opt({x}, optim::SGDOptions(0.5).momentum(0.9));
  const int n = 20;
  optim::OneCycleLR sched(opt, optim::OneCycleLROptions(1.0, n).pct_start(0.25).div_factor(10)
                                   .final_div_factor(100));
  // initial = max / div = 0.1, min = initial / final_div = 0.001. Phase 1 ends
  // at step pct*n - 1 = 4 (lr up, momentum 0.95 -> 0.85), phase 2 at n - 1 = 19.
  for (int s = 0; s < n; ++s) {
    INFO("step " << s);
    const bool up = s <= 4;
    const double pct = up ? s / 4.0 : (s - 4) / 15.0;
    const double lr = up ? cos_anneal(0.1, 1.0, pct) : cos_anneal(1.0, 0.001, pct);
    const double momentum = up ? cos_anneal(0.95, 0.85, pct) : cos_anneal(0.85, 0.95, pct);
    const auto& o = static_cast<const optim::SGDOptions&>(opt.param_groups()[0].options());
    REQUIRE(o.lr() == Approx(lr).epsilon(1e-12));
    REQUIRE(o.momentum() == Approx(momentum).epsilon(1e-12));
    sched.step();
  }
  REQUIRE(sched.get_last_lr()[0] > 0.001);  // step n: past the end of the last phase
  REQUIRE_THROWS_WITH(sched.step(),
                      Catch::Contains("OneCycleLR: tried to step 21 times; total_steps is 20"));
}

TEST_CASE("OneCycleLR (linear, three phases) returns to the initial lr before annealing",
          "[optim][scheduler]") {
  Tensor x = zeros({2}, kDouble).requires_grad_();
  optim::Adam opt({x}, optim::AdamOptions(0.5).betas({0.9, 0.99}));
  const int n = 30;
  optim::OneCycleLR sched(opt, optim::OneCycleLROptions(0.4, n)
                                   .anneal_strategy(optim::AnnealStrategy::linear)
                                   .three_phase(true));
  // Defaults: pct_start 0.3, div 25, final_div 1e4: initial 0.016, min 1.6e-6.
  // Phase ends: 0.3n - 1 = 8, 2*0.3n - 2 = 16, n - 1 = 29.
  const double init = 0.4 / 25, min_lr = init / 1e4;
  for (int s = 0; s < n; ++s) {
    INFO("step " << s);
    double lr, beta1;
    if (s <= 8) {
      lr = linear_anneal(init, 0.4, s / 8.0);
      beta1 = linear_anneal(0.95, 0.85, s / 8.0);
    } else if (s <= 16) {
      lr = linear_anneal(0.4, init, (s - 8) / 8.0);
      beta1 = linear_anneal(0.85, 0.95, (s - 8) / 8.0);
    } else {
      lr = linear_anneal(init, min_lr, (s - 16) / 13.0);
      beta1 = 0.95;
    }
    const auto& o = static_cast<const optim::AdamOptions&>(opt.param_groups()[0].options());
    REQUIRE(o.lr() == Approx(lr).epsilon(1e-12).margin(1e-15));
    REQUIRE(std::get<0>(o.betas()) == Approx(beta1).epsilon(1e-12));
    REQUIRE(std::get<1>(o.betas()) == 0.99);  // beta2 is left alone
    sched.step();
  }
}

TEST_CASE("OneCycleLR takes one max_lr per group and can leave momentum alone",
          "[optim][scheduler]") {
  TwoGroups t;
  optim::OneCycleLR sched(t.opt, optim::OneCycleLROptions({1.0, 0.5}, 10).cycle_momentum(false));
  REQUIRE(group_lr(t.opt, 0) == Approx(1.0 / 25));
  REQUIRE(group_lr(t.opt, 1) == Approx(0.5 / 25));
  REQUIRE(sched.base_lrs() == std::vector<double>{1.0 / 25, 0.5 / 25});
  REQUIRE(static_cast<const optim::SGDOptions&>(t.opt.param_groups()[0].options()).momentum() == 0);
  REQUIRE_THROWS_WITH(optim::OneCycleLR(t.opt, optim::OneCycleLROptions({1.0, 2.0, 3.0}, 10)),
                      Catch::Contains("OneCycleLR: got 3 max_lr values for 2 parameter groups"));
  REQUIRE_THROWS_WITH(optim::OneCycleLR(t.opt, optim::OneCycleLROptions(1.0, 0)),
                      Catch::Contains("OneCycleLR: total_steps must be positive, got 0"));
  REQUIRE_THROWS_WITH(optim::OneCycleLR(t.opt, optim::OneCycleLROptions(1.0, 10).pct_start(1.5)),
                      Catch::Contains("OneCycleLR: pct_start must be in [0, 1], got 1.5"));
}

TEST_CASE("ReduceLROnPlateau cuts the lr after patience bad steps, then cools down",
          "[optim][scheduler]") {
  TwoGroups t;
  optim::ReduceLROnPlateau sched(t.opt, optim::ReduceLROnPlateau::min, 0.5, /*patience=*/2,
                                 /*threshold=*/0.1, optim::ReduceLROnPlateau::rel,
                                 /*cooldown=*/1, /*min_lr=*/{0.0, 0.008});
  // Improvement (min, rel): metric < best * (1 - 0.1).
  struct Row {
    double metric, lr0, lr1;
  };
  const std::vector<Row> rows = {
      {10.0, 0.1, 0.02},    // best 10
      {9.5, 0.1, 0.02},     // not < 9: bad 1
      {9.2, 0.1, 0.02},     // bad 2
      {9.1, 0.05, 0.01},    // bad 3 > patience: cut; cooldown 1, bad 0
      {9.0, 0.05, 0.01},    // cooldown: bad reset to 0, counter 0
      {9.0, 0.05, 0.01},    // bad 1
      {8.0, 0.05, 0.01},    // 8 < 9: best 8, bad 0
      {8.0, 0.05, 0.01},    // bad 1
      {8.0, 0.05, 0.01},    // bad 2
      {8.0, 0.025, 0.008},  // bad 3: cut; group 1 stops at min_lr 0.008
  };
  for (size_t i = 0; i < rows.size(); ++i) {
    INFO("step " << i + 1 << ", metric " << rows[i].metric);
    sched.step(rows[i].metric);
    REQUIRE(group_lr(t.opt, 0) == Approx(rows[i].lr0));
    REQUIRE(group_lr(t.opt, 1) == Approx(rows[i].lr1));
    REQUIRE(sched.get_last_lr() == std::vector<double>{group_lr(t.opt, 0), group_lr(t.opt, 1)});
  }
  REQUIRE(sched.last_epoch() == 10);
  REQUIRE(sched.best() == 8.0);
}

TEST_CASE("ReduceLROnPlateau in max mode with an absolute threshold", "[optim][scheduler]") {
  TwoGroups t;
  optim::ReduceLROnPlateau sched(t.opt, optim::ReduceLROnPlateau::max, 0.1, /*patience=*/0,
                                 /*threshold=*/0.5, optim::ReduceLROnPlateau::abs);
  sched.step(1.0);  // best 1
  REQUIRE(group_lr(t.opt, 0) == Approx(0.1));
  sched.step(1.6);  // 1.6 > 1 + 0.5: best 1.6
  REQUIRE(group_lr(t.opt, 0) == Approx(0.1));
  sched.step(2.0);  // not > 2.1: bad 1 > patience 0: cut
  REQUIRE(group_lr(t.opt, 0) == Approx(0.01));
  REQUIRE(group_lr(t.opt, 1) == Approx(0.002));
}

TEST_CASE("ReduceLROnPlateau skips a cut smaller than eps", "[optim][scheduler]") {
  TwoGroups t;
  optim::ReduceLROnPlateau sched(t.opt, optim::ReduceLROnPlateau::min, 0.5, 0, 1e-4,
                                 optim::ReduceLROnPlateau::rel, 0, {}, /*eps=*/0.06);
  sched.step(1.0);
  sched.step(1.0);  // a cut, but of 0.05 and 0.01, both below eps: skipped
  REQUIRE(group_lr(t.opt, 0) == 0.1);
  REQUIRE(group_lr(t.opt, 1) == 0.02);
}

TEST_CASE("scheduler state_dict round trip continues the same sequence", "[optim][scheduler]") {
  TwoGroups a;
  optim::CosineAnnealingLR sched(a.opt, 10);
  for (int e = 0; e < 4; ++e) sched.step();
  const optim::TensorDict saved = sched.state_dict();
  REQUIRE(saved["last_epoch"].item<int64_t>() == 4);
  REQUIRE(saved["last_epoch"].dtype() == kLong);
  ember_test::require_values(saved["base_lrs"], {0.1, 0.02});
  sched.step();
  const double want = group_lr(a.opt, 0);

  TwoGroups b;
  optim::CosineAnnealingLR restored(b.opt, 10);
  restored.load_state_dict(saved);
  REQUIRE(restored.last_epoch() == 4);
  restored.step();
  REQUIRE(group_lr(b.opt, 0) == want);

  Tensor z = zeros({1}, kDouble).requires_grad_();
  optim::SGD one_group({z}, optim::SGDOptions(0.1));
  optim::StepLR other(one_group, 2);
  REQUIRE_THROWS_WITH(other.load_state_dict(saved),
                      Catch::Contains("'base_lrs' has shape [2], expected [1] (one value per "
                                      "parameter group)"));
}

TEST_CASE("ReduceLROnPlateau state_dict round trip keeps best and counters",
          "[optim][scheduler]") {
  TwoGroups a;
  optim::ReduceLROnPlateau sched(a.opt, optim::ReduceLROnPlateau::min, 0.5, 1);
  sched.step(3.0);
  sched.step(4.0);  // bad 1
  const optim::TensorDict saved = sched.state_dict();
  TwoGroups b;
  optim::ReduceLROnPlateau restored(b.opt, optim::ReduceLROnPlateau::min, 0.5, 1);
  restored.load_state_dict(saved);
  REQUIRE(restored.best() == 3.0);
  REQUIRE(restored.num_bad_epochs() == 1);
  REQUIRE(restored.last_epoch() == 2);
  restored.step(4.0);  // bad 2 > patience 1: cut
  REQUIRE(group_lr(b.opt, 0) == Approx(0.05));
}

TEST_CASE("scheduler arguments out of range are rejected", "[optim][scheduler]") {
  TwoGroups t;
  REQUIRE_THROWS_WITH(optim::StepLR(t.opt, 0), Catch::Contains("StepLR: step_size must be "
                                                               "positive, got 0"));
  REQUIRE_THROWS_WITH(optim::CosineAnnealingLR(t.opt, 0),
                      Catch::Contains("CosineAnnealingLR: T_max must be positive, got 0"));
  REQUIRE_THROWS_WITH(optim::LinearLR(t.opt, 0.0),
                      Catch::Contains("LinearLR: start_factor must be in (0, 1], got 0"));
  REQUIRE_THROWS_WITH(optim::LinearLR(t.opt, 0.5, 1.5),
                      Catch::Contains("LinearLR: end_factor must be in [0, 1], got 1.5"));
  REQUIRE_THROWS_WITH(optim::ReduceLROnPlateau(t.opt, optim::ReduceLROnPlateau::min, 1.0),
                      Catch::Contains("ReduceLROnPlateau: factor must be < 1.0, got 1"));
  REQUIRE_THROWS_WITH(optim::ReduceLROnPlateau(t.opt, optim::ReduceLROnPlateau::min, 0.1, 10,
                                               1e-4, optim::ReduceLROnPlateau::rel, 0,
                                               {0.1, 0.2, 0.3}),
                      Catch::Contains("got 3 min_lr values for 2 parameter groups"));
}

// ---- counters read back from files (issue #22) ----

TEST_CASE("a scheduler's last_epoch of another dtype or about to overflow is refused",
          "[optim][scheduler]") {
  const int64_t max = std::numeric_limits<int64_t>::max();
  TwoGroups a;
  optim::StepLR sched(a.opt, 2);
  optim::TensorDict d = sched.state_dict();
  const std::string field = "LRScheduler.load_state_dict: field 'last_epoch'";
  d.insert_or_assign("last_epoch", tensor(1e300, kDouble));  // no integer can hold it
  REQUIRE_THROWS_WITH(sched.load_state_dict(d), Catch::Contains(field + ": has dtype float64"));
  // step() adds 1 first: INT64_MAX would overflow. -1 (never stepped) is the lowest.
  d.insert_or_assign("last_epoch", tensor(max, kLong));
  REQUIRE_THROWS_WITH(sched.load_state_dict(d),
                      Catch::Contains(field + ": value " + std::to_string(max) +
                                      " is outside the range [-1, " + std::to_string(max - 1)));
  d.insert_or_assign("last_epoch", tensor(int64_t(-2), kLong));
  REQUIRE_THROWS_WITH(sched.load_state_dict(d), Catch::Contains(field + ": value -2 is outside"));
  REQUIRE(sched.last_epoch() == 0);  // unchanged by the failed loads
  d.insert_or_assign("last_epoch", tensor(max - 1, kLong));
  sched.load_state_dict(d);
  sched.step();
  REQUIRE(sched.last_epoch() == max);

  optim::ReduceLROnPlateau plateau(a.opt, optim::ReduceLROnPlateau::min, 0.5, 1);
  for (const char* key : {"last_epoch", "num_bad_epochs", "cooldown_counter"}) {
    INFO(key);
    optim::TensorDict p = plateau.state_dict();
    p.insert_or_assign(key, tensor(max, kLong));
    REQUIRE_THROWS_WITH(plateau.load_state_dict(p),
                        Catch::Contains("ReduceLROnPlateau.load_state_dict: field '" +
                                        std::string(key) + "': value " + std::to_string(max)));
    p.insert_or_assign(key, tensor(2.0, kFloat));
    REQUIRE_THROWS_WITH(plateau.load_state_dict(p), Catch::Contains("has dtype float32"));
  }
}
