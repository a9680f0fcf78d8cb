#include "ember/kernels/common/cuda_plans/elementwise_geometry.h"

#include <cstring>

#include "ember/core/error.h"
#include "ember/kernels/common/broadcast_geometry.h"

namespace ember::cuda {

ElementwiseGeometry make_elementwise_geometry(const char* op, IntArrayRef sizes,
                                              IntArrayRef out_strides,
                                              const IntArrayRef* input_sizes,
                                              const IntArrayRef* input_strides, int num_inputs,
                                              const char* what) {
  EMBER_INTERNAL_ASSERT(num_inputs >= 0 && num_inputs <= kMaxElementwiseInputs,
                        "elementwise geometry: ", num_inputs, " inputs");
  const int operands = num_inputs + 1;
  IntArrayRef operand_sizes[kMaxElementwiseInputs + 1] = {sizes};
  IntArrayRef operand_strides[kMaxElementwiseInputs + 1] = {out_strides};
  for (int k = 0; k < num_inputs; ++k) {
    operand_sizes[k + 1] = input_sizes[k];
    operand_strides[k + 1] = input_strides[k];
  }
  const BroadcastGeometry merged =
      broadcast_geometry(sizes, operand_sizes, operand_strides, operands);
  const int ndim = static_cast<int>(merged.sizes.size());
  EMBER_CHECK(ndim <= kMaxCopyDims, op, ": a CUDA ", what, " over ", ndim,
              " dims that cannot be merged (shape ", sizes, ") is not yet supported (at most ",
              kMaxCopyDims, ")");
  ElementwiseGeometry g;
  g.ndim = ndim;
  for (int d = 0; d < ndim; ++d) {
    g.sizes[d] = merged.sizes[d];
    for (int k = 0; k < operands; ++k) g.strides[k][d] = merged.strides[k][d];
  }
  return g;
}

ScalarBits scalar_bits(const void* data, ScalarType dtype) {
  ScalarBits bits;
  std::memcpy(bits.bytes, data, element_size(dtype));
  return bits;
}

}  // namespace ember::cuda
