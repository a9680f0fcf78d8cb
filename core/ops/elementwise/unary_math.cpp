// The elementary functions of one tensor: trigonometric and hyperbolic,
// log1p/expm1/log2/log10, and rounding (floor, ceil, round, trunc, frac),
// each with its in-place form. The shared launchers and recording are in
// unary_helpers.h; derivatives are ember ops, so they differentiate again.
#include <numbers>

#include "ember/core/autocast.h"
#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/elementwise/unary.h"
#include "ember/core/ops/elementwise/unary_math.h"
#include "ember/core/ops/elementwise/unary_helpers.h"

namespace ember {

using namespace unary_detail;

namespace {

// ---- derivatives, from the saved input x or output y ----

Tensor sin_grad(const Tensor& g, const Tensor& x) { return g * cos(x); }
Tensor cos_grad(const Tensor& g, const Tensor& x) { return -(g * sin(x)); }
Tensor tan_grad(const Tensor& g, const Tensor& y) { return g * (y * y + 1.0); }
Tensor asin_grad(const Tensor& g, const Tensor& x) { return g * rsqrt(1.0 - x * x); }
Tensor acos_grad(const Tensor& g, const Tensor& x) { return -(g * rsqrt(1.0 - x * x)); }
Tensor atan_grad(const Tensor& g, const Tensor& x) { return g / (x * x + 1.0); }
Tensor sinh_grad(const Tensor& g, const Tensor& x) { return g * cosh(x); }
Tensor cosh_grad(const Tensor& g, const Tensor& x) { return g * sinh(x); }
Tensor log1p_grad(const Tensor& g, const Tensor& x) { return g / (x + 1.0); }
Tensor expm1_grad(const Tensor& g, const Tensor& y) { return g * (y + 1.0); }
Tensor log2_grad(const Tensor& g, const Tensor& x) { return g / (x * std::numbers::ln2); }
Tensor log10_grad(const Tensor& g, const Tensor& x) { return g / (x * std::numbers::ln10); }
Tensor zero_grad(const Tensor& g, const Tensor&) { return zeros_like(g); }
Tensor frac_grad(const Tensor& g, const Tensor&) { return g; }

// floor, ceil, round, trunc: piecewise constant, so the gradient is 0 (as
// PyTorch, also at the jumps). Integers are already whole: a copy.
template <template <typename> class Op>
Tensor rounding(const char* name, const char* node_name, const Tensor& x) {
  if (x.scalar_type() == kBool) dtype_not_supported(name, kBool, "int64, float32 or float64");
  if (!is_floating_point(x.scalar_type())) return x.clone();
  return record(node_name, x, floating_only_unary<Op>(name, x), Save::kNothing, zero_grad);
}

template <template <typename> class Op>
Tensor& rounding_(const char* name, const char* node_name, const Tensor& self) {
  if (self.scalar_type() == kBool) dtype_not_supported(name, kBool, "int64, float32 or float64");
  if (is_floating_point(self.scalar_type()))
    return inplace_unary<Op>(name, node_name, self, self.scalar_type(), Save::kNothing, zero_grad);
  autograd::check_inplace(self, name);
  self.impl()->bump_version();
  return const_cast<Tensor&>(self);
}

}  // namespace

Tensor sin(const Tensor& x) {
  // derivative: d/dx = g·cos(x)
  return floating_op<functors::Sin>("sin", "SinBackward", x, Save::kInput, sin_grad);
}
Tensor cos(const Tensor& x) {
  // derivative: d/dx = -g·sin(x)
  return floating_op<functors::Cos>("cos", "CosBackward", x, Save::kInput, cos_grad);
}
// tan' = 1 + tan^2, from the output.
Tensor tan(const Tensor& x) {
  if (const auto to = autocast::cast_dtype(autocast::kCudaFloat32Op, {&x}))
    return tan(autocast::cast(x, *to));
  // derivative: d/dx = g·(1 + y²)
  return floating_op<functors::Tan>("tan", "TanBackward", x, Save::kOutput, tan_grad);
}
Tensor asin(const Tensor& x) {
  if (const auto to = autocast::cast_dtype(autocast::kCudaFloat32Op, {&x}))
    return asin(autocast::cast(x, *to));
  // derivative: d/dx = g/sqrt(1 - x²)
  return floating_op<functors::Asin>("asin", "AsinBackward", x, Save::kInput, asin_grad);
}
Tensor acos(const Tensor& x) {
  if (const auto to = autocast::cast_dtype(autocast::kCudaFloat32Op, {&x}))
    return acos(autocast::cast(x, *to));
  // derivative: d/dx = -g/sqrt(1 - x²)
  return floating_op<functors::Acos>("acos", "AcosBackward", x, Save::kInput, acos_grad);
}
Tensor atan(const Tensor& x) {
  // derivative: d/dx = g/(1 + x²)
  return floating_op<functors::Atan>("atan", "AtanBackward", x, Save::kInput, atan_grad);
}
Tensor sinh(const Tensor& x) {
  if (const auto to = autocast::cast_dtype(autocast::kCudaFloat32Op, {&x}))
    return sinh(autocast::cast(x, *to));
  // derivative: d/dx = g·cosh(x)
  return floating_op<functors::Sinh>("sinh", "SinhBackward", x, Save::kInput, sinh_grad);
}
Tensor cosh(const Tensor& x) {
  if (const auto to = autocast::cast_dtype(autocast::kCudaFloat32Op, {&x}))
    return cosh(autocast::cast(x, *to));
  // derivative: d/dx = g·sinh(x)
  return floating_op<functors::Cosh>("cosh", "CoshBackward", x, Save::kInput, cosh_grad);
}
Tensor log1p(const Tensor& x) {
  // derivative: d/dx = g/(1 + x)
  return floating_op<functors::Log1p>("log1p", "Log1pBackward", x, Save::kInput, log1p_grad);
}
Tensor expm1(const Tensor& x) {
  // derivative: d/dx = g·(y + 1)
  return floating_op<functors::Expm1>("expm1", "Expm1Backward", x, Save::kOutput, expm1_grad);
}
Tensor log2(const Tensor& x) {
  if (const auto to = autocast::cast_dtype(autocast::kCudaFloat32Op, {&x}))
    return log2(autocast::cast(x, *to));
  // derivative: d/dx = g/(x·ln 2)
  return floating_op<functors::Log2>("log2", "Log2Backward", x, Save::kInput, log2_grad);
}
Tensor log10(const Tensor& x) {
  if (const auto to = autocast::cast_dtype(autocast::kCudaFloat32Op, {&x}))
    return log10(autocast::cast(x, *to));
  // derivative: d/dx = g/(x·ln 10)
  return floating_op<functors::Log10>("log10", "Log10Backward", x, Save::kInput, log10_grad);
}
// derivative: d/dx = 0
Tensor floor(const Tensor& x) { return rounding<functors::Floor>("floor", "FloorBackward", x); }
// derivative: d/dx = 0
Tensor ceil(const Tensor& x) { return rounding<functors::Ceil>("ceil", "CeilBackward", x); }
// derivative: d/dx = 0
Tensor round(const Tensor& x) { return rounding<functors::Round>("round", "RoundBackward", x); }
// derivative: d/dx = 0
Tensor trunc(const Tensor& x) { return rounding<functors::Trunc>("trunc", "TruncBackward", x); }
Tensor frac(const Tensor& x) {
  // derivative: d/dx = g
  return record("FracBackward", x, floating_only_unary<functors::Frac>("frac", x), Save::kNothing,
                frac_grad);
}

Tensor& Tensor::sin_() const {
  return floating_op_<functors::Sin>("sin_", "SinBackward", *this, Save::kInput, sin_grad);
}
Tensor& Tensor::cos_() const {
  return floating_op_<functors::Cos>("cos_", "CosBackward", *this, Save::kInput, cos_grad);
}
Tensor& Tensor::tan_() const {
  return floating_op_<functors::Tan>("tan_", "TanBackward", *this, Save::kOutput, tan_grad);
}
Tensor& Tensor::asin_() const {
  return floating_op_<functors::Asin>("asin_", "AsinBackward", *this, Save::kInput, asin_grad);
}
Tensor& Tensor::acos_() const {
  return floating_op_<functors::Acos>("acos_", "AcosBackward", *this, Save::kInput, acos_grad);
}
Tensor& Tensor::atan_() const {
  return floating_op_<functors::Atan>("atan_", "AtanBackward", *this, Save::kInput, atan_grad);
}
Tensor& Tensor::sinh_() const {
  return floating_op_<functors::Sinh>("sinh_", "SinhBackward", *this, Save::kInput, sinh_grad);
}
Tensor& Tensor::cosh_() const {
  return floating_op_<functors::Cosh>("cosh_", "CoshBackward", *this, Save::kInput, cosh_grad);
}
Tensor& Tensor::log1p_() const {
  return floating_op_<functors::Log1p>("log1p_", "Log1pBackward", *this, Save::kInput,
                                       log1p_grad);
}
Tensor& Tensor::expm1_() const {
  return floating_op_<functors::Expm1>("expm1_", "Expm1Backward", *this, Save::kOutput,
                                       expm1_grad);
}
Tensor& Tensor::log2_() const {
  return floating_op_<functors::Log2>("log2_", "Log2Backward", *this, Save::kInput, log2_grad);
}
Tensor& Tensor::log10_() const {
  return floating_op_<functors::Log10>("log10_", "Log10Backward", *this, Save::kInput,
                                       log10_grad);
}
Tensor& Tensor::floor_() const { return rounding_<functors::Floor>("floor_", "FloorBackward", *this); }
Tensor& Tensor::ceil_() const { return rounding_<functors::Ceil>("ceil_", "CeilBackward", *this); }
Tensor& Tensor::round_() const { return rounding_<functors::Round>("round_", "RoundBackward", *this); }
Tensor& Tensor::trunc_() const { return rounding_<functors::Trunc>("trunc_", "TruncBackward", *this); }
Tensor& Tensor::frac_() const {
  if (!ember::is_floating_point(scalar_type()))
    dtype_not_supported("frac_", scalar_type(), "float32 or float64");
  return inplace_unary<functors::Frac>("frac_", "FracBackward", *this, scalar_type(),
                                       Save::kNothing, frac_grad);
}

Tensor Tensor::sin() const { return ember::sin(*this); }
Tensor Tensor::cos() const { return ember::cos(*this); }
Tensor Tensor::tan() const { return ember::tan(*this); }
Tensor Tensor::asin() const { return ember::asin(*this); }
Tensor Tensor::acos() const { return ember::acos(*this); }
Tensor Tensor::atan() const { return ember::atan(*this); }
Tensor Tensor::sinh() const { return ember::sinh(*this); }
Tensor Tensor::cosh() const { return ember::cosh(*this); }
Tensor Tensor::log1p() const { return ember::log1p(*this); }
Tensor Tensor::expm1() const { return ember::expm1(*this); }
Tensor Tensor::log2() const { return ember::log2(*this); }
Tensor Tensor::log10() const { return ember::log10(*this); }
Tensor Tensor::floor() const { return ember::floor(*this); }
Tensor Tensor::ceil() const { return ember::ceil(*this); }
Tensor Tensor::round() const { return ember::round(*this); }
Tensor Tensor::trunc() const { return ember::trunc(*this); }
Tensor Tensor::frac() const { return ember::frac(*this); }

}  // namespace ember
