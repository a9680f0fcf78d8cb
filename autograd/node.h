#pragma once
// The recorded graph. Note [How the tape is recorded]: an op whose inputs
// require grad (and grad mode on) makes one Node holding
//   - next_edges: for each input, where its gradient goes (the input's
//     grad_fn and which of that node's outputs it was, or the AccumulateGrad
//     of a leaf; an empty edge when the input needs no gradient);
//   - input_meta: each input's shape, dtype and device, so the engine can
//     check every gradient once (and sum away broadcast dims);
//   - saved tensors (with the version they had: Note [Version counters]);
//   - the backward function: grads of the outputs -> grads of the inputs,
//     written with ember ops so it can itself be recorded (create_graph).
// The output tensor's grad_fn is the node. backward() walks nodes in reverse.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::autograd {

class Node;

struct Edge {
  std::shared_ptr<Node> fn;  // null: this input needs no gradient
  uint32_t input_nr = 0;     // which output of fn the input was
  bool valid() const { return fn != nullptr; }
};

struct TensorMeta {
  DimVector sizes;
  ScalarType dtype = kFloat;
  Device device;
};

// A tensor kept for backward with the version it had when saved.
class SavedTensor {
 public:
  SavedTensor() = default;
  // is_output: the tensor is output `output_nr` of the saving node itself. It
  // is then stored without its grad_fn (which would be a reference cycle) and
  // re-attached to the node when unpacked.
  SavedTensor(const Tensor& t, bool is_output, uint32_t output_nr = 0);
  Tensor unpack(const std::shared_ptr<Node>& saved_by) const;
  size_t nbytes() const { return data_.defined() ? data_.nbytes() : 0; }
  bool defined() const { return data_.defined(); }

 private:
  Tensor data_;
  uint32_t version_ = 0;
  uint32_t output_nr_ = 0;
  bool is_output_ = false;
};

class Node : public std::enable_shared_from_this<Node> {
 public:
  // name: a string literal (nodes keep the pointer).
  explicit Node(const char* name);
  virtual ~Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  std::string_view name() const { return name_; }
  // Order of creation across all nodes: the engine runs later nodes first
  // among those ready, and anomaly messages cite it as the forward's index.
  uint64_t sequence_nr() const { return sequence_nr_; }
  // The node at a leaf (AccumulateGrad)? A flag set by its constructor, not a
  // dynamic_cast: the ready queue asks on every comparison.
  bool is_accumulate_grad() const { return is_accumulate_grad_; }

  // grads[i] is the gradient of output i (undefined if none arrived).
  // Returns one gradient per next edge (undefined where not needed).
  virtual tensor_list apply(tensor_list&& grads) = 0;

  const std::vector<Edge>& next_edges() const { return next_edges_; }
  const std::vector<TensorMeta>& input_meta() const { return input_meta_; }
  const std::vector<TensorMeta>& output_meta() const { return output_meta_; }
  size_t num_outputs() const { return output_meta_.size(); }
  bool needs_input_grad(size_t i) const { return i < next_edges_.size() && next_edges_[i].valid(); }

  // Saved tensors: save() records, saved(i) unpacks with the version check.
  // An output may be saved before or after set_history() makes it this
  // node's output (before: it becomes the next output).
  void save(const Tensor& t, bool is_output = false);
  Tensor saved(size_t i);
  size_t saved_bytes() const;
  size_t num_saved() const;  // defined ones: an undefined save() is a placeholder
  // Frees saved tensors after backward (unless retain_graph).
  virtual void release_saved();
  bool saved_released() const { return released_; }

  // Hooks on the gradient of output `output_nr` (non-leaf tensor hooks,
  // retain_grad); each may return a replacement (defined) gradient.
  using TensorHook = std::function<Tensor(const Tensor&)>;
  unsigned add_tensor_pre_hook(uint32_t output_nr, TensorHook hook);
  void remove_tensor_pre_hook(unsigned handle);
  void run_tensor_pre_hooks(tensor_list& grads);
  void set_retain_grad_hook(uint32_t output_nr, std::weak_ptr<TensorImpl> tensor);
  void clear_retain_grad_hook(const TensorImpl* tensor);

  // Set up by the op that records this node (autograd/function.h).
  void reserve_inputs(size_t n);
  void add_input(const Tensor& input);
  void add_output(const Tensor& output);

 protected:
  Node(const char* name, bool is_accumulate_grad);  // AccumulateGrad's

 private:
  const char* name_;
  uint64_t sequence_nr_;
  std::vector<Edge> next_edges_;
  std::vector<TensorMeta> input_meta_;
  std::vector<TensorMeta> output_meta_;
  std::vector<SavedTensor> saved_;
  bool released_ = false;
  const bool is_accumulate_grad_;
  struct PreHook {
    unsigned handle;
    uint32_t output_nr;
    TensorHook fn;
  };
  std::vector<PreHook> pre_hooks_;
  std::vector<std::pair<uint32_t, std::weak_ptr<TensorImpl>>> retain_grad_;
};

// The gradient edge of a tensor: its grad_fn, or the accumulator of a leaf
// that requires grad, or an empty edge.
Edge gradient_edge(const Tensor& t);

// Current value of the global node counter (for anomaly messages and tests).
uint64_t peek_sequence_nr();

}  // namespace ember::autograd
