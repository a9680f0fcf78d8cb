#pragma once
// libtorch's torch::save / torch::load for what is not a module: a tensor, a
// list of tensors, an optimizer's state. The files are safetensors (as module
// checkpoints, nn/serialize/module_io.h), not libtorch's archives: a tensor is
// stored as "tensor", a list as "0", "1", ..., an optimizer as its
// state_dict(). Loaded tensors are on the CPU.
#include <string>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/nn/optim/optimizer.h"

namespace ember {

void save(const Tensor& tensor, const std::string& path);
void load(Tensor& tensor, const std::string& path);  // rebinds tensor to the loaded one
void save(const std::vector<Tensor>& tensors, const std::string& path);
void load(std::vector<Tensor>& tensors, const std::string& path);
void save(const optim::Optimizer& optimizer, const std::string& path);
void load(optim::Optimizer& optimizer, const std::string& path);

}  // namespace ember
