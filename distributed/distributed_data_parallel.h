#pragma once
// DistributedDataParallel: data-parallel training, one process per device,
// as PyTorch's torch.nn.parallel.DistributedDataParallel (libtorch has no
// C++ DDP). Every rank runs the same model on its own batches; during
// backward the gradients are averaged across ranks in buckets that overlap
// backward (Note [Gradient buckets] in reducer.h), so after backward every
// rank holds the same gradients and the optimizer steps stay in lockstep.
//
//   distributed::init_process_group("gloo");          // env://, as ember-run sets it
//   Net model;                                        // any ModuleHolder
//   nn::parallel::DistributedDataParallel ddp(model);
//   optim::Adam opt(ddp->parameters(), 1e-3);
//   Tensor loss = cross_entropy(ddp(x), y);           // forward through the wrapper
//   loss.backward();                                  // gradients averaged across ranks
//   opt.step();
//   save(*ddp, "model.pt");                           // the module's own keys
//
// The wrapper is not a Module: ddp-> and *ddp reach the wrapped module, so
// state_dict() keys have no "module." prefix and a checkpoint loads into the
// unwrapped model. Differences from PyTorch are in docs/distributed.md.
#include <functional>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/distributed/ddp_core.h"

namespace ember::nn::parallel {

namespace detail {
// The tensors of a forward's result, for find_unused_parameters' graph walk.
inline void collect_outputs(const Tensor& t, std::vector<Tensor>& out) { out.push_back(t); }
inline void collect_outputs(const std::vector<Tensor>& ts, std::vector<Tensor>& out) {
  out.insert(out.end(), ts.begin(), ts.end());
}
template <typename... Ts>
void collect_outputs(const std::tuple<Ts...>& tuple, std::vector<Tensor>& out) {
  std::apply([&](const auto&... items) { (collect_outputs(items, out), ...); }, tuple);
}
template <typename A, typename B>
void collect_outputs(const std::pair<A, B>& pair, std::vector<Tensor>& out) {
  collect_outputs(pair.first, out);
  collect_outputs(pair.second, out);
}
// Anything else holds no tensor we can see: unreached parameters are then
// found at the end of backward instead (still zeros, just without overlap).
template <typename T>
void collect_outputs(const T&, std::vector<Tensor>&) {}
}  // namespace detail

// ModuleType: a module holder (e.g. `Net`, from EMBER_MODULE) or a
// std::shared_ptr to a module.
template <typename ModuleType>
class DistributedDataParallel {
 public:
  explicit DistributedDataParallel(ModuleType module, DistributedDataParallelOptions options = {})
      : module_(std::move(module)), core_(std::make_unique<detail::DdpCore>(shared_module(), options)) {}

  // The wrapped module's forward, with the collectives around it.
  template <typename... Args>
  decltype(auto) forward(Args&&... args) {
    core_->before_forward();
    decltype(auto) output = call_module(std::forward<Args>(args)...);
    std::vector<Tensor> outputs;
    detail::collect_outputs(output, outputs);
    core_->after_forward(outputs);
    return output;
  }
  template <typename... Args>
  decltype(auto) operator()(Args&&... args) {
    return forward(std::forward<Args>(args)...);
  }

  // The wrapped module (PyTorch's ddp.module).
  ModuleType& module() { return module_; }
  auto* operator->() { return module_.get(); }
  auto& operator*() { return *module_; }

  // While the returned guard lives, backward only accumulates gradients
  // locally; the first synchronized backward after it reduces their sum
  // (gradient accumulation over micro-batches without a collective each).
  class NoSyncGuard {
   public:
    explicit NoSyncGuard(detail::DdpCore& core) : core_(&core), was_(core.sync()) { core.set_sync(false); }
    NoSyncGuard(NoSyncGuard&& other) noexcept : core_(std::exchange(other.core_, nullptr)), was_(other.was_) {}
    NoSyncGuard(const NoSyncGuard&) = delete;
    NoSyncGuard& operator=(const NoSyncGuard&) = delete;
    NoSyncGuard& operator=(NoSyncGuard&&) = delete;
    ~NoSyncGuard() {
      if (core_) core_->set_sync(was_);
    }

   private:
    detail::DdpCore* core_;
    bool was_;
  };
  [[nodiscard]] NoSyncGuard no_sync() { return NoSyncGuard(*core_); }

  // Runs body (this rank's training loop) so that ranks with fewer batches
  // than others do not hang: once body returns, this rank keeps answering the
  // others' collectives with zero gradients until every rank has finished
  // (Note [Join] in ddp_core.cpp). Inside, every forward with grad on must be
  // followed by its backward.
  void join(const std::function<void()>& body) { core_->join(body); }

  // When the last synchronized step's bucket collectives ran against the end
  // of its backward, and which parameters each bucket holds.
  const distributed::detail::StepTrace& last_step_trace() const { return core_->last_step_trace(); }
  std::vector<std::vector<size_t>> bucket_indices() const { return core_->bucket_indices(); }
  const std::shared_ptr<distributed::ProcessGroup>& process_group() const { return core_->group(); }

 private:
  std::shared_ptr<Module> shared_module() {
    if constexpr (requires { module_.ptr(); })
      return module_.ptr();
    else
      return module_;
  }
  template <typename... Args>
  decltype(auto) call_module(Args&&... args) {
    if constexpr (std::is_invocable_v<ModuleType&, Args&&...>)
      return module_(std::forward<Args>(args)...);  // a holder: through the module's hooks
    else
      return module_->forward(std::forward<Args>(args)...);
  }

  ModuleType module_;
  std::unique_ptr<detail::DdpCore> core_;
};

}  // namespace ember::nn::parallel
