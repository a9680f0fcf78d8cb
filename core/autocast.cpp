// Note [Autocast] (core/autocast.h): the thread-local state, the cast cache
// and the casting rule the ops call.
#include "ember/core/autocast.h"

#include <memory>
#include <unordered_map>
#include <vector>

#include "ember/core/error.h"

namespace ember::autocast {
namespace {

struct DeviceState {
  bool enabled = false;
  ScalarType dtype;
};

// A parameter's lower-precision copy, valid while the parameter lives and keeps the version
// it had when cast.
struct CacheEntry {
  std::weak_ptr<TensorImpl> source;
  uint32_t version;
  Tensor cast;
};

struct ThreadState {
  DeviceState cpu{false, kBFloat16}, cuda{false, kHalf};
  int nesting = 0;
  bool cache_enabled = true;
  std::unordered_map<const TensorImpl*, CacheEntry> cache;

  DeviceState& of(DeviceType t) { return t == DeviceType::CUDA ? cuda : cpu; }
};

ThreadState& state() {
  thread_local ThreadState s;
  return s;
}

void check_dtype(DeviceType t, ScalarType dtype) {
  const bool cpu = t == DeviceType::CPU;
  EMBER_CHECK(cpu ? dtype == kBFloat16 : (dtype == kHalf || dtype == kBFloat16),
              "autocast: ", cpu ? "the CPU" : "CUDA", " runs in ",
              cpu ? "bfloat16" : "float16 or bfloat16", ", got ", dtype);
}

// Floating and not float64: what autocast casts (PyTorch's is_eligible).
bool eligible(const Tensor& t) {
  return t.defined() && is_floating_point(t.scalar_type()) && t.scalar_type() != kDouble;
}

Policy policy_on(OpPolicy p, DeviceType t) { return t == DeviceType::CUDA ? p.cuda : p.cpu; }

template <typename Range>
std::optional<ScalarType> target(OpPolicy op, const Range& operands) {
  const Tensor* first = nullptr;
  for (const Tensor* t : operands)
    if (t->defined()) {
      first = t;
      break;
    }
  if (!first) return std::nullopt;
  const DeviceType device = first->device().type();
  ThreadState& s = state();
  if (!s.of(device).enabled) return std::nullopt;
  ScalarType to;
  switch (policy_on(op, device)) {
    case Policy::kNone: return std::nullopt;
    case Policy::kLowerPrecision: to = s.of(device).dtype; break;
    case Policy::kFloat32: to = kFloat; break;
    case Policy::kPromote: {
      std::optional<ScalarType> widest;
      for (const Tensor* t : operands)
        if (t->defined() && is_floating_point(t->scalar_type()))
          widest = widest ? promote_types(*widest, t->scalar_type()) : t->scalar_type();
      if (!widest) return std::nullopt;
      to = *widest;
      break;
    }
  }
  for (const Tensor* t : operands)
    if (eligible(*t) && t->scalar_type() != to) return to;
  return std::nullopt;
}

}  // namespace

bool is_enabled(DeviceType t) { return state().of(t).enabled; }
ScalarType lower_precision_dtype(DeviceType t) { return state().of(t).dtype; }

void set_enabled(DeviceType t, bool enabled) { state().of(t).enabled = enabled; }

void set_lower_precision_dtype(DeviceType t, ScalarType dtype) {
  check_dtype(t, dtype);
  state().of(t).dtype = dtype;
}

void clear_cache() { state().cache.clear(); }
bool is_autocast_cache_enabled() { return state().cache_enabled; }
void set_autocast_cache_enabled(bool enabled) { state().cache_enabled = enabled; }
int increment_nesting() { return ++state().nesting; }
int decrement_nesting() { return --state().nesting; }

AutocastGuard::AutocastGuard(DeviceType device, std::optional<ScalarType> dtype, bool enabled)
    : device_(device),
      was_enabled_(is_enabled(device)),
      previous_dtype_(lower_precision_dtype(device)) {
  if (dtype) set_lower_precision_dtype(device, *dtype);
  set_enabled(device, enabled);
  increment_nesting();
}

AutocastGuard::~AutocastGuard() {
  if (decrement_nesting() == 0) clear_cache();
  set_enabled(device_, was_enabled_);
  state().of(device_).dtype = previous_dtype_;
}

std::optional<ScalarType> cast_dtype(OpPolicy policy, std::initializer_list<const Tensor*> operands) {
  return target(policy, operands);
}

std::optional<ScalarType> cast_dtype(OpPolicy policy, TensorList operands) {
  std::vector<const Tensor*> pointers;
  pointers.reserve(operands.size());
  for (const Tensor& t : operands) pointers.push_back(&t);
  return target(policy, pointers);
}

Tensor cast(const Tensor& t, ScalarType dtype) {
  if (!eligible(t) || t.scalar_type() == dtype) return t;
  ThreadState& s = state();
  // PyTorch caches the lower-precision copies of float32 leaves that require grad.
  const bool cacheable = s.cache_enabled && s.nesting > 0 && t.scalar_type() == kFloat &&
                         is_reduced_floating_point(dtype) && t.requires_grad() && t.is_leaf();
  if (!cacheable) return t.to(dtype);
  const TensorImpl* key = t.unsafeGetTensorImpl();
  auto it = s.cache.find(key);
  if (it != s.cache.end() && !it->second.source.expired() && it->second.version == t._version() &&
      it->second.cast.scalar_type() == dtype)
    return it->second.cast;
  Tensor copy = t.to(dtype);
  s.cache[key] = CacheEntry{t.impl(), t._version(), copy};
  return copy;
}

std::vector<Tensor> cast(TensorList tensors, ScalarType dtype) {
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(cast(t, dtype));
  return out;
}

}  // namespace ember::autocast
