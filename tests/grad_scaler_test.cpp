// amp::GradScaler (nn/amp/grad_scaler.h): scaled losses give scaled gradients and unscale_
// divides them back; an inf or NaN gradient skips the step and halves the scale; growth after
// growth_interval clean steps; the order errors; clipping after unscale_; the state round trip.
#include "test_helpers.h"

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

using namespace ember;

namespace {

// loss = sum(w * x) over a parameter w: its gradient is x, whatever w holds.
struct Problem {
  Tensor w = tensor({1.0f, 2.0f, 3.0f}).requires_grad_();
  Tensor x = tensor({0.5f, -1.0f, 4.0f});
  optim::SGD sgd{std::vector<Tensor>{w}, optim::SGDOptions(0.1)};
  Tensor loss() const { return (w * x).sum(); }
};

// One training step through the scaler.
void scaled_step(Problem& p, amp::GradScaler& scaler) {
  p.sgd.zero_grad();
  scaler.scale(p.loss()).backward();
  scaler.step(p.sgd);
  scaler.update();
}

}  // namespace

TEST_CASE("GradScaler scales the loss by 2^16 and unscale_ divides the gradients back", "[amp]") {
  Problem p;
  amp::GradScaler scaler;
  CHECK(scaler.get_scale() == 65536.0);
  scaler.scale(p.loss()).backward();
  CHECK(ember_test::values(p.w.grad()) == std::vector<double>{32768.0, -65536.0, 262144.0});
  scaler.unscale_(p.sgd);
  CHECK(ember_test::values(p.w.grad()) == std::vector<double>{0.5, -1.0, 4.0});
  // Clipping after unscale_ sees the true gradients: norm sqrt(0.25 + 1 + 16).
  CHECK(nn::utils::clip_grad_norm_({p.w}, 1e9) == Approx(std::sqrt(17.25)));
  scaler.step(p.sgd);  // no second unscale
  // w -= 0.1 * (0.5, -1, 4), in float32.
  CHECK(ember_test::values(p.w) ==
        std::vector<double>{1.0f - 0.05f, 2.0f + 0.1f, 3.0f - 0.4f});
  scaler.update();
  CHECK(scaler.get_scale() == 65536.0);
  CHECK(scaler.get_growth_tracker() == 1);
}

TEST_CASE("GradScaler skips a step with an inf or NaN gradient and halves the scale", "[amp]") {
  for (float bad : {INFINITY, NAN}) {
    Problem p;
    amp::GradScaler scaler;
    scaler.scale(p.loss()).backward();
    p.w.grad().index_put_({tensor({1}, kLong)}, full({1}, bad));
    const std::vector<double> before = ember_test::values(p.w);
    CHECK_FALSE(scaler.step(p.sgd).defined());
    CHECK(ember_test::values(p.w) == before);  // parameters unchanged
    scaler.update();
    CHECK(scaler.get_scale() == 32768.0);
    CHECK(scaler.get_growth_tracker() == 0);
  }
}

TEST_CASE("GradScaler doubles the scale after 2000 clean steps in a row", "[amp]") {
  Problem p;
  amp::GradScaler scaler;
  for (int i = 0; i < 1999; ++i) scaled_step(p, scaler);
  CHECK(scaler.get_scale() == 65536.0);
  CHECK(scaler.get_growth_tracker() == 1999);
  scaled_step(p, scaler);
  CHECK(scaler.get_scale() == 131072.0);
  CHECK(scaler.get_growth_tracker() == 0);
  scaler.update(8.0);  // an explicit scale
  CHECK(scaler.get_scale() == 8.0);
}

TEST_CASE("GradScaler refuses calls out of order", "[amp]") {
  Problem p;
  amp::GradScaler scaler;
  scaler.scale(p.loss()).backward();
  scaler.unscale_(p.sgd);
  CHECK_THROWS_WITH(scaler.unscale_(p.sgd), Catch::Contains("unscale_() has already been called"));
  scaler.step(p.sgd);
  CHECK_THROWS_WITH(scaler.step(p.sgd), Catch::Contains("step() has already been called"));
  CHECK_THROWS_WITH(scaler.unscale_(p.sgd), Catch::Contains("unscale_() is being called after step()"));
  scaler.update();
  CHECK_NOTHROW(scaler.unscale_(p.sgd));
  CHECK_THROWS_WITH(amp::GradScaler(amp::GradScalerOptions().backoff_factor(1.5)),
                    Catch::Contains("backoff_factor must be in (0, 1)"));
}

TEST_CASE("GradScaler's state round-trips; a disabled scaler changes nothing", "[amp]") {
  Problem p;
  amp::GradScaler scaler(amp::GradScalerOptions().init_scale(1024).growth_interval(3));
  for (int i = 0; i < 4; ++i) scaled_step(p, scaler);
  CHECK(scaler.get_scale() == 2048.0);
  CHECK(scaler.get_growth_tracker() == 1);
  amp::GradScaler resumed;
  resumed.load_state_dict(scaler.state_dict());
  CHECK(resumed.get_scale() == 2048.0);
  CHECK(resumed.get_growth_tracker() == 1);
  CHECK(resumed.options().growth_interval() == 3);
  CHECK(resumed.state_dict().keys() ==
        std::vector<std::string>{"scale", "growth_factor", "backoff_factor", "growth_interval", "_growth_tracker"});

  amp::GradScaler off(amp::GradScalerOptions().enabled(false));
  const Tensor loss = p.loss();
  CHECK(off.scale(loss).is_same(loss));
  CHECK(off.get_scale() == 1.0);
}

namespace {

using MakeOptimizer = std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor>)>;

// Every optimizer that skips on the device, with the options whose rule
// depends on the step count or on the momentum buffer's first step.
template <typename Opt, typename Options>
MakeOptimizer maker(Options options) {
  return [options](std::vector<Tensor> p) -> std::unique_ptr<optim::Optimizer> {
    return std::make_unique<Opt>(std::move(p), options);
  };
}

std::vector<std::pair<std::string, MakeOptimizer>> gated_optimizers() {
  using namespace optim;
  return {
      {"SGD momentum dampening", maker<SGD>(SGDOptions(0.1).momentum(0.9).dampening(0.5))},
      {"SGD nesterov weight_decay",
       maker<SGD>(SGDOptions(0.1).momentum(0.9).nesterov(true).weight_decay(0.1))},
      {"SGD plain", maker<SGD>(SGDOptions(0.1))},
      {"Adam weight_decay", maker<Adam>(AdamOptions(0.01).weight_decay(0.1))},
      {"Adam amsgrad", maker<Adam>(AdamOptions(0.01).amsgrad(true))},
      {"AdamW", maker<AdamW>(AdamWOptions(0.01).weight_decay(0.1))},
      {"RMSprop momentum centered",
       maker<RMSprop>(RMSpropOptions(0.01).momentum(0.9).centered(true))},
      {"Adagrad lr_decay", maker<Adagrad>(AdagradOptions(0.1).lr_decay(0.5))},
  };
}

// The gradient of step k: dyadic numbers, so scaling by a power of two and
// unscaling are exact and the scaled run can be held to bit equality.
Tensor gradient_of_step(int k) {
  return tensor({0.5f * static_cast<float>(k + 1), -1.25f, 0.375f * static_cast<float>(k % 3)});
}

}  // namespace

TEST_CASE("GradScaler's skipped steps leave every optimizer where a run without them would be",
          "[amp]") {
  // The scaled run: skip, clean, clean, skip, clean (the first step skipped:
  // SGD's momentum buffer starts on the second; Adam's bias corrections count
  // only the clean steps). The reference: the three clean steps, unscaled.
  const std::vector<bool> skips = {true, false, false, true, false};
  for (const auto& [name, make] : gated_optimizers()) {
    INFO(name);
    Tensor w = tensor({1.0f, 2.0f, -3.0f}).requires_grad_();
    Tensor ref = w.detach().clone().requires_grad_();
    auto opt = make({w});
    auto ref_opt = make({ref});
    amp::GradScaler scaler;
    int clean = 0;
    for (bool skip : skips) {
      const Tensor g = gradient_of_step(clean);
      opt->zero_grad();
      scaler.scale((w * g).sum()).backward();
      if (skip) w.mutable_grad().index_put_({tensor({1}, kLong)}, full({1}, INFINITY));
      const std::vector<double> before = ember_test::values(w);
      scaler.step(*opt);
      scaler.update();
      if (skip) {
        CHECK(ember_test::values(w) == before);
        continue;
      }
      ref_opt->zero_grad();
      (ref * g).sum().backward();
      ref_opt->step();
      ++clean;
      CHECK(ember_test::values(w) == ember_test::values(ref));
    }
    CHECK(scaler.get_scale() == 16384.0);  // halved twice
    // The step counts moved to the "device" (here the CPU) and count the clean steps only.
    const auto state_of = [](optim::Optimizer& o, const Tensor& p) -> optim::OptimizerParamState* {
      auto it = o.state().find(p.unsafeGetTensorImpl());
      return it == o.state().end() ? nullptr : it->second.get();
    };
    if (auto* s = dynamic_cast<optim::AdamParamState*>(state_of(*opt, w))) {
      CHECK(s->step_count().on_device());
      CHECK(s->step() == 3);
      CHECK(opt->state_dict()["state.0.step"].item<int64_t>() == 3);
      // An ungated step brings the count back to the host.
      opt->step();
      CHECK_FALSE(s->step_count().on_device());
      CHECK(s->step() == 4);
    }
    if (auto* s = dynamic_cast<optim::AdagradParamState*>(state_of(*opt, w))) CHECK(s->step() == 3);
    if (auto* s = dynamic_cast<optim::RMSpropParamState*>(state_of(*opt, w))) CHECK(s->step() == 3);
  }
}

TEST_CASE("SGD's momentum buffer starts at the first step that runs, gated or not", "[amp]") {
  // Every gated step skipped, then an ordinary step: that one is the buffer's
  // first (buf = g), as it would be on a fresh parameter.
  for (bool ungated_after : {false, true}) {
    Tensor w = tensor({1.0f}).requires_grad_();
    optim::SGD sgd({w}, optim::SGDOptions(0.5).momentum(0.9).dampening(0.5));
    w.set_grad(tensor({2.0f}));
    sgd.step_unless(tensor(1.0f));
    sgd.step_unless(tensor(1.0f));
    CHECK(ember_test::values(w) == std::vector<double>{1.0});
    if (ungated_after)
      sgd.step();
    else
      sgd.step_unless(tensor(0.0f));
    CHECK(ember_test::values(w) == std::vector<double>{1.0 - 0.5 * 2.0});  // buf = g = 2
    sgd.step();  // buf = 0.9 * 2 + (1 - 0.5) * 2, in float32
    const float buf = 0.9f * 2.0f + 0.5f * 2.0f;
    CHECK(ember_test::values(w) == std::vector<double>{0.0f - 0.5f * buf});
  }
}

namespace {

// An optimizer written outside ember: it cannot skip on the device, so
// step_unless reads the flag on the host.
struct SignOptions : optim::OptimizerCloneableOptions<SignOptions> {
  explicit SignOptions(double lr) : OptimizerCloneableOptions(lr) {}
};
struct NoState : optim::OptimizerParamState {
  void serialize(optim::StateArchive&) override {}
};
class SignDescent : public optim::Optimizer {
 public:
  explicit SignDescent(std::vector<Tensor> params)
      : Optimizer(std::make_unique<SignOptions>(0.5)) {
    add_initial_groups({optim::OptimizerParamGroup(std::move(params))});
  }
  Tensor step(LossClosure) override {
    NoGradGuard no_grad;
    for (Tensor& p : param_groups()[0].params()) p.sub_(p.grad().sign() * 0.5);
    return {};
  }

 protected:
  const char* name() const override { return "SignDescent"; }
  void check_options(const optim::OptimizerOptions&) const override {}
  std::unique_ptr<optim::OptimizerParamState> make_state() const override {
    return std::make_unique<NoState>();
  }
};

}  // namespace

TEST_CASE("step_unless reads the flag on the host for optimizers that cannot skip on the device",
          "[amp]") {
  Tensor w = tensor({1.0f, -1.0f}).requires_grad_();
  SignDescent opt({w});
  CHECK_FALSE(opt.can_skip_on_device());
  w.set_grad(tensor({3.0f, -2.0f}));
  opt.step_unless(tensor(1.0f));
  CHECK(ember_test::values(w) == std::vector<double>{1.0, -1.0});
  opt.step_unless(tensor(0.0f));
  CHECK(ember_test::values(w) == std::vector<double>{0.5, -0.5});

  amp::GradScaler scaler;
  opt.zero_grad();
  scaler.scale((w * tensor({1.0f, INFINITY})).sum()).backward();
  scaler.step(opt);
  CHECK(ember_test::values(w) == std::vector<double>{0.5, -0.5});
  scaler.update();
  CHECK(scaler.get_scale() == 32768.0);

  CHECK_THROWS_WITH(opt.step_unless(full({}, 1.0, kDouble)),
                    Catch::Contains("SignDescent.step_unless: found_inf must be a one-element "
                                    "float32 tensor"));
  optim::Adam adam({w}, optim::AdamOptions());
  w.set_grad(ones({2}));
  CHECK_THROWS_WITH(adam.step_unless(zeros({2})),
                    Catch::Contains("Adam.step_unless: found_inf must be a one-element float32"));
}
