// Note [The ready queue]: backward runs each node once, after every consumer of
// its outputs has sent its gradient. It first walks the graph from the roots
// counting, for every node, how many edges point at it (its dependencies).
// Gradients arriving at a node are summed in its input buffer; each arrival
// decrements the count, and at zero the node is ready. Among ready nodes the
// most recently created runs first (AccumulateGrad before all), which is
// reverse creation order for a chain and keeps memory low. After a node runs
// its saved tensors are freed unless retain_graph. The trace and anomaly mode
// watch each node call from outside (Note [Engine observers]).
#include "ember/autograd/engine.h"

#include <queue>
#include <utility>
#include <unordered_map>
#include <unordered_set>

#include "ember/autograd/accumulate_grad.h"
#include "ember/autograd/anomaly_mode.h"
#include "ember/autograd/engine_observer.h"
#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/core/shape.h"

namespace ember::autograd {
namespace {

struct ReadyOrder {
  static uint64_t priority(const Node* n) {
    return n->is_accumulate_grad() ? UINT64_MAX : n->sequence_nr();
  }
  bool operator()(const Node* a, const Node* b) const { return priority(a) < priority(b); }
};

// Asked once per backward (Note [Engine observers]). The trace comes first,
// so its line is finished before anomaly mode throws.
std::vector<NodeObserver*> active_observers() {
  std::vector<NodeObserver*> on;
  if (trace_enabled()) on.push_back(&trace_observer());
  if (AnomalyMode::is_enabled()) on.push_back(&anomaly_observer());
  return on;
}

struct Capture {
  uint32_t input_nr;
  size_t index;  // position in grad()'s result
};

class GraphTask {
 public:
  GraphTask(bool keep_graph, bool create_graph) : keep_graph_(keep_graph), create_graph_(create_graph) {}

  void add_root(const Edge& edge, Tensor grad) {
    roots_.push_back(edge.fn.get());
    holders_.push_back(edge.fn);
    accumulate(edge.fn.get(), edge.input_nr, std::move(grad));
  }
  void add_capture(const Edge& edge, size_t index) {
    captures_[edge.fn.get()].push_back({edge.input_nr, index});
    captured_.resize(std::max(captured_.size(), index + 1));
  }
  tensor_list& captured() { return captured_; }
  void queue_callback(std::function<void()> fn) { callbacks_.push_back(std::move(fn)); }

  void run();

 private:
  void count_dependencies();
  void mark_needed();
  void accumulate(Node* node, uint32_t input_nr, Tensor grad);
  void validate(Node& node, tensor_list& grads) const;
  tensor_list call(Node& node, tensor_list&& grad_outputs);

  bool keep_graph_, create_graph_;
  const std::vector<NodeObserver*> observers_ = active_observers();
  std::vector<Node*> roots_;
  std::vector<std::shared_ptr<Node>> holders_;
  std::unordered_map<Node*, int> dependencies_;
  std::unordered_map<Node*, tensor_list> buffers_;
  std::unordered_map<Node*, std::vector<Capture>> captures_;
  std::unordered_set<Node*> needed_;  // grad(): nodes on a path to a capture
  tensor_list captured_;
  std::vector<std::function<void()>> callbacks_;  // queue_callback's
};

// The backward running on this thread (a hook may start a nested one).
thread_local GraphTask* current_task = nullptr;

void GraphTask::accumulate(Node* node, uint32_t input_nr, Tensor grad) {
  tensor_list& buf = buffers_[node];
  if (buf.size() < node->num_outputs()) buf.resize(node->num_outputs());
  Tensor& slot = buf.at(input_nr);
  if (!grad.defined()) return;
  slot = slot.defined() ? slot + grad : std::move(grad);
}

void GraphTask::count_dependencies() {
  // A root named twice (backward({y, y})) is walked once: its edges count once.
  std::vector<Node*> stack;
  std::unordered_set<Node*> seen;
  for (Node* r : roots_)
    if (seen.insert(r).second) stack.push_back(r);
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge& e : n->next_edges()) {
      if (!e.valid()) continue;
      ++dependencies_[e.fn.get()];
      if (seen.insert(e.fn.get()).second) stack.push_back(e.fn.get());
    }
  }
}

// A node is needed if it holds a capture or leads to one (post-order walk).
void GraphTask::mark_needed() {
  std::unordered_map<Node*, bool> done;
  std::vector<std::pair<Node*, size_t>> stack;
  for (Node* r : roots_) stack.emplace_back(r, 0);
  while (!stack.empty()) {
    auto& [n, next] = stack.back();
    if (next == 0 && done.count(n)) { stack.pop_back(); continue; }
    if (next < n->next_edges().size()) {
      const Edge& e = n->next_edges()[next++];
      if (e.valid() && !done.count(e.fn.get())) stack.emplace_back(e.fn.get(), 0);
      continue;
    }
    bool needed = captures_.count(n) > 0;
    for (const Edge& e : n->next_edges())
      if (e.valid() && needed_.count(e.fn.get())) needed = true;
    if (needed) needed_.insert(n);
    done[n] = true;
    stack.pop_back();
  }
}

void GraphTask::validate(Node& node, tensor_list& grads) const {
  EMBER_INTERNAL_ASSERT(grads.size() == node.next_edges().size(), node.name(), " returned ",
                        grads.size(), " gradients for ", node.next_edges().size(), " inputs");
  for (size_t i = 0; i < grads.size(); ++i) {
    Tensor& g = grads[i];
    if (!g.defined() || !node.needs_input_grad(i)) continue;
    const TensorMeta& meta = node.input_meta()[i];
    if (g.sizes() != meta.sizes.ref()) {
      EMBER_CHECK(is_expandable_to(meta.sizes, g.sizes()), node.name(),
                  " returned a gradient of shape ", g.sizes(), " for input ", i, " of shape ",
                  meta.sizes, "; the shapes are not broadcast-compatible");
      g = g.sum_to_size(meta.sizes);
    }
    // A CPU scalar that joined a CUDA op (ops/elementwise_helpers.h) gets its
    // gradient back on the CPU: one device-to-host copy, as in PyTorch.
    if (g.device() != meta.device && meta.device.is_cpu() && meta.sizes.empty()) g = g.to(meta.device);
    EMBER_CHECK(g.device() == meta.device, node.name(), " returned a gradient on ", g.device(),
                " for input ", i, " on ", meta.device);
    if (g.scalar_type() != meta.dtype) g = g.to(meta.dtype);
  }
}

// Runs one node's backward on the summed gradients of its outputs and
// returns one checked gradient per input, with the observers around it.
tensor_list GraphTask::call(Node& node, tensor_list&& grad_outputs) {
  for (NodeObserver* o : observers_) o->before(node, grad_outputs);
  bool any = false;
  for (const Tensor& g : grad_outputs) any = any || g.defined();
  // A node none of whose outputs got a gradient passes on nothing.
  tensor_list grad_inputs;
  try {
    grad_inputs = any ? node.apply(std::move(grad_outputs)) : tensor_list(node.next_edges().size());
    if (!keep_graph_) node.release_saved();
    validate(node, grad_inputs);
  } catch (...) {
    for (NodeObserver* o : observers_) o->on_error(node);
    throw;
  }
  for (NodeObserver* o : observers_) o->after(node, grad_inputs);
  return grad_inputs;
}

void GraphTask::run() {
  AutoGradMode grad_mode(create_graph_);
  GraphTask* const outer = std::exchange(current_task, this);
  struct Restore {
    GraphTask* outer;
    ~Restore() { current_task = outer; }
  } restore{outer};
  count_dependencies();
  const bool capturing = !captures_.empty();
  if (capturing) mark_needed();

  std::priority_queue<Node*, std::vector<Node*>, ReadyOrder> ready;
  std::unordered_set<Node*> queued;
  for (Node* r : roots_)
    if (dependencies_[r] == 0 && queued.insert(r).second) ready.push(r);

  while (!ready.empty()) {
    Node* node = ready.top();
    ready.pop();
    tensor_list grad_outputs = std::move(buffers_[node]);
    buffers_.erase(node);
    grad_outputs.resize(node->num_outputs());
    node->run_tensor_pre_hooks(grad_outputs);

    if (capturing) {
      if (auto it = captures_.find(node); it != captures_.end()) {
        auto* acc = node->is_accumulate_grad() ? static_cast<AccumulateGrad*>(node) : nullptr;
        for (const Capture& c : it->second) {
          Tensor g = grad_outputs.at(c.input_nr);
          captured_[c.index] = acc && g.defined() ? acc->run_leaf_hooks(g) : g;
        }
      }
      // grad() computes only what its inputs need and never touches .grad.
      if (!needed_.count(node) || node->is_accumulate_grad()) continue;
    }
    tensor_list grad_inputs = call(*node, std::move(grad_outputs));
    // Each input's gradient goes into the buffer of the node that made the
    // input; a node that has heard from all its consumers is ready.
    const auto& edges = node->next_edges();
    for (size_t i = 0; i < edges.size(); ++i) {
      Node* next = edges[i].fn.get();
      if (next == nullptr) continue;
      accumulate(next, edges[i].input_nr, std::move(grad_inputs[i]));
      if (--dependencies_[next] == 0 && queued.insert(next).second) ready.push(next);
    }
  }
  for (size_t i = 0; i < callbacks_.size(); ++i) {  // a callback may queue more
    std::function<void()> fn = std::move(callbacks_[i]);
    fn();
  }
}

// Seeds one GraphTask root per output.
void add_roots(GraphTask& task, const tensor_list& outputs, const tensor_list& grad_outputs,
               const char* op) {
  EMBER_CHECK(grad_outputs.empty() || grad_outputs.size() == outputs.size(), op, ": got ",
              outputs.size(), " outputs but ", grad_outputs.size(), " gradients");
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    EMBER_CHECK(out.defined(), op, ": output ", i, " is undefined");
    Edge edge = gradient_edge(out);
    EMBER_CHECK(edge.valid(), op, ": element ", i,
                " of the outputs does not require grad and has no grad_fn (was it computed "
                "under NoGradGuard, from tensors that do not require grad, or by a "
                "non-differentiable op such as a comparison, argmax or an integer op?)");
    Tensor g = grad_outputs.empty() ? Tensor() : grad_outputs[i];
    if (!g.defined()) {
      EMBER_CHECK(out.numel() == 1, op, ": the gradient can be implied only for outputs with "
                  "one element; output ", i, " has shape ", out.sizes(),
                  ", so pass a gradient of that shape");
      g = out.new_ones(out.sizes());
    } else {
      EMBER_CHECK(g.sizes() == out.sizes(), op, ": gradient ", i, " has shape ", g.sizes(),
                  " but the output has shape ", out.sizes());
      EMBER_CHECK(g.device() == out.device(), op, ": gradient ", i, " is on ", g.device(),
                  " but the output is on ", out.device());
      if (g.scalar_type() != out.scalar_type()) g = g.to(out.scalar_type());  // as libtorch
    }
    task.add_root(edge, g);
  }
}

}  // namespace

void queue_callback(std::function<void()> fn) {
  EMBER_CHECK(current_task != nullptr, "queue_callback: no backward is running on this thread; "
              "call it from a hook during backward");
  current_task->queue_callback(std::move(fn));
}

void backward(const tensor_list& tensors, const tensor_list& grad_tensors,
              std::optional<bool> retain_graph, bool create_graph) {
  GraphTask task(retain_graph.value_or(create_graph), create_graph);
  add_roots(task, tensors, grad_tensors, "backward");
  task.run();
}

tensor_list grad(const tensor_list& outputs, const tensor_list& inputs,
                 const tensor_list& grad_outputs, std::optional<bool> retain_graph,
                 bool create_graph, bool allow_unused) {
  GraphTask task(retain_graph.value_or(create_graph), create_graph);
  add_roots(task, outputs, grad_outputs, "autograd::grad");
  for (size_t i = 0; i < inputs.size(); ++i) {
    EMBER_CHECK(inputs[i].defined() && inputs[i].requires_grad(), "autograd::grad: input ", i,
                " does not require grad");
    task.add_capture(gradient_edge(inputs[i]), i);
  }
  task.captured().resize(inputs.size());
  task.run();
  tensor_list result = std::move(task.captured());
  for (size_t i = 0; i < result.size(); ++i) {
    EMBER_CHECK(allow_unused || result[i].defined(), "autograd::grad: input ", i,
                " (shape ", inputs[i].sizes(), ") was not used to compute the outputs; pass "
                "allow_unused=true if that is expected");
    if (result[i].defined() && !create_graph) result[i] = result[i].detach();
  }
  return result;
}

}  // namespace ember::autograd
