#include "ember/autograd/node.h"
#include "ember/autograd/view_history.h"

#include <algorithm>
#include <atomic>

#include "ember/autograd/accumulate_grad.h"
#include "ember/autograd/grad_mode.h"
#include "ember/core/autograd_meta.h"

namespace ember::autograd {
namespace {
std::atomic<uint64_t> next_sequence_nr{0};
std::atomic<unsigned> next_hook_handle{1};
}  // namespace

uint64_t peek_sequence_nr() { return next_sequence_nr.load(); }

SavedTensor::SavedTensor(const Tensor& t, bool is_output, uint32_t output_nr)
    : output_nr_(output_nr), is_output_(is_output) {
  if (!t.defined()) return;
  version_ = t._version();
  data_ = is_output ? t.detach() : t;
}

Tensor SavedTensor::unpack(const std::shared_ptr<Node>& saved_by) const {
  if (!data_.defined()) return Tensor();
  EMBER_CHECK(data_._version() == version_,
              "one of the tensors needed for gradient computation has been modified by an "
              "in-place operation: ", saved_by->name(), " saved a ", data_.toString(),
              " at version ", version_, "; it is now at version ", data_._version(),
              ". Use an out-of-place op, or clone() the tensor before modifying it.");
  if (!is_output_) return data_;
  // Re-attach the saved output to its node (every output of a node requires
  // grad), so double backward sees its history.
  Tensor t = data_.detach();
  AutogradMeta& meta = t.impl()->ensure_autograd_meta();
  meta.grad_fn = saved_by;
  meta.output_nr = output_nr_;
  return t;
}

Node::Node(const char* name) : Node(name, /*is_accumulate_grad=*/false) {}
Node::Node(const char* name, bool is_accumulate_grad)
    : name_(name), sequence_nr_(next_sequence_nr++), is_accumulate_grad_(is_accumulate_grad) {}

void Node::reserve_inputs(size_t n) {
  next_edges_.reserve(n);
  input_meta_.reserve(n);
}

void Node::add_input(const Tensor& input) {
  next_edges_.push_back(input.defined() ? gradient_edge(input) : Edge{});
  if (input.defined())
    input_meta_.push_back({DimVector(input.sizes()), input.scalar_type(), input.device()});
  else
    input_meta_.push_back({});
}

void Node::add_output(const Tensor& output) {
  output_meta_.push_back({DimVector(output.sizes()), output.scalar_type(), output.device()});
}

void Node::save(const Tensor& t, bool is_output) {
  const bool registered = t.defined() && t.grad_fn().get() == this;
  const auto output_nr = static_cast<uint32_t>(registered ? t.output_nr() : num_outputs());
  saved_.emplace_back(t, is_output, output_nr);
}

size_t Node::num_saved() const {
  return static_cast<size_t>(std::count_if(saved_.begin(), saved_.end(),
                                           [](const SavedTensor& s) { return s.defined(); }));
}

Tensor Node::saved(size_t i) {
  EMBER_CHECK(!released_, name_,
              ": trying to run backward through the graph a second time, or to read saved "
              "tensors after they were freed. Saved tensors are freed by the first "
              "backward() or autograd::grad(); pass retain_graph=true to the first call to "
              "keep them.");
  EMBER_INTERNAL_ASSERT(i < saved_.size(), name_, " has ", saved_.size(), " saved tensors, not ", i + 1);
  return saved_[i].unpack(shared_from_this());
}

size_t Node::saved_bytes() const {
  size_t n = 0;
  for (const auto& s : saved_) n += s.nbytes();
  return n;
}

void Node::release_saved() {
  if (saved_.empty()) return;
  saved_.clear();
  saved_.shrink_to_fit();
  released_ = true;
}

unsigned Node::add_tensor_pre_hook(uint32_t output_nr, TensorHook hook) {
  const unsigned handle = next_hook_handle++;
  pre_hooks_.push_back({handle, output_nr, std::move(hook)});
  return handle;
}

void Node::remove_tensor_pre_hook(unsigned handle) {
  std::erase_if(pre_hooks_, [&](const PreHook& h) { return h.handle == handle; });
}

void Node::set_retain_grad_hook(uint32_t output_nr, std::weak_ptr<TensorImpl> tensor) {
  for (auto& [nr, weak] : retain_grad_)
    if (nr == output_nr && !weak.expired()) return;
  retain_grad_.emplace_back(output_nr, std::move(tensor));
}

void Node::clear_retain_grad_hook(const TensorImpl* tensor) {
  std::erase_if(retain_grad_, [&](const auto& entry) {
    const auto impl = entry.second.lock();
    return !impl || impl.get() == tensor;
  });
}

void Node::run_tensor_pre_hooks(tensor_list& grads) {
  for (auto& h : pre_hooks_) {
    if (h.output_nr >= grads.size() || !grads[h.output_nr].defined()) continue;
    Tensor replaced = h.fn(grads[h.output_nr]);
    if (replaced.defined()) grads[h.output_nr] = std::move(replaced);
  }
  // retain_grad runs after the user's hooks, so .grad shows what flows on.
  for (auto& [nr, weak] : retain_grad_) {
    auto impl = weak.lock();
    if (!impl || nr >= grads.size() || !grads[nr].defined()) continue;
    AutogradMeta& meta = impl->ensure_autograd_meta();
    const Tensor& g = grads[nr];
    if (!meta.grad.defined()) meta.grad = GradMode::is_enabled() ? g : g.detach().clone();
    else if (GradMode::is_enabled()) meta.grad = meta.grad + g;
    else meta.grad.add_(g);
  }
}

Edge gradient_edge(const Tensor& t) {
  if (t.impl()->is_view()) refresh_view_history(t);
  AutogradMeta* meta = t.impl()->autograd_meta();
  if (meta == nullptr) return {};
  if (meta->grad_fn) return {meta->grad_fn, meta->output_nr};
  if (meta->requires_grad) return {grad_accumulator(t), 0};
  return {};
}

}  // namespace ember::autograd
