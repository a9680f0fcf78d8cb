// eq, ne, lt, le, gt, ge (and their operators), equal, allclose: bool
// results, computed in the dtype the operands promote to. Nothing here is
// differentiable, so no op records autograd.
#include "ember/core/ops/elementwise/compare.h"

#include <algorithm>

#include "ember/core/ops/elementwise/binary.h"
#include "ember/core/ops/elementwise/compare_helpers.h"
#include "ember/kernels/common/compare_functors.h"

namespace ember {

using detail::bool_elementwise;
namespace {

// True when every element of a freshly computed (contiguous) bool tensor is
// set; a CUDA mask is read on the host (one sync), as torch.equal's item().
bool all_true(const Tensor& device_mask) {
  const Tensor mask = device_mask.is_cpu() ? device_mask : device_mask.cpu();
  const bool* p = mask.data_ptr<bool>();
  return std::all_of(p, p + mask.numel(), [](bool v) { return v; });
}

}  // namespace

Tensor eq(const Tensor& a, const Tensor& b) { return bool_elementwise<functors::Eq>("eq", a, b); }
Tensor eq(const Tensor& a, const Scalar& b) { return eq(a, detail::scalar_operand(b, a)); }
Tensor ne(const Tensor& a, const Tensor& b) { return bool_elementwise<functors::Ne>("ne", a, b); }
Tensor ne(const Tensor& a, const Scalar& b) { return ne(a, detail::scalar_operand(b, a)); }
Tensor lt(const Tensor& a, const Tensor& b) { return bool_elementwise<functors::Lt>("lt", a, b); }
Tensor lt(const Tensor& a, const Scalar& b) { return lt(a, detail::scalar_operand(b, a)); }
Tensor le(const Tensor& a, const Tensor& b) { return bool_elementwise<functors::Le>("le", a, b); }
Tensor le(const Tensor& a, const Scalar& b) { return le(a, detail::scalar_operand(b, a)); }
Tensor gt(const Tensor& a, const Tensor& b) { return bool_elementwise<functors::Gt>("gt", a, b); }
Tensor gt(const Tensor& a, const Scalar& b) { return gt(a, detail::scalar_operand(b, a)); }
Tensor ge(const Tensor& a, const Tensor& b) { return bool_elementwise<functors::Ge>("ge", a, b); }
Tensor ge(const Tensor& a, const Scalar& b) { return ge(a, detail::scalar_operand(b, a)); }

bool equal(const Tensor& a, const Tensor& b) {
  if (a.sizes() != b.sizes()) return false;
  return all_true(eq(a, b));
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  if (a.sizes() != b.sizes()) return false;
  return all_true(bool_elementwise<functors::IsClose>("allclose", a, b, rtol, atol, equal_nan));
}

Tensor Tensor::eq(const Tensor& other) const { return ember::eq(*this, other); }
Tensor Tensor::eq(const Scalar& other) const { return ember::eq(*this, other); }
Tensor Tensor::ne(const Tensor& other) const { return ember::ne(*this, other); }
Tensor Tensor::ne(const Scalar& other) const { return ember::ne(*this, other); }
Tensor Tensor::lt(const Tensor& other) const { return ember::lt(*this, other); }
Tensor Tensor::lt(const Scalar& other) const { return ember::lt(*this, other); }
Tensor Tensor::le(const Tensor& other) const { return ember::le(*this, other); }
Tensor Tensor::le(const Scalar& other) const { return ember::le(*this, other); }
Tensor Tensor::gt(const Tensor& other) const { return ember::gt(*this, other); }
Tensor Tensor::gt(const Scalar& other) const { return ember::gt(*this, other); }
Tensor Tensor::ge(const Tensor& other) const { return ember::ge(*this, other); }
Tensor Tensor::ge(const Scalar& other) const { return ember::ge(*this, other); }

Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
Tensor operator==(const Tensor& a, const Scalar& b) { return eq(a, b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
Tensor operator!=(const Tensor& a, const Scalar& b) { return ne(a, b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
Tensor operator<(const Tensor& a, const Scalar& b) { return lt(a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
Tensor operator<=(const Tensor& a, const Scalar& b) { return le(a, b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
Tensor operator>(const Tensor& a, const Scalar& b) { return gt(a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }
Tensor operator>=(const Tensor& a, const Scalar& b) { return ge(a, b); }

}  // namespace ember
