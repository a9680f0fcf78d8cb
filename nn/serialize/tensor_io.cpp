#include "ember/nn/serialize/tensor_io.h"

#include "ember/nn/serialize/safetensors.h"

namespace ember {

namespace {
const std::map<std::string, std::string> kFormat{{"format", "pt"}};
}  // namespace

void save(const Tensor& tensor, const std::string& path) {
  EMBER_CHECK(tensor.defined(), "save: the tensor is undefined (", path, ")");
  OrderedDict<std::string, Tensor> dict("Tensor");
  dict.insert("tensor", tensor);
  save_safetensors(path, dict, kFormat);
}

void load(Tensor& tensor, const std::string& path) {
  SafetensorsFile file = load_safetensors(path);
  const Tensor* t = file.tensors.find("tensor");
  EMBER_CHECK(t != nullptr && file.tensors.size() == 1, "load: '", path,
              "' does not hold one tensor saved by save(tensor, path)");
  tensor = *t;
}

void save(const std::vector<Tensor>& tensors, const std::string& path) {
  OrderedDict<std::string, Tensor> dict("Tensor");
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].defined(), "save: tensor ", i, " of the list is undefined (", path, ")");
    dict.insert(std::to_string(i), tensors[i]);
  }
  save_safetensors(path, dict, kFormat);
}

void load(std::vector<Tensor>& tensors, const std::string& path) {
  SafetensorsFile file = load_safetensors(path);
  std::vector<Tensor> out;
  for (size_t i = 0; i < file.tensors.size(); ++i) {
    const Tensor* t = file.tensors.find(std::to_string(i));
    EMBER_CHECK(t != nullptr, "load: '", path, "' does not hold a tensor list saved by "
                "save(tensors, path) (no entry \"", i, "\")");
    out.push_back(*t);
  }
  tensors = std::move(out);
}

void save(const optim::Optimizer& optimizer, const std::string& path) {
  save_safetensors(path, optimizer.state_dict(), kFormat);
}

void load(optim::Optimizer& optimizer, const std::string& path) {
  const SafetensorsFile file = load_safetensors(path);
  try {
    optimizer.load_state_dict(file.tensors);
  } catch (const Error& e) {
    EMBER_ERROR("load: '", path, "': ", e.what());  // the state dict's errors do not know the file
  }
}

}  // namespace ember
