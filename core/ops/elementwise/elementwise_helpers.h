#pragma once
// Internal helpers shared by the elementwise op files (binary.cpp, unary.cpp,
// compare.cpp): device checks (CPU scalars join any device) and dtype casts
// that record nothing.
#include <cmath>

#include "ember/autograd/grad_mode.h"
#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/core/shape.h"

namespace ember::detail {

inline void check_same_device(const char* op, const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.device() == b.device(), op, ": expected all tensors on the same device, got ",
              a.toString(), " and ", b.toString());
}

// A 0-dim CPU tensor: as in PyTorch, an elementwise op takes it next to tensors
// of any device, as a value (CUDA kernels receive it by value, no copy).
inline bool is_cpu_scalar(const Tensor& t) { return t.is_cpu() && t.dim() == 0; }

// The device an elementwise op over `operands` runs on: the one device of
// those that are not CPU scalars (the CPU when all are). Error naming both
// tensors when two operands are on different devices.
inline Device common_device(const char* op, std::initializer_list<const Tensor*> operands) {
  const Tensor* anchor = nullptr;
  for (const Tensor* t : operands) {
    if (is_cpu_scalar(*t)) continue;
    if (!anchor)
      anchor = t;
    else
      check_same_device(op, *anchor, *t);
  }
  return anchor ? anchor->device() : Device(kCPU);
}

// For in-place ops: `other` must be on self's device, or be a CPU scalar.
inline void check_operand_device(const char* op, const Tensor& self, const Tensor& other) {
  if (!is_cpu_scalar(other) || self.is_cpu()) check_same_device(op, self, other);
}

// x in dtype t, without recording autograd (the calling op records itself).
inline Tensor cast_for_kernel(const Tensor& x, ScalarType t) {
  if (x.scalar_type() == t) return x;
  NoGradGuard guard;
  return x.to(t);
}

// A Scalar operand as a 0-dim CPU tensor of the dtype an op with `like`
// computes in: a CPU scalar, which joins `like`'s device by value.
// A value beyond a floating dtype's range becomes +-inf and an integer beyond
// a narrow integer dtype's wraps, as the casts in PyTorch's kernels do
// (uint8 1 + 300 is 45).
inline Tensor scalar_operand(const Scalar& s, const Tensor& like) {
  const ScalarType t = result_type(like, s);
  Scalar v = s;
  if (!converts_without_overflow(s, t)) {
    if (is_floating_point(t))
      v = Scalar(std::copysign(INFINITY, s.toDouble()));
    else
      v = dispatch_storage(t, "scalar", [&]<typename T>() { return Scalar(static_cast<int64_t>(s.to<T>())); });
  }
  return scalar_tensor(v, like.options().dtype(t).device(kCPU));
}

// Category order for promotion: bool 0 < integer 1 < floating 2.
inline int dtype_category(ScalarType t) { return is_floating_point(t) ? 2 : (t == kBool ? 0 : 1); }

// PyTorch's rule for in-place ops: the computed dtype must be castable to the
// destination without leaving its category (no float into int64).
inline void check_inplace_dtype(const char* op, const Tensor& self, ScalarType result) {
  EMBER_CHECK(dtype_category(result) <= dtype_category(self.scalar_type()), op, ": result type ",
              result, " can't be cast to the destination's dtype ", self.scalar_type());
}

// Writes `value` into every element of t (no version bump, no autograd):
// the body of fill_ and of the factories.
void fill_kernel(const Tensor& t, const Scalar& value);

}  // namespace ember::detail
