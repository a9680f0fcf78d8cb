// amp::GradScaler (nn/amp/grad_scaler.h): scaled losses give scaled gradients and unscale_
// divides them back; an inf or NaN gradient skips the step and halves the scale; growth after
// growth_interval clean steps; the order errors; clipping after unscale_; the state round trip.
#include "test_helpers.h"

#include <cmath>

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
