#pragma once
// Module checkpoints as PyTorch reads them: ember::save writes a module's
// parameters and buffers under PyTorch's state_dict names ("features.0.weight",
// "bn.running_mean") to a safetensors file, so safetensors.torch.load_file +
// load_state_dict fills the equivalent PyTorch model, and ember::load reads
// what PyTorch's save_file wrote.
#include <string>
#include <vector>

#include "ember/nn/module.h"
#include "ember/nn/module_holder.h"
#include "ember/nn/ordered_dict.h"

namespace ember {

// What load_state_dict found, as PyTorch's missing_keys / unexpected_keys,
// plus the names whose shape or dtype differ between file and module.
struct LoadReport {
  std::vector<std::string> missing;           // in the module, not in the state
  std::vector<std::string> unexpected;        // in the state, not in the module
  std::vector<std::string> shape_mismatched;  // in both, with another shape or dtype
  bool ok() const { return missing.empty() && unexpected.empty() && shape_mismatched.empty(); }
};

// The tensors themselves (not copies) in PyTorch's state_dict order: each
// module's parameters, then its buffers, then its children's, depth first.
OrderedDict<std::string, Tensor> state_dict(const nn::Module& module);

// Copies each matching tensor into the module's own (under NoGradGuard, so
// every handle to a parameter sees the values; the device stays the module's).
// strict: any missing, unexpected or mismatched name is an Error listing them
// all, raised before anything is copied. Non-strict: copies what matches and
// returns the report. `source` names the origin in messages (a file path).
LoadReport load_state_dict(nn::Module& module, const OrderedDict<std::string, Tensor>& state,
                           bool strict = true, const std::string& source = "state dict");

void save(const nn::Module& module, const std::string& path);
LoadReport load(nn::Module& module, const std::string& path, bool strict = true);

// Holders (nn::Linear, a user's TORCH_MODULE-style Net) as libtorch's torch::save.
template <typename Contained>
void save(const nn::ModuleHolder<Contained>& module, const std::string& path) {
  save(*module, path);
}
template <typename Contained>
LoadReport load(nn::ModuleHolder<Contained>& module, const std::string& path, bool strict = true) {
  return load(*module, path, strict);
}

}  // namespace ember
