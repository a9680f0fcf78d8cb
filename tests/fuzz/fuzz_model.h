#pragma once
// The small training setup that the checkpoint and safetensors harnesses load
// into and that make_fuzz_seeds saves from: Conv2d + BatchNorm2d + ReLU +
// Flatten + Linear, Adam, StepLR. A loaded file runs one training step, so a
// state that loads but breaks the next step is found too.
#include <memory>

#include <ember/ember.h>

namespace ember::fuzz {

struct Trainee {
  nn::Sequential model;
  std::unique_ptr<optim::Adam> optimizer;
  std::unique_ptr<optim::StepLR> scheduler;
};

Trainee make_trainee();
// Forward on a fixed batch, cross-entropy, backward, optimizer and scheduler step.
void train_step(Trainee& t);
// Sections model, optimizer, scheduler and rng, as the sample trainer writes them.
Checkpoint checkpoint_of(const Trainee& t);
// What a resume does with a checkpoint; raises ember::Error on a bad one.
void restore(Trainee& t, const Checkpoint& ck, const std::string& source);

}  // namespace ember::fuzz
