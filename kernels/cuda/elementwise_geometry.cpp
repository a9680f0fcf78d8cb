#include "ember/kernels/cuda/elementwise_geometry.h"

#include <cstring>

#include "ember/core/error.h"

namespace ember::cuda {

ElementwiseGeometry make_elementwise_geometry(const char* op, IntArrayRef sizes,
                                              IntArrayRef out_strides,
                                              const IntArrayRef* input_sizes,
                                              const IntArrayRef* input_strides, int num_inputs,
                                              const char* what) {
  EMBER_INTERNAL_ASSERT(num_inputs >= 0 && num_inputs <= kMaxElementwiseInputs,
                        "elementwise geometry: ", num_inputs, " inputs");
  const int operands = num_inputs + 1;
  const size_t n = sizes.size();
  // The dims kept, innermost first: sizes and each operand's strides.
  DimVector kept_sizes, kept[kMaxElementwiseInputs + 1];
  int64_t stride[kMaxElementwiseInputs + 1];
  for (size_t i = n; i-- > 0;) {
    if (sizes[i] == 1) continue;
    stride[0] = out_strides[i];
    for (int k = 0; k < num_inputs; ++k) {
      const IntArrayRef s = input_sizes[k];
      EMBER_INTERNAL_ASSERT(s.size() <= n, "elementwise geometry: input shape ", s,
                            " vs output shape ", sizes);
      const size_t lead = n - s.size();  // input dims align on the right
      const bool broadcast = i < lead || s[i - lead] == 1;
      stride[k + 1] = broadcast ? 0 : input_strides[k][i - lead];
    }
    if (!kept_sizes.empty()) {
      const size_t in = kept_sizes.size() - 1;  // the dim just inside this one
      bool merges = true;
      for (int k = 0; k < operands; ++k)
        merges = merges && stride[k] == kept_sizes[in] * kept[k][in];
      if (merges) {
        kept_sizes[in] *= sizes[i];
        continue;
      }
    }
    kept_sizes.push_back(sizes[i]);
    for (int k = 0; k < operands; ++k) kept[k].push_back(stride[k]);
  }
  const int ndim = static_cast<int>(kept_sizes.size());
  EMBER_CHECK(ndim <= kMaxCopyDims, op, ": a CUDA ", what, " over ", ndim,
              " dims that cannot be merged (shape ", sizes, ") is not yet supported (at most ",
              kMaxCopyDims, ")");
  ElementwiseGeometry g;
  g.ndim = ndim;
  for (int d = 0; d < ndim; ++d) {  // back to outermost first
    g.sizes[d] = kept_sizes[ndim - 1 - d];
    for (int k = 0; k < operands; ++k) g.strides[k][d] = kept[k][ndim - 1 - d];
  }
  return g;
}

ScalarBits scalar_bits(const void* data, ScalarType dtype) {
  ScalarBits bits;
  std::memcpy(bits.bytes, data, element_size(dtype));
  return bits;
}

}  // namespace ember::cuda
