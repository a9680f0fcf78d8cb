#pragma once
// StateArchive: one function per options or state type lists its fields, and
// the same function both saves them into a state dict and loads them back
// (the archive knows which way it goes). State dicts hold tensors only, so a
// checkpoint can store them as safetensors: numbers become 0-dim tensors
// (float64, or int64 for counters), a pair becomes a float64 tensor of 2.
#include <cstdint>
#include <string>
#include <tuple>
#include <unordered_set>

#include "ember/core/tensor.h"
#include "ember/nn/ordered_dict.h"
#include "ember/nn/optim/step_count.h"
#include "ember/nn/serialize/counter.h"

namespace ember::optim {

using TensorDict = OrderedDict<std::string, Tensor>;

class StateArchive {
 public:
  // Saving: each field goes into `out` as prefix + name.
  StateArchive(TensorDict& out, std::string prefix);
  // Loading: each field is read from `in` as prefix + name and that key is
  // added to `used`; errors name `owner` (e.g. "Adam.load_state_dict"). Tensor
  // fields must have the shape of `like` (when given); they come back as new
  // contiguous tensors in like's dtype.
  StateArchive(const TensorDict& in, std::string owner, std::string prefix,
               std::unordered_set<std::string>& used, const Tensor* like = nullptr);

  bool is_loading() const { return in_ != nullptr; }

  void field(const std::string& name, double& value);
  void field(const std::string& name, bool& value);
  // Integers are counters or sizes: read_counter checks them (Note [Counters from files]).
  void field(const std::string& name, int64_t& value, CounterRange range = {});
  void field(const std::string& name, std::tuple<double, double>& value);
  // A step count is saved as its value (read back from the device if it is
  // there) and loads onto the host.
  void field(const std::string& name, StepCount& value);
  // An undefined tensor is saved as no key; a missing key loads as undefined.
  void optional_tensor(const std::string& name, Tensor& value);
  // As optional_tensor, for state whose shape is not its parameter's (L-BFGS's
  // flat vectors): loads any shape, in like's dtype and device.
  void optional_free_tensor(const std::string& name, Tensor& value);

 private:
  const Tensor& read(const std::string& key);

  TensorDict* out_ = nullptr;
  const TensorDict* in_ = nullptr;
  std::string owner_;
  std::string prefix_;
  std::unordered_set<std::string>* used_ = nullptr;
  const Tensor* like_ = nullptr;
};

}  // namespace ember::optim
