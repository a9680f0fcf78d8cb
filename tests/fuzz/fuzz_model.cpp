#include "fuzz_model.h"

namespace ember::fuzz {

Trainee make_trainee() {
  manual_seed(7);
  Trainee t;
  t.model = nn::Sequential(nn::Conv2d(nn::Conv2dOptions(1, 2, 3)), nn::BatchNorm2d(2),
                           nn::ReLU(), nn::Flatten(), nn::Linear(8, 3));
  t.optimizer = std::make_unique<optim::Adam>(t.model->parameters(),
                                              optim::AdamOptions(1e-3));
  t.scheduler = std::make_unique<optim::StepLR>(*t.optimizer, /*step_size=*/2);
  return t;
}

void train_step(Trainee& t) {
  // x: (N=2, C=1, H=4, W=4) -> conv 3x3 -> (2, 2, 2, 2) -> flatten (2, 8) -> (2, 3)
  const Tensor x = arange(32, kFloat).reshape({2, 1, 4, 4}).div(32);
  const Tensor y = tensor({int64_t{0}, int64_t{2}});
  t.optimizer->zero_grad();
  nn::functional::cross_entropy(t.model->forward(x), y).backward();
  t.optimizer->step();
  t.scheduler->step();
}

Checkpoint checkpoint_of(const Trainee& t) {
  Checkpoint ck;
  ck.section("model") = state_dict(*t.model);
  ck.section("optimizer") = t.optimizer->state_dict();
  ck.section("scheduler") = t.scheduler->state_dict();
  ck.section("rng") = rng_state();
  ck.metadata = {{"epoch", "1"}, {"step", "3"}};
  return ck;
}

void restore(Trainee& t, const Checkpoint& ck, const std::string& source) {
  load_state_dict(*t.model, ck.section("model"), /*strict=*/true, source);
  t.optimizer->load_state_dict(ck.section("optimizer"));
  t.scheduler->load_state_dict(ck.section("scheduler"));
  set_rng_state(ck.section("rng"));
}

}  // namespace ember::fuzz
