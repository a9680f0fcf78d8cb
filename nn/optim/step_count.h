#pragma once
// How many steps a parameter has taken: Adam's bias corrections, Adagrad's
// learning-rate decay and SGD's first momentum step depend on it. An int64 on
// the host, until a step is gated on the device (Note [Steps skipped on the
// device], optimizer.h): the host cannot know whether such a step ran, so the
// count moves to a 0-dim int64 tensor on the parameter's device, advanced
// there by the steps that ran. get() then reads it back (a host sync on
// CUDA); set() and the next ungated step bring it back to the host.
#include <cstdint>

#include "ember/core/tensor.h"

namespace ember::optim {

class StepCount {
 public:
  int64_t get() const;
  void set(int64_t value);
  bool on_device() const { return device_.defined(); }

  // An ungated step: the count plus one, on the host; returns it.
  int64_t advance();
  // A gated step: the count on found_inf's device (copied there on first
  // use), plus one unless found_inf is set, decided there; returns it.
  const Tensor& advance_unless(const Tensor& found_inf);

 private:
  int64_t host_ = 0;
  Tensor device_;  // int64 0-dim; defined while the count lives on the device
};

}  // namespace ember::optim

// A state type's step count with libtorch's accessors (s.step(), s.step(n)),
// kept in a StepCount (step_count()).
#define EMBER_OPTIM_STEP_COUNT(State)                          \
 public:                                                       \
  int64_t step() const { return step_.get(); }                 \
  State& step(int64_t v) {                                     \
    step_.set(v);                                              \
    return *this;                                              \
  }                                                            \
  ::ember::optim::StepCount& step_count() { return step_; }   \
                                                               \
 private:                                                      \
  ::ember::optim::StepCount step_
