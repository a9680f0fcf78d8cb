#pragma once
// L-BFGS, as torch::optim::LBFGS: a quasi-Newton method that builds its search
// direction from the last `history_size` steps and gradient changes. It
// evaluates the loss several times per step, so step() needs a closure:
//   ember::optim::LBFGS opt(params, ember::optim::LBFGSOptions(1).line_search_fn("strong_wolfe"));
//   opt.step([&] { opt.zero_grad(); Tensor l = loss_fn(); l.backward(); return l; });
// Every parameter forms one flat vector: one group only, one dtype and device.
// It reads losses and dot products on the host, so on CUDA each evaluation waits
// for the device.
#include <deque>
#include <optional>
#include <string>

#include "ember/nn/optim/optimizer.h"

namespace ember::optim {

struct LBFGSOptions : public OptimizerCloneableOptions<LBFGSOptions> {
  LBFGSOptions(double lr = 1) : OptimizerCloneableOptions(lr) {}  // NOLINT

  EMBER_OPTIM_ARG(int64_t, max_iter, 20);                  // iterations per step()
  EMBER_OPTIM_ARG(std::optional<int64_t>, max_eval, {});   // closure calls; default max_iter * 5 / 4
  EMBER_OPTIM_ARG(double, tolerance_grad, 1e-7);           // stop when max |grad| is below
  EMBER_OPTIM_ARG(double, tolerance_change, 1e-9);         // stop when steps or loss changes are below
  EMBER_OPTIM_ARG(int64_t, history_size, 100);
  EMBER_OPTIM_ARG(std::optional<std::string>, line_search_fn, {});  // none or "strong_wolfe"

 public:
  void serialize(StateArchive& archive) override;
};

// The state of the whole optimizer, kept (as libtorch) with the first parameter.
// Directions and gradients are flat vectors over every parameter.
struct LBFGSParamState : public OptimizerParamState {
  EMBER_OPTIM_ARG(int64_t, func_evals, 0);
  EMBER_OPTIM_ARG(int64_t, n_iter, 0);
  EMBER_OPTIM_ARG(double, t, 0);           // the last step length along d
  EMBER_OPTIM_ARG(double, prev_loss, 0);
  EMBER_OPTIM_ARG(Tensor, d, {});          // the last search direction
  EMBER_OPTIM_ARG(double, H_diag, 1);      // the scale of the initial inverse Hessian
  EMBER_OPTIM_ARG(Tensor, prev_flat_grad, {});
  EMBER_OPTIM_ARG(std::deque<Tensor>, old_dirs, {});  // gradient changes y
  EMBER_OPTIM_ARG(std::deque<Tensor>, old_stps, {});  // steps s
  EMBER_OPTIM_ARG(std::deque<double>, ro, {});        // 1 / (y . s)

 public:
  void serialize(StateArchive& archive) override;
};

class LBFGS : public Optimizer {
 public:
  LBFGS(const std::vector<OptimizerParamGroup>& param_groups, const LBFGSOptions& defaults = {});
  explicit LBFGS(std::vector<Tensor> params, const LBFGSOptions& defaults = {});

  // Up to max_iter iterations; returns the loss the first closure call gave.
  Tensor step(LossClosure closure) override;

 protected:
  const char* name() const override { return "LBFGS"; }
  void check_options(const OptimizerOptions& options) const override;
  std::unique_ptr<OptimizerParamState> make_state() const override;

 private:
  const std::vector<Tensor>& params() const { return param_groups().front().params(); }
  // Every gradient flattened into one vector (zeros for a parameter without one).
  Tensor gather_flat_grad() const;
  // params += t * direction, direction being flat.
  void add_to_params(double t, const Tensor& direction);
  // The loss and flat gradient at start + t * direction (params are at start);
  // puts params back to start.
  std::pair<double, Tensor> evaluate_along(const LossClosure& closure,
                                           const std::vector<Tensor>& start, double t,
                                           const Tensor& direction);
};

}  // namespace ember::optim
