// The plan of a CUDA elementwise launch from the tensors (geometry, vector
// path), read by the kernels of kernels/cuda/elementwise_*.cu. Compiled in
// every build, so the CPU tests check it.
#include "ember/kernels/common/cuda_plans/elementwise_launch.h"

#include <algorithm>

#include "ember/core/error.h"
#include "ember/kernels/common/cuda_plans/host_helpers.h"

namespace ember::cuda {

namespace {

// Whether x is read the same way the vector path reads it: one element for
// every index, or dense in out's shape.
bool is_scalar_operand(const Tensor& x) { return x.numel() == 1; }
bool dense_like_out(const Tensor& x, const Tensor& out) {
  return x.is_contiguous() && x.sizes() == out.sizes();
}

}  // namespace

ElementwiseLaunch plan_elementwise(const char* name, const Tensor& out,
                                   std::initializer_list<const Tensor*> inputs) {
  EMBER_INTERNAL_ASSERT(inputs.size() <= kMaxElementwiseInputs, name, ": ", inputs.size(),
                        " inputs");
  ElementwiseLaunch l;
  l.out = out.data_ptr();
  l.out_dtype = out.scalar_type();
  l.numel = out.numel();
  l.device = detail::device_of(out);
  size_t widest = element_size(out.scalar_type());
  bool dense = out.is_contiguous();
  IntArrayRef sizes[kMaxElementwiseInputs], strides[kMaxElementwiseInputs];
  for (const Tensor* x : inputs) {
    const int k = l.num_inputs++;
    l.input_dtypes[k] = x->scalar_type();
    l.input_is_scalar[k] = is_scalar_operand(*x);
    // A CPU scalar next to device operands travels in the launch's parameters.
    l.input_by_value[k] = x->device() != out.device();
    EMBER_INTERNAL_ASSERT(!l.input_by_value[k] || (x->is_cpu() && x->dim() == 0), name,
                          ": operand ", x->toString(), " is not on ", out.device());
    if (l.input_by_value[k])
      l.input_values[k] = scalar_bits(x->data_ptr(), x->scalar_type());
    else
      l.inputs[k] = x->data_ptr();
    widest = std::max(widest, element_size(x->scalar_type()));
    dense = dense && (l.input_is_scalar[k] || dense_like_out(*x, out));
    sizes[k] = x->sizes();
    strides[k] = x->strides();
  }
  if (dense) {
    const int width = vector_width(widest);
    bool aligned = vector_aligned(reinterpret_cast<uintptr_t>(l.out),
                                  element_size(l.out_dtype), width);
    for (int k = 0; k < l.num_inputs; ++k)
      aligned = aligned && (l.input_is_scalar[k] ||
                            vector_aligned(reinterpret_cast<uintptr_t>(l.inputs[k]),
                                           element_size(l.input_dtypes[k]), width));
    l.vectorized = aligned;
  }
  // Misaligned dense operands take the index path: they merge to one dim.
  if (!l.vectorized)
    l.geometry = make_elementwise_geometry(name, out.sizes(), out.strides(), sizes, strides,
                                           l.num_inputs);
  return l;
}

}  // namespace ember::cuda
