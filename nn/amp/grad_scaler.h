#pragma once
// amp::GradScaler: loss scaling for float16 training, as torch.cuda.amp.GradScaler
// (libtorch has no C++ one). float16 gradients underflow where float32 ones
// would not; scaling the loss by S scales every gradient by S, and the
// scaler divides them back before the optimizer sees them:
//
//   amp::GradScaler scaler;
//   {
//     autocast::AutocastGuard guard(kCUDA, kHalf);
//     loss = criterion(model->forward(x), y);
//   }
//   scaler.scale(loss).backward();
//   scaler.unscale_(optimizer);              // optional: clip the true gradients here
//   clip_grad_norm_(model->parameters(), 1.0);
//   scaler.step(optimizer);                  // skipped when a gradient is inf or NaN
//   scaler.update();                         // S halves after a skip, doubles after
//                                            // growth_interval clean steps
//
// The scale, the growth counter and the inf flag are tensors on the loss's
// device, and nothing the scaler does per step waits for them on the host:
// update() computes the next scale there, and step() hands the flag to
// Optimizer::step_unless, whose fused updates skip on the device (Note [Steps
// skipped on the device]: SGD, Adam, AdamW, RMSprop, Adagrad; other
// optimizers read the flag back, a host sync on CUDA). PyTorch's step()
// syncs. bfloat16 has float32's range and needs no scaler.
#include <cstdint>
#include <optional>
#include <unordered_map>

#include "ember/core/tensor.h"
#include "ember/nn/optim/optimizer.h"

namespace ember::amp {

struct GradScalerOptions {
  GradScalerOptions& init_scale(double v) { init_scale_ = v; return *this; }
  GradScalerOptions& growth_factor(double v) { growth_factor_ = v; return *this; }
  GradScalerOptions& backoff_factor(double v) { backoff_factor_ = v; return *this; }
  GradScalerOptions& growth_interval(int64_t v) { growth_interval_ = v; return *this; }
  GradScalerOptions& enabled(bool v) { enabled_ = v; return *this; }
  double init_scale() const { return init_scale_; }
  double growth_factor() const { return growth_factor_; }
  double backoff_factor() const { return backoff_factor_; }
  int64_t growth_interval() const { return growth_interval_; }
  bool enabled() const { return enabled_; }

 private:
  double init_scale_ = 65536.0;  // 2^16, PyTorch's defaults throughout
  double growth_factor_ = 2.0;
  double backoff_factor_ = 0.5;
  int64_t growth_interval_ = 2000;
  bool enabled_ = true;
};

class GradScaler {
 public:
  explicit GradScaler(GradScalerOptions options = {});

  // outputs * the scale (outputs' dtype); outputs unchanged when disabled.
  Tensor scale(const Tensor& outputs);
  // Divides the gradients of optimizer's parameters by the scale, in place,
  // and notes whether any is inf or NaN. Error when called twice for one
  // optimizer before update(), or after step().
  void unscale_(optim::Optimizer& optimizer);
  // unscale_ (unless done), then optimizer.step() unless a gradient was inf
  // or NaN, decided on the device (Optimizer::step_unless); returns step's
  // result (undefined: no closure). Error when called twice before update().
  Tensor step(optim::Optimizer& optimizer);
  // The scale for the next iteration: times backoff_factor after a skipped
  // step (and the clean-step count back to 0), times growth_factor after
  // growth_interval clean steps in a row; or new_scale.
  void update(std::optional<double> new_scale = std::nullopt);

  bool is_enabled() const { return options_.enabled(); }
  // The current scale (reads it back: a host sync on CUDA).
  double get_scale() const;
  int64_t get_growth_tracker() const;
  const GradScalerOptions& options() const { return options_; }

  // "scale", "growth_factor", "backoff_factor", "growth_interval",
  // "_growth_tracker": PyTorch's keys, as 0-dim tensors.
  OrderedDict<std::string, Tensor> state_dict() const;
  void load_state_dict(const OrderedDict<std::string, Tensor>& state);

 private:
  enum class Stage { kReady, kUnscaled, kStepped };
  struct PerOptimizer {
    Stage stage = Stage::kReady;
    Tensor found_inf;  // float32 0-dim, 1 when a gradient was inf or NaN
  };

  void ensure_state(Device device);
  PerOptimizer& state_of(optim::Optimizer& optimizer) { return per_optimizer_[&optimizer]; }

  GradScalerOptions options_;
  Tensor scale_;           // float32 0-dim, on the device of the first scaled output
  Tensor growth_tracker_;  // int64 0-dim: clean steps since the scale last changed
  std::unordered_map<const optim::Optimizer*, PerOptimizer> per_optimizer_;
};

}  // namespace ember::amp
