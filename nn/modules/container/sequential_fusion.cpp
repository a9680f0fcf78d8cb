// Note [Fusion in Sequential] (sequential_fusion.h).
#include "ember/nn/modules/container/sequential_fusion.h"

#include <atomic>
#include <typeinfo>
#include <variant>

#include "ember/autograd/grad_mode.h"
#include "ember/core/ops/nn_ops/conv.h"
#include "ember/nn/modules/activation.h"
#include "ember/nn/modules/batchnorm.h"
#include "ember/nn/modules/conv.h"

namespace ember::nn {
namespace {

std::atomic<bool> enabled{true};
std::atomic<int64_t> conv_bn_runs{0}, folds{0}, bn_relu_runs{0};

// The module itself when it is exactly of type M (a subclass may override
// what fusion would skip), and has no hook.
template <typename M>
M* exactly(const AnyModule& module) {
  Module* m = module.ptr().get();
  return typeid(*m) == typeid(M) && !m->has_hooks() ? static_cast<M*>(m) : nullptr;
}

const void* data_or_null(const Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }
uint32_t version_or_zero(const Tensor& t) { return t.defined() ? t._version() : 0; }

}  // namespace

void set_sequential_fusion(bool on) { enabled.store(on, std::memory_order_relaxed); }
bool sequential_fusion() { return enabled.load(std::memory_order_relaxed); }

SequentialFusionStats sequential_fusion_stats() {
  return {conv_bn_runs.load(std::memory_order_relaxed), folds.load(std::memory_order_relaxed),
          bn_relu_runs.load(std::memory_order_relaxed)};
}

size_t SequentialFusion::run(const std::vector<AnyModule>& modules, size_t first,
                             const Tensor& x, Tensor& out) {
  if (!sequential_fusion() || first + 1 >= modules.size()) return 0;
  if (const size_t ran = run_conv_bn(modules, first, x, out)) return ran;
  if (!exactly<ReLUImpl>(modules[first + 1])) return 0;
  // BatchNorm -> ReLU: in training only (in eval the pair after a conv has folded above).
  if (auto* bn = exactly<BatchNorm2dImpl>(modules[first]); bn && bn->is_training()) {
    out = bn->forward_relu(x);
  } else if (auto* bn1 = exactly<BatchNorm1dImpl>(modules[first]); bn1 && bn1->is_training()) {
    out = bn1->forward_relu(x);
  } else {
    return 0;
  }
  bn_relu_runs.fetch_add(1, std::memory_order_relaxed);
  return 2;
}

size_t SequentialFusion::run_conv_bn(const std::vector<AnyModule>& modules, size_t first,
                                     const Tensor& x, Tensor& out) {
  if (GradMode::is_enabled()) return 0;
  const Conv2dImpl* conv = exactly<Conv2dImpl>(modules[first]);
  const BatchNorm2dImpl* bn = conv ? exactly<BatchNorm2dImpl>(modules[first + 1]) : nullptr;
  if (bn == nullptr || bn->is_training() || !bn->options.track_running_stats()) return 0;
  const auto* padding = std::get_if<ExpandingArray<2>>(&conv->options.padding());
  if (padding == nullptr || conv->options.padding_mode() != kZeros) return 0;
  if (x.dim() != 4 || x.device() != conv->weight.device() ||
      x.scalar_type() != conv->weight.scalar_type() || !is_floating_point(x.scalar_type()))
    return 0;
  const bool relu = first + 2 < modules.size() && exactly<ReLUImpl>(modules[first + 2]);

  const std::array<const Tensor*, 6> from{&conv->weight,     &conv->bias,
                                          &bn->weight,       &bn->bias,
                                          &bn->running_mean, &bn->running_var};
  Sources sources;
  for (size_t i = 0; i < from.size(); ++i) {
    sources.data[i] = data_or_null(*from[i]);
    sources.versions[i] = version_or_zero(*from[i]);
  }
  sources.eps = bn->options.eps();
  std::shared_ptr<const Folded> folded;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = folded_.find(first);
    if (it != folded_.end() && it->second->sources == sources) folded = it->second;
  }
  if (!folded) {
    // scale = gamma / sqrt(var + eps); w' = w * scale; b' = (b - mean) * scale + beta
    Tensor scale = (bn->running_var + sources.eps).rsqrt();
    if (bn->weight.defined()) scale = scale * bn->weight;
    auto next = std::make_shared<Folded>();
    next->sources = sources;
    for (size_t i = 0; i < from.size(); ++i) next->held[i] = *from[i];
    next->weight = conv->weight * scale.reshape({-1, 1, 1, 1});
    next->bias = ((conv->bias.defined() ? conv->bias - bn->running_mean : -bn->running_mean) *
                  scale);
    if (bn->bias.defined()) next->bias = next->bias + bn->bias;
    folded = next;
    folds.fetch_add(1, std::memory_order_relaxed);
    std::lock_guard<std::mutex> lock(mutex_);
    folded_[first] = folded;
  }
  const auto& o = conv->options;
  out = relu ? conv2d_relu(x, folded->weight, folded->bias, o.stride(), *padding, o.dilation(),
                           o.groups())
             : conv2d(x, folded->weight, folded->bias, o.stride(), *padding, o.dilation(),
                      o.groups());
  conv_bn_runs.fetch_add(1, std::memory_order_relaxed);
  return relu ? 3 : 2;
}

}  // namespace ember::nn
