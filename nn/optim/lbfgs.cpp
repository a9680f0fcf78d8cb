#include "ember/nn/optim/lbfgs.h"

#include <algorithm>
#include <cmath>

#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/ops/shape/views.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/ops/reduction/reduce.h"
#include "ember/nn/optim/strong_wolfe.h"

namespace ember::optim {

namespace {

// Stacks a history of flat vectors into one (k, n) tensor and back.
Tensor stack_history(const std::deque<Tensor>& history) {
  if (history.empty()) return {};
  return stack(std::vector<Tensor>(history.begin(), history.end()));
}

std::deque<Tensor> unstack_history(const Tensor& stacked) {
  std::deque<Tensor> history;
  if (!stacked.defined()) return history;
  for (int64_t i = 0; i < stacked.size(0); ++i) history.push_back(stacked.select(0, i).clone());
  return history;
}

double max_abs(const Tensor& v) { return v.abs().max().item<double>(); }

// Loaded limits and counters (Note [Counters from files]). One step adds at
// most max_iter to n_iter and about max_eval (plus a line search's calls) to
// func_evals; with limits up to 2^32, counters up to 2^62 cannot overflow.
constexpr CounterRange kLimitRange{1, int64_t(1) << 32};
constexpr CounterRange kCountRange{0, int64_t(1) << 62};

}  // namespace

void LBFGSOptions::serialize(StateArchive& archive) {
  OptimizerOptions::serialize(archive);
  int64_t max_eval = max_eval_.value_or(max_iter_ * 5 / 4);
  bool strong_wolfe = line_search_fn_.has_value();
  archive.field("max_iter", max_iter_, kLimitRange);
  archive.field("max_eval", max_eval, kLimitRange);
  archive.field("tolerance_grad", tolerance_grad_);
  archive.field("tolerance_change", tolerance_change_);
  archive.field("history_size", history_size_, kLimitRange);
  archive.field("line_search_strong_wolfe", strong_wolfe);  // state dicts hold numbers only
  if (archive.is_loading()) {
    max_eval_ = max_eval;
    line_search_fn_ = strong_wolfe ? std::optional<std::string>("strong_wolfe") : std::nullopt;
  }
}

void LBFGSParamState::serialize(StateArchive& archive) {
  archive.field("func_evals", func_evals_, kCountRange);
  archive.field("n_iter", n_iter_, kCountRange);
  archive.field("t", t_);
  archive.field("prev_loss", prev_loss_);
  archive.field("H_diag", H_diag_);
  archive.optional_free_tensor("d", d_);
  archive.optional_free_tensor("prev_flat_grad", prev_flat_grad_);
  Tensor dirs = stack_history(old_dirs_), stps = stack_history(old_stps_);
  Tensor ro;
  if (!ro_.empty()) ro = tensor(std::vector<double>(ro_.begin(), ro_.end()), kDouble);
  archive.optional_free_tensor("old_dirs", dirs);
  archive.optional_free_tensor("old_stps", stps);
  archive.optional_tensor("ro", ro);
  if (!archive.is_loading()) return;
  old_dirs_ = unstack_history(dirs);
  old_stps_ = unstack_history(stps);
  ro_.clear();
  if (ro.defined()) {
    const Tensor r = ro.to(kDouble).contiguous();
    ro_.assign(r.data_ptr<double>(), r.data_ptr<double>() + r.numel());
  }
  EMBER_CHECK(old_dirs_.size() == old_stps_.size() && old_dirs_.size() == ro_.size(),
              "LBFGS.load_state_dict: the histories old_dirs, old_stps and ro have ",
              old_dirs_.size(), ", ", old_stps_.size(), " and ", ro_.size(), " entries");
}

LBFGS::LBFGS(const std::vector<OptimizerParamGroup>& param_groups, const LBFGSOptions& defaults)
    : Optimizer(std::make_unique<LBFGSOptions>(defaults)) {
  EMBER_CHECK(param_groups.size() == 1, "LBFGS: takes one parameter group, got ",
              param_groups.size(), " (no per-parameter options)");
  add_initial_groups(param_groups);
  // As libtorch, a missing max_eval becomes max_iter * 5 / 4 in the options.
  for (OptimizerOptions* o : {&this->defaults(), &this->param_groups().front().options()}) {
    auto& typed = static_cast<LBFGSOptions&>(*o);
    if (!typed.max_eval()) typed.max_eval(typed.max_iter() * 5 / 4);
  }
  const std::vector<Tensor>& ps = params();
  for (const Tensor& p : ps)
    EMBER_CHECK(p.dtype() == ps.front().dtype() && p.device() == ps.front().device(),
                "LBFGS: every parameter must have one dtype and device, got ",
                ps.front().toString(), " and ", p.toString());
}

LBFGS::LBFGS(std::vector<Tensor> params, const LBFGSOptions& defaults)
    : LBFGS(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

void LBFGS::check_options(const OptimizerOptions& options) const {
  const auto* typed = dynamic_cast<const LBFGSOptions*>(&options);
  EMBER_CHECK(typed != nullptr, "LBFGS: a parameter group's options must be LBFGSOptions");
  const LBFGSOptions& o = *typed;
  EMBER_CHECK(o.lr() >= 0, "LBFGS: invalid learning rate ", o.lr(), " (must be >= 0)");
  EMBER_CHECK(o.max_iter() >= 1, "LBFGS: invalid max_iter ", o.max_iter(), " (must be >= 1)");
  EMBER_CHECK(!o.max_eval() || *o.max_eval() >= 1, "LBFGS: invalid max_eval ", o.max_eval().value_or(0),
              " (must be >= 1)");
  EMBER_CHECK(o.history_size() >= 1, "LBFGS: invalid history_size ", o.history_size(),
              " (must be >= 1)");
  EMBER_CHECK(!o.line_search_fn() || *o.line_search_fn() == "strong_wolfe",
              "LBFGS: line_search_fn must be \"strong_wolfe\" or unset, got \"",
              o.line_search_fn().value_or(""), "\"");
}

std::unique_ptr<OptimizerParamState> LBFGS::make_state() const {
  return std::make_unique<LBFGSParamState>();
}

Tensor LBFGS::gather_flat_grad() const {
  std::vector<Tensor> parts;
  for (const Tensor& p : params())
    parts.push_back(p.grad().defined() ? detail::dense_grad(name(), p).view({-1})
                                       : zeros({p.numel()}, TensorOptions(p.dtype()).device(p.device())));
  return cat(parts);
}

void LBFGS::add_to_params(double t, const Tensor& direction) {
  int64_t offset = 0;
  for (const Tensor& p : params()) {
    p.add_(direction.narrow(0, offset, p.numel()).view(p.sizes()), t);
    offset += p.numel();
  }
}

std::pair<double, Tensor> LBFGS::evaluate_along(const LossClosure& closure,
                                                const std::vector<Tensor>& start, double t,
                                                const Tensor& direction) {
  add_to_params(t, direction);
  const double loss = run_closure(closure).item<double>();
  Tensor flat_grad = gather_flat_grad();
  for (size_t i = 0; i < start.size(); ++i) params()[i].copy_(start[i]);
  return {loss, flat_grad};
}

namespace {

// The two-loop recursion (Nocedal & Wright Algorithm 7.4): the product of the
// L-BFGS inverse-Hessian estimate with -grad, without forming the matrix. The
// coefficients stay 0-dim tensors, so it makes no host sync.
Tensor lbfgs_direction(const Tensor& flat_grad, const LBFGSParamState& s) {
  const size_t k = s.old_dirs().size();
  std::vector<Tensor> alpha(k);
  Tensor q = -flat_grad;
  for (size_t i = k; i-- > 0;) {
    alpha[i] = s.old_stps()[i].dot(q) * s.ro()[i];
    q = q - s.old_dirs()[i] * alpha[i];
  }
  Tensor r = q * s.H_diag();
  for (size_t i = 0; i < k; ++i) {
    const Tensor beta = s.old_dirs()[i].dot(r) * s.ro()[i];
    r = r + s.old_stps()[i] * (alpha[i] - beta);
  }
  return r;
}

// Adds the newest step s and gradient change y to the history, dropping the
// oldest beyond history_size; skipped when y . s is not safely positive (the
// update would not keep the estimate positive definite).
void remember_step(LBFGSParamState& s, const Tensor& y, const Tensor& step, int64_t history_size) {
  const double ys = y.dot(step).item<double>();
  if (ys <= 1e-10) return;
  if (static_cast<int64_t>(s.old_dirs().size()) == history_size) {
    s.old_dirs().pop_front();
    s.old_stps().pop_front();
    s.ro().pop_front();
  }
  s.old_dirs().push_back(y);
  s.old_stps().push_back(step);
  s.ro().push_back(1 / ys);
  s.H_diag(ys / y.dot(y).item<double>());
}

}  // namespace

Tensor LBFGS::step(LossClosure closure) {
  EMBER_CHECK(closure != nullptr,
              "LBFGS: step() needs a closure that clears the gradients, computes the loss, "
              "calls backward() and returns the loss");
  EMBER_CHECK(param_groups().size() == 1, "LBFGS: takes one parameter group, has ",
              param_groups().size());
  NoGradGuard no_grad;
  const auto& o = static_cast<const LBFGSOptions&>(param_groups().front().options());
  const int64_t max_eval = o.max_eval().value_or(o.max_iter() * 5 / 4);
  bool created = false;
  LBFGSParamState& s = param_state<LBFGSParamState>(params().front(), created);

  const Tensor first_loss = run_closure(closure);
  EMBER_CHECK(first_loss.defined() && first_loss.numel() == 1,
              "LBFGS: the closure must return the loss, a tensor of one element");
  double loss = first_loss.item<double>();
  int64_t evals = 1;
  s.func_evals(s.func_evals() + 1);
  Tensor flat_grad = gather_flat_grad();
  if (max_abs(flat_grad) <= o.tolerance_grad()) return first_loss;

  for (int64_t iter = 1; iter <= o.max_iter(); ++iter) {
    s.n_iter(s.n_iter() + 1);
    if (s.n_iter() == 1) {
      s.d(-flat_grad);
      s.old_dirs().clear();
      s.old_stps().clear();
      s.ro().clear();
      s.H_diag(1);
    } else {
      remember_step(s, flat_grad - s.prev_flat_grad(), s.d() * s.t(), o.history_size());
      s.d(lbfgs_direction(flat_grad, s));
    }
    s.prev_flat_grad(flat_grad);
    s.prev_loss(loss);
    // The first step ever is scaled down so that it moves at most lr in l1 norm.
    s.t(s.n_iter() == 1 ? std::min(1.0, 1.0 / flat_grad.abs().sum().item<double>()) * o.lr()
                        : o.lr());
    const double gtd = flat_grad.dot(s.d()).item<double>();
    if (gtd > -o.tolerance_change()) break;  // not a descent direction any more

    bool converged = false;
    if (o.line_search_fn()) {
      std::vector<Tensor> start;
      for (const Tensor& p : params()) start.push_back(p.clone());
      const Tensor d = s.d();
      const detail::LineSearchResult found = detail::strong_wolfe(
          [&](double t) { return evaluate_along(closure, start, t, d); }, d,
          detail::LinePoint{0, loss, flat_grad, gtd}, s.t(), o.tolerance_change());
      loss = found.point.f;
      flat_grad = found.point.g;
      s.t(found.point.t);
      add_to_params(s.t(), d);
      converged = max_abs(flat_grad) <= o.tolerance_grad();
      evals += found.evaluations;
      s.func_evals(s.func_evals() + found.evaluations);
    } else {
      add_to_params(s.t(), s.d());
      if (iter != o.max_iter()) {  // the last iteration's result is the next step's first loss
        loss = run_closure(closure).item<double>();
        flat_grad = gather_flat_grad();
        converged = max_abs(flat_grad) <= o.tolerance_grad();
        evals += 1;
        s.func_evals(s.func_evals() + 1);
      }
    }
    if (iter == o.max_iter() || evals >= max_eval || converged) break;
    if (max_abs(s.d()) * s.t() <= o.tolerance_change()) break;  // the step became tiny
    if (std::abs(loss - s.prev_loss()) < o.tolerance_change()) break;
  }
  return first_loss;
}

}  // namespace ember::optim
