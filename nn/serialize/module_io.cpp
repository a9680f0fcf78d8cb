#include "ember/nn/serialize/module_io.h"

#include <sstream>

#include "ember/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/nn/serialize/safetensors.h"

namespace ember {
namespace {

std::string describe(const Tensor& t) {
  std::ostringstream os;
  os << dtype_name(t.scalar_type()) << " " << t.sizes();
  return os.str();
}

// A tensor from the state fits the module's tensor: same dtype and shape.
bool fits(const Tensor& given, const Tensor& own) {
  return given.defined() && given.scalar_type() == own.scalar_type() &&
         given.sizes() == own.sizes();
}

void list(std::ostringstream& os, const char* what, const std::vector<std::string>& names) {
  if (names.empty()) return;
  os << "\n  " << what << ":";
  for (const std::string& n : names) os << " " << n;
}

// PyTorch's state_dict order: a module's parameters, its buffers, then each child's.
void collect_state(const nn::Module& module, const std::string& prefix,
                   OrderedDict<std::string, Tensor>& state) {
  for (const auto& item : module.named_parameters(false))
    state.insert(prefix + item.key(), item.value());
  for (const auto& item : module.named_buffers(false))
    state.insert(prefix + item.key(), item.value());
  for (const auto& child : module.named_children())
    collect_state(*child.value(), prefix + child.key() + ".", state);
}

}  // namespace

OrderedDict<std::string, Tensor> state_dict(const nn::Module& module) {
  OrderedDict<std::string, Tensor> state("Tensor");
  collect_state(module, "", state);
  return state;
}

LoadReport load_state_dict(nn::Module& module, const OrderedDict<std::string, Tensor>& state,
                           bool strict, const std::string& source) {
  const OrderedDict<std::string, Tensor> own = state_dict(module);
  LoadReport report;
  std::vector<std::string> mismatch_details;
  for (const auto& item : own) {
    const Tensor* given = state.find(item.key());
    if (!given) {
      report.missing.push_back(item.key());
    } else if (!fits(*given, item.value())) {
      report.shape_mismatched.push_back(item.key());
      mismatch_details.push_back(item.key() + " (" +
                                 (given->defined() ? describe(*given) : "undefined") + " given, " +
                                 describe(item.value()) + " in the module)");
    }
  }
  for (const auto& item : state)
    if (!own.contains(item.key())) report.unexpected.push_back(item.key());

  if (strict && !report.ok()) {
    std::ostringstream os;
    os << "load: " << source << " does not match the module's parameters and buffers";
    list(os, "missing", report.missing);
    list(os, "unexpected", report.unexpected);
    list(os, "shape or dtype mismatched", mismatch_details);
    EMBER_ERROR(os.str());
  }
  NoGradGuard no_grad;
  for (const auto& item : own) {
    const Tensor* given = state.find(item.key());
    if (!given || !fits(*given, item.value())) continue;
    Tensor target = item.value();
    target.copy_(*given);
  }
  return report;
}

void save(const nn::Module& module, const std::string& path) {
  save_safetensors(path, state_dict(module), {{"format", "pt"}});
}

LoadReport load(nn::Module& module, const std::string& path, bool strict) {
  return load_state_dict(module, load_safetensors(path).tensors, strict, "'" + path + "'");
}

}  // namespace ember
