#pragma once
// The safetensors format (Hugging Face), read and written without third-party
// code, so PyTorch's safetensors.torch.load_file/save_file exchange tensors with us:
//   8 bytes   little-endian u64 N, the header length
//   N bytes   UTF-8 JSON {"name": {"dtype": "F32", "shape": [2, 3],
//             "data_offsets": [begin, end]}, ..., "__metadata__": {"key": "value"}},
//             padded with spaces to a multiple of 8
//   the rest  the data buffer: each tensor's bytes, row-major, little-endian, at
//             [begin, end) relative to the buffer; the ranges tile it exactly.
// ember reads and writes the dtypes it has: F32, F64, I64 and BOOL.
#include <map>
#include <string>

#include "ember/core/tensor.h"
#include "ember/nn/ordered_dict.h"

namespace ember {

struct SafetensorsFile {
  OrderedDict<std::string, Tensor> tensors{"Tensor"};  // CPU tensors, in header order
  std::map<std::string, std::string> metadata;         // "__metadata__"
};

// Writes atomically (core/atomic_file.h). Tensors may be on any
// device, of any strides; the header lists them in the dict's order.
void save_safetensors(const std::string& path, const OrderedDict<std::string, Tensor>& tensors,
                      const std::map<std::string, std::string>& metadata = {});

// Checks the whole header against the file size before reading any data; a
// malformed file raises ember::Error naming the file and the problem.
SafetensorsFile load_safetensors(const std::string& path);

}  // namespace ember
