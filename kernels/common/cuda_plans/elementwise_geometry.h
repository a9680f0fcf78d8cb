#pragma once
// The plain-data description of one CUDA elementwise launch (out = f(in...)),
// built on the host by cuda_plans/elementwise_launch.cpp and read by the
// kernels in kernels/cuda/loops.cuh. Plain C++ (built in every configuration), so the
// dim merging, the index math and the vector-path rule are tested on the CPU.
#include <cstdint>

#include "ember/core/dim_vector.h"
#include "ember/core/dtype.h"
#include "ember/kernels/common/macros.h"
#include "ember/kernels/common/cuda_plans/copy_geometry.h"

namespace ember::cuda {

constexpr int kMaxElementwiseInputs = 3;
// Bytes each thread moves per operand on the vector path.
constexpr int kVectorBytes = 16;

// Operand 0 is the output, operands 1..num_inputs the inputs, each with its
// element strides over the merged sizes (0 on broadcast dims).
struct ElementwiseGeometry {
  int ndim = 0;  // 0: one element at offset 0 of each operand
  int64_t sizes[kMaxCopyDims] = {};
  int64_t strides[kMaxElementwiseInputs + 1][kMaxCopyDims] = {};
};

// The geometry of out[i] = f(in_k[i]...) over out's shape, each input
// broadcast to it (stride 0 on broadcast dims; an input of no dims is one
// value), merged as Note [Broadcast geometry] says, in fixed arrays for the
// kernel's parameters. Error naming `op` (a CUDA `what`) when more than
// kMaxCopyDims remain.
// make_copy_geometry is this with one input.
ElementwiseGeometry make_elementwise_geometry(const char* op, IntArrayRef sizes,
                                              IntArrayRef out_strides,
                                              const IntArrayRef* input_sizes,
                                              const IntArrayRef* input_strides, int num_inputs,
                                              const char* what = "elementwise op");

// The element offsets of the element with row-major index i over g.sizes,
// for the output and the first N - 1 inputs.
template <int N>
EMBER_HOST_DEVICE void operand_offsets(const ElementwiseGeometry& g, int64_t i,
                                       int64_t (&offsets)[N]) {
  for (int k = 0; k < N; ++k) offsets[k] = 0;
  for (int d = g.ndim - 1; d >= 0; --d) {
    const int64_t idx = i % g.sizes[d];
    i /= g.sizes[d];
    for (int k = 0; k < N; ++k) offsets[k] += idx * g.strides[k][d];
  }
}

// Elements per vector access: kVectorBytes of the widest operand, so every
// operand's access is a whole aligned vector (16 floats of 1-byte bool
// next to 4 floats would not be).
constexpr int vector_width(size_t widest_element_size) {
  return static_cast<int>(kVectorBytes / widest_element_size);
}

// Whether a dense operand at `address` can be read or written `width`
// elements of `element_size` bytes at a time (aligned to the vector's bytes).
constexpr bool vector_aligned(uintptr_t address, size_t element_size, int width) {
  return address % (element_size * static_cast<size_t>(width)) == 0;
}

// One input value carried in the launch's parameters instead of device
// memory: the bytes of a CPU scalar operand (a Scalar, or a 0-dim CPU tensor
// next to CUDA tensors), read as the kernel's input type.
struct alignas(8) ScalarBits {
  unsigned char bytes[8] = {};
  template <typename T>
  EMBER_HOST_DEVICE T as() const {
    static_assert(sizeof(T) <= sizeof(bytes));
    return *reinterpret_cast<const T*>(bytes);
  }
};

// The bytes of the one element of a 0-dim host tensor's data of `dtype` at `data`.
ScalarBits scalar_bits(const void* data, ScalarType dtype);

// The operands of one launch. `vectorized`: every operand is dense in out's
// shape (or one element read for every index: input_is_scalar) and aligned
// for vector_width; the kernel then ignores `geometry`. An input with
// input_by_value set is a scalar whose value is in input_values (its pointer
// is null: it lives on the host).
struct ElementwiseLaunch {
  void* out = nullptr;
  ScalarType out_dtype = kFloat;
  int num_inputs = 0;
  const void* inputs[kMaxElementwiseInputs] = {};
  ScalarType input_dtypes[kMaxElementwiseInputs] = {};
  bool input_is_scalar[kMaxElementwiseInputs] = {};
  bool input_by_value[kMaxElementwiseInputs] = {};
  ScalarBits input_values[kMaxElementwiseInputs];
  int64_t numel = 0;
  bool vectorized = false;
  ElementwiseGeometry geometry;
  int device = 0;
};

}  // namespace ember::cuda
