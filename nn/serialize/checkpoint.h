#pragma once
// A training checkpoint: named sections of tensors ("model", "optimizer",
// "scheduler", "rng", ...) plus string metadata (epoch, step, user keys),
// saved as ONE safetensors file whose tensor names are "<section>/<name>".
// The file is replaced atomically, so a crash while saving leaves the
// previous checkpoint intact. Python reads it with safetensors.torch.load_file.
#include <map>
#include <string>

#include "ember/core/tensor.h"
#include "ember/nn/ordered_dict.h"

namespace ember {

using TensorDict = OrderedDict<std::string, Tensor>;

struct Checkpoint {
  OrderedDict<std::string, TensorDict> sections{"Checkpoint section"};
  std::map<std::string, std::string> metadata;

  // The section called name, created empty when absent.
  TensorDict& section(const std::string& name);
  // Error naming the missing section.
  const TensorDict& section(const std::string& name) const;
  bool has_section(const std::string& name) const { return sections.contains(name); }
};

// Section names may not be empty or contain '/'; metadata keys starting with
// "ember." are reserved for the format tag and the section list.
void save_checkpoint(const std::string& path, const Checkpoint& checkpoint);
// Error when the file is not a valid safetensors file or not an ember checkpoint.
Checkpoint load_checkpoint(const std::string& path);

// The default generators' states (seed and Philox offset of the CPU generator
// and of each CUDA device's) as int64 tensors, for a checkpoint's "rng" section.
TensorDict rng_state();
// Restores what rng_state() captured; error on a malformed entry.
void set_rng_state(const TensorDict& state);

}  // namespace ember
