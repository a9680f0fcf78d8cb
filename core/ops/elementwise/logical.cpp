// logical_and/or/xor and bitwise_and/or/xor/not, their in-place forms and the
// &, |, ^, ~ operators. No autograd: the results are bool or integer.
#include "ember/core/ops/elementwise/logical.h"

#include "ember/core/ops/elementwise/binary_helpers.h"
#include "ember/core/ops/elementwise/compare_helpers.h"
#include "ember/core/ops/elementwise/unary_helpers.h"
#include "ember/kernels/common/compare_functors.h"

namespace ember {

using detail::bool_elementwise;
namespace {

// As PyTorch: self keeps its dtype, holding the bool result as 0 / 1.
template <template <typename> class Op>
Tensor& logical_(const char* name, const Tensor& self, const Tensor& other) {
  autograd::check_inplace(self, name, {other});
  detail::check_operand_device(name, self, other);
  EMBER_CHECK(is_expandable_to(other.sizes(), self.sizes()), name, ": the operand of shape ",
              other.sizes(), " does not broadcast to the destination's shape ", self.sizes());
  assert_no_internal_overlap(name, self);
  const Tensor result = bool_elementwise<Op>(name, self, other);
  {
    NoGradGuard guard;
    self.copy_(result);
  }
  return const_cast<Tensor&>(self);
}

void check_bitwise(const char* name, ScalarType t) {
  EMBER_CHECK(!is_floating_point(t), name, ": only bool and integer tensors are supported, got ", t);
}

template <template <typename> class Op>
Tensor bitwise(const char* name, const Tensor& a, const Tensor& b) {
  check_bitwise(name, result_type(a, b));
  return binary_detail::binary<Op>(name, a, b, result_type(a, b));
}

template <template <typename> class Op>
Tensor& bitwise_(const char* name, const Tensor& self, const Tensor& other) {
  autograd::check_inplace(self, name, {other});
  check_bitwise(name, result_type(self, other));
  binary_detail::binary_inplace<Op>(name, self, other, result_type(self, other));
  return const_cast<Tensor&>(self);
}

}  // namespace

Tensor logical_and(const Tensor& a, const Tensor& b) { return bool_elementwise<functors::LogicalAnd>("logical_and", a, b); }
Tensor logical_or(const Tensor& a, const Tensor& b) { return bool_elementwise<functors::LogicalOr>("logical_or", a, b); }
Tensor logical_xor(const Tensor& a, const Tensor& b) { return bool_elementwise<functors::LogicalXor>("logical_xor", a, b); }

Tensor bitwise_and(const Tensor& a, const Tensor& b) { return bitwise<functors::BitwiseAnd>("bitwise_and", a, b); }
Tensor bitwise_and(const Tensor& a, const Scalar& b) { return bitwise_and(a, detail::scalar_operand(b, a)); }
Tensor bitwise_or(const Tensor& a, const Tensor& b) { return bitwise<functors::BitwiseOr>("bitwise_or", a, b); }
Tensor bitwise_or(const Tensor& a, const Scalar& b) { return bitwise_or(a, detail::scalar_operand(b, a)); }
Tensor bitwise_xor(const Tensor& a, const Tensor& b) { return bitwise<functors::BitwiseXor>("bitwise_xor", a, b); }
Tensor bitwise_xor(const Tensor& a, const Scalar& b) { return bitwise_xor(a, detail::scalar_operand(b, a)); }

Tensor bitwise_not(const Tensor& x) {
  check_bitwise("bitwise_not", x.scalar_type());
  return dispatch_compute<DtypeSet::kIntegral>(x.scalar_type(), "bitwise_not", [&]<typename T>() {
    return unary_detail::unary_kernel<functors::BitwiseNot, T>("bitwise_not", x, x.scalar_type());
  });
}

Tensor Tensor::logical_and(const Tensor& o) const { return ember::logical_and(*this, o); }
Tensor Tensor::logical_or(const Tensor& o) const { return ember::logical_or(*this, o); }
Tensor Tensor::logical_xor(const Tensor& o) const { return ember::logical_xor(*this, o); }
Tensor Tensor::bitwise_and(const Tensor& o) const { return ember::bitwise_and(*this, o); }
Tensor Tensor::bitwise_and(const Scalar& o) const { return ember::bitwise_and(*this, o); }
Tensor Tensor::bitwise_or(const Tensor& o) const { return ember::bitwise_or(*this, o); }
Tensor Tensor::bitwise_or(const Scalar& o) const { return ember::bitwise_or(*this, o); }
Tensor Tensor::bitwise_xor(const Tensor& o) const { return ember::bitwise_xor(*this, o); }
Tensor Tensor::bitwise_xor(const Scalar& o) const { return ember::bitwise_xor(*this, o); }
Tensor Tensor::bitwise_not() const { return ember::bitwise_not(*this); }

Tensor& Tensor::logical_and_(const Tensor& o) const { return logical_<functors::LogicalAnd>("logical_and_", *this, o); }
Tensor& Tensor::logical_or_(const Tensor& o) const { return logical_<functors::LogicalOr>("logical_or_", *this, o); }
Tensor& Tensor::logical_xor_(const Tensor& o) const { return logical_<functors::LogicalXor>("logical_xor_", *this, o); }
Tensor& Tensor::bitwise_and_(const Tensor& o) const { return bitwise_<functors::BitwiseAnd>("bitwise_and_", *this, o); }
Tensor& Tensor::bitwise_and_(const Scalar& o) const { return bitwise_and_(detail::scalar_operand(o, *this)); }
Tensor& Tensor::bitwise_or_(const Tensor& o) const { return bitwise_<functors::BitwiseOr>("bitwise_or_", *this, o); }
Tensor& Tensor::bitwise_or_(const Scalar& o) const { return bitwise_or_(detail::scalar_operand(o, *this)); }
Tensor& Tensor::bitwise_xor_(const Tensor& o) const { return bitwise_<functors::BitwiseXor>("bitwise_xor_", *this, o); }
Tensor& Tensor::bitwise_xor_(const Scalar& o) const { return bitwise_xor_(detail::scalar_operand(o, *this)); }
Tensor& Tensor::bitwise_not_() const {
  autograd::check_inplace(*this, "bitwise_not_");
  check_bitwise("bitwise_not_", scalar_type());
  assert_no_internal_overlap("bitwise_not_", *this);
  dispatch_compute<DtypeSet::kIntegral>(scalar_type(), "bitwise_not_", [&]<typename T>() {
    unary_detail::launch<functors::BitwiseNot, T>("bitwise_not_", *this, *this);
  });
  impl()->bump_version();
  return const_cast<Tensor&>(*this);
}

Tensor operator&(const Tensor& a, const Tensor& b) { return bitwise_and(a, b); }
Tensor operator&(const Tensor& a, const Scalar& b) { return bitwise_and(a, b); }
Tensor operator&(const Scalar& a, const Tensor& b) { return bitwise_and(b, a); }
Tensor operator|(const Tensor& a, const Tensor& b) { return bitwise_or(a, b); }
Tensor operator|(const Tensor& a, const Scalar& b) { return bitwise_or(a, b); }
Tensor operator|(const Scalar& a, const Tensor& b) { return bitwise_or(b, a); }
Tensor operator^(const Tensor& a, const Tensor& b) { return bitwise_xor(a, b); }
Tensor operator^(const Tensor& a, const Scalar& b) { return bitwise_xor(a, b); }
Tensor operator^(const Scalar& a, const Tensor& b) { return bitwise_xor(b, a); }
Tensor operator~(const Tensor& a) { return bitwise_not(a); }
Tensor& operator&=(Tensor& a, const Tensor& b) { return a.bitwise_and_(b); }
Tensor& operator&=(Tensor& a, const Scalar& b) { return a.bitwise_and_(b); }
Tensor& operator|=(Tensor& a, const Tensor& b) { return a.bitwise_or_(b); }
Tensor& operator|=(Tensor& a, const Scalar& b) { return a.bitwise_or_(b); }
Tensor& operator^=(Tensor& a, const Tensor& b) { return a.bitwise_xor_(b); }
Tensor& operator^=(Tensor& a, const Scalar& b) { return a.bitwise_xor_(b); }

}  // namespace ember
