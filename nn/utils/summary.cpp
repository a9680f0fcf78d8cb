#include "ember/nn/utils/summary.h"

#include <iomanip>
#include <sstream>
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/core/ops/creation/factory.h"

namespace ember::nn {

namespace {

// 1234567 -> "1,234,567".
std::string with_thousands(int64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    // A comma before each group of three digits but the first (not after a sign).
    if (i > 0 && digits[i - 1] != '-' && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

int64_t count(const std::vector<Tensor>& tensors, bool trainable_only) {
  int64_t total = 0;
  for (const Tensor& t : tensors)
    if (!trainable_only || t.requires_grad()) total += t.numel();
  return total;
}

struct Row {
  std::string layer;
  std::string shape;
  int64_t params;
};

// "[-1, 32, 14, 14]": the batch dim as -1.
std::string shape_without_batch(const Tensor& t) {
  std::ostringstream os;
  os << "[";
  for (int64_t d = 0; d < t.dim(); ++d) os << (d ? ", " : "") << (d == 0 ? -1 : t.size(d));
  os << "]";
  return os.str();
}

}  // namespace

std::string summary(Module& module, const std::function<Tensor(const Tensor&)>& forward,
                    IntArrayRef input_shape) {
  std::vector<Row> rows;
  std::vector<RemovableHandle> handles;
  for (const auto& child : module.named_modules("", /*include_self=*/false)) {
    Module& m = *child.value();
    if (!m.named_children().is_empty()) continue;
    handles.push_back(m.register_forward_hook([&rows](Module& hooked, const Tensor&,
                                                      const Tensor& output) {
      rows.push_back({hooked.name() + "-" + std::to_string(rows.size() + 1),
                      shape_without_batch(output), count(hooked.parameters(false), false)});
    }));
  }

  const std::vector<Tensor> params = module.parameters();
  TensorOptions options;
  if (!params.empty()) options = options.dtype(params[0].scalar_type()).device(params[0].device());
  std::vector<int64_t> shape{2};
  shape.insert(shape.end(), input_shape.begin(), input_shape.end());

  {
    // Removes the hooks and restores the mode however forward ends.
    struct Restore {
      Module& module;
      std::vector<RemovableHandle>& handles;
      bool was_training;
      ~Restore() {
        for (auto& handle : handles) handle.remove();
        module.train(was_training);
      }
    } restore{module, handles, module.is_training()};
    module.eval();
    NoGradGuard no_grad;
    forward(zeros(shape, options));
  }

  std::ostringstream os;
  const std::string rule(64, '-');
  const std::string double_rule(64, '=');
  auto line = [&os](const std::string& a, const std::string& b, const std::string& c) {
    os << std::setw(20) << a << "  " << std::setw(25) << b << " " << std::setw(15) << c << "\n";
  };
  os << rule << "\n";
  line("Layer (type)", "Output Shape", "Param #");
  os << double_rule << "\n";
  for (const Row& row : rows) line(row.layer, row.shape, with_thousands(row.params));
  os << double_rule << "\n";
  const int64_t total = count(params, false);
  const int64_t trainable = count(params, true);
  os << "Total params: " << with_thousands(total) << "\n"
     << "Trainable params: " << with_thousands(trainable) << "\n"
     << "Non-trainable params: " << with_thousands(total - trainable) << "\n"
     << rule << "\n";
  return os.str();
}

}  // namespace ember::nn
