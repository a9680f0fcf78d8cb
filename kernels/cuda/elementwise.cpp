// The host half of the CUDA elementwise ops: plans each launch from the
// tensors (geometry, vector path) and hands it to the kernels of
// elementwise_*.cu. Compiled in every build; without CUDA each op raises.
#include "ember/kernels/cuda/elementwise.h"

#include <algorithm>

#include "ember/core/error.h"
#include "ember/kernels/cuda/host_helpers.h"

#ifdef EMBER_WITH_CUDA
#include "ember/kernels/cuda/elementwise_launch.h"
#endif

namespace ember::cuda {

using detail::no_cuda;

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

void binary_kernel(const char* name, BinaryOp op, const Tensor& out, const Tensor& a,
                   const Tensor& b, double alpha) {
#ifdef EMBER_WITH_CUDA
  if (out.numel() == 0) return;
  detail::launch_binary(name, op, plan_elementwise(name, out, {&a, &b}), alpha);
#else
  (void)op, (void)a, (void)b, (void)alpha;
  no_cuda(name, out);
#endif
}

void unary_kernel(const char* name, UnaryOp op, const Tensor& out, const Tensor& x,
                  const Scalar& p0, const Scalar& p1, const Scalar& p2) {
#ifdef EMBER_WITH_CUDA
  if (out.numel() == 0) return;
  detail::launch_unary(name, op, plan_elementwise(name, out, {&x}), p0, p1, p2);
#else
  (void)op, (void)x, (void)p0, (void)p1, (void)p2;
  no_cuda(name, out);
#endif
}

void compare_kernel(const char* name, CompareOp op, const Tensor& out, const Tensor& a,
                    const Tensor& b, double rtol, double atol, bool equal_nan) {
#ifdef EMBER_WITH_CUDA
  if (out.numel() == 0) return;
  detail::launch_compare(name, op, plan_elementwise(name, out, {&a, &b}), rtol, atol, equal_nan);
#else
  (void)op, (void)a, (void)b, (void)rtol, (void)atol, (void)equal_nan;
  no_cuda(name, out);
#endif
}

void ternary_kernel(const char* name, TernaryOp op, const Tensor& out, const Tensor& a,
                    const Tensor& b, const Tensor& c, const Scalar& value) {
#ifdef EMBER_WITH_CUDA
  if (out.numel() == 0) return;
  detail::launch_ternary(name, op, plan_elementwise(name, out, {&a, &b, &c}), value);
#else
  (void)op, (void)a, (void)b, (void)c, (void)value;
  no_cuda(name, out);
#endif
}

void where_kernel(const Tensor& out, const Tensor& condition, const Tensor& a, const Tensor& b) {
#ifdef EMBER_WITH_CUDA
  if (out.numel() == 0) return;
  detail::launch_where(plan_elementwise("where", out, {&condition, &a, &b}));
#else
  (void)condition, (void)a, (void)b;
  no_cuda("where", out);
#endif
}

void loss_kernel(const char* name, LossOp op, const Tensor& out,
                 std::initializer_list<const Tensor*> inputs) {
#ifdef EMBER_WITH_CUDA
  if (out.numel() == 0) return;
  detail::launch_loss(name, op, plan_elementwise(name, out, inputs));
#else
  (void)op, (void)inputs;
  no_cuda(name, out);
#endif
}

}  // namespace ember::cuda
