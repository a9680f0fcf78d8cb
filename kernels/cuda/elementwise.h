#pragma once
// The elementwise ops on CUDA tensors: the device half of core/ops/binary.cpp,
// unary.cpp and compare.cpp. The op has checked devices and shapes, promoted
// the dtypes and cast the inputs (cast_for_kernel): every input has the dtype
// the functor computes in, broadcasts to out's shape, and lives on out's
// device. The functors are the CPU's (kernels/common), named by an enum; each
// family's kernels are instantiated in kernels/cuda/elementwise_*.cu for the
// dtypes its ops accept. Without the CUDA backend each raises an Error.
#include "ember/core/tensor.h"
#include "ember/kernels/common/binary_functors.h"
#include "ember/kernels/common/compare_functors.h"
#include "ember/kernels/common/pointwise_functors.h"
#include "ember/kernels/common/special_functors.h"
#include "ember/kernels/common/unary_functors.h"
#include "ember/kernels/cuda/elementwise_geometry.h"
#include "ember/kernels/cuda/elementwise_ops.h"

namespace ember::cuda {

// out = Op(a, b), out, a and b of one dtype; alpha is add/sub's.
void binary_kernel(const char* name, BinaryOp op, const Tensor& out, const Tensor& a,
                   const Tensor& b, double alpha = 1);
// out = Op(x) with Op's parameters p0, p1, p2 (leaky_relu's slope; clamp's and
// in-range's bounds; logit's eps; nan_to_num's replacements) in x's dtype; out
// has x's dtype, or bool for predicates.
void unary_kernel(const char* name, UnaryOp op, const Tensor& out, const Tensor& x,
                  const Scalar& p0 = Scalar(), const Scalar& p1 = Scalar(),
                  const Scalar& p2 = Scalar());
// out (bool) = Op(a, b), a and b of one dtype; rtol, atol, equal_nan are isclose's.
void compare_kernel(const char* name, CompareOp op, const Tensor& out, const Tensor& a,
                    const Tensor& b, double rtol = 0, double atol = 0, bool equal_nan = false);
// out = Op(a, b, c), every tensor of out's dtype (c may be a CPU scalar);
// value is addcmul's and addcdiv's, in out's dtype.
void ternary_kernel(const char* name, TernaryOp op, const Tensor& out, const Tensor& a,
                    const Tensor& b, const Tensor& c, const Scalar& value = Scalar());
// out = condition ? a : b, condition bool, a and b of out's dtype.
void where_kernel(const Tensor& out, const Tensor& condition, const Tensor& a, const Tensor& b);
// out = Op(inputs...), every tensor of out's floating dtype: log_sigmoid (x),
// binary_cross_entropy (x, y), binary_cross_entropy_with_logits (x, y, pos_weight).
void loss_kernel(const char* name, LossOp op, const Tensor& out,
                 std::initializer_list<const Tensor*> inputs);

// The launch of out = f(inputs...) (at most kMaxElementwiseInputs): the
// geometry, and whether the vector path applies. Exposed for the CPU tests.
ElementwiseLaunch plan_elementwise(const char* name, const Tensor& out,
                                   std::initializer_list<const Tensor*> inputs);

// The enum naming a functor template (BinaryOpOf<functors::Add>::value ==
// BinaryOp::kAdd); a functor without a CUDA kernel has no value and does not compile.
template <template <typename> class Op>
struct BinaryOpOf;
#define EMBER_CUDA_BINARY_OP(name)                      \
  template <>                                           \
  struct BinaryOpOf<functors::name> {                   \
    static constexpr BinaryOp value = BinaryOp::k##name; \
  };
EMBER_CUDA_BINARY_OP(Add) EMBER_CUDA_BINARY_OP(Sub) EMBER_CUDA_BINARY_OP(Mul)
EMBER_CUDA_BINARY_OP(Div) EMBER_CUDA_BINARY_OP(Pow) EMBER_CUDA_BINARY_OP(Maximum)
EMBER_CUDA_BINARY_OP(Minimum) EMBER_CUDA_BINARY_OP(ReluBackward) EMBER_CUDA_BINARY_OP(Remainder)
EMBER_CUDA_BINARY_OP(Fmod) EMBER_CUDA_BINARY_OP(FloorDivide) EMBER_CUDA_BINARY_OP(Atan2)
EMBER_CUDA_BINARY_OP(BitwiseAnd) EMBER_CUDA_BINARY_OP(BitwiseOr) EMBER_CUDA_BINARY_OP(BitwiseXor)
EMBER_CUDA_BINARY_OP(Hypot) EMBER_CUDA_BINARY_OP(Xlogy) EMBER_CUDA_BINARY_OP(Copysign)
EMBER_CUDA_BINARY_OP(LogAddExp) EMBER_CUDA_BINARY_OP(LogAddExp2) EMBER_CUDA_BINARY_OP(Heaviside)
#undef EMBER_CUDA_BINARY_OP

template <template <typename> class Op>
struct UnaryOpOf;
#define EMBER_CUDA_UNARY_OP(name)                      \
  template <>                                          \
  struct UnaryOpOf<functors::name> {                   \
    static constexpr UnaryOp value = UnaryOp::k##name; \
  };
EMBER_CUDA_UNARY_OP(Neg) EMBER_CUDA_UNARY_OP(Exp) EMBER_CUDA_UNARY_OP(Log)
EMBER_CUDA_UNARY_OP(Sqrt) EMBER_CUDA_UNARY_OP(Rsqrt) EMBER_CUDA_UNARY_OP(Abs)
EMBER_CUDA_UNARY_OP(Sign) EMBER_CUDA_UNARY_OP(Square) EMBER_CUDA_UNARY_OP(Reciprocal)
EMBER_CUDA_UNARY_OP(Relu) EMBER_CUDA_UNARY_OP(LeakyRelu) EMBER_CUDA_UNARY_OP(Sigmoid)
EMBER_CUDA_UNARY_OP(Tanh) EMBER_CUDA_UNARY_OP(NormalCdf) EMBER_CUDA_UNARY_OP(Gelu)
EMBER_CUDA_UNARY_OP(GeluTanh) EMBER_CUDA_UNARY_OP(Clamp) EMBER_CUDA_UNARY_OP(InRange)
EMBER_CUDA_UNARY_OP(IsNan) EMBER_CUDA_UNARY_OP(IsFinite) EMBER_CUDA_UNARY_OP(LogicalNot)
EMBER_CUDA_UNARY_OP(Sin) EMBER_CUDA_UNARY_OP(Cos) EMBER_CUDA_UNARY_OP(Tan)
EMBER_CUDA_UNARY_OP(Asin) EMBER_CUDA_UNARY_OP(Acos) EMBER_CUDA_UNARY_OP(Atan)
EMBER_CUDA_UNARY_OP(Sinh) EMBER_CUDA_UNARY_OP(Cosh) EMBER_CUDA_UNARY_OP(Log1p)
EMBER_CUDA_UNARY_OP(Expm1) EMBER_CUDA_UNARY_OP(Log2) EMBER_CUDA_UNARY_OP(Log10)
EMBER_CUDA_UNARY_OP(Floor) EMBER_CUDA_UNARY_OP(Ceil) EMBER_CUDA_UNARY_OP(Round)
EMBER_CUDA_UNARY_OP(Trunc) EMBER_CUDA_UNARY_OP(Frac) EMBER_CUDA_UNARY_OP(BitwiseNot)
EMBER_CUDA_UNARY_OP(Erf) EMBER_CUDA_UNARY_OP(Erfc) EMBER_CUDA_UNARY_OP(Erfinv)
EMBER_CUDA_UNARY_OP(Lgamma) EMBER_CUDA_UNARY_OP(Digamma) EMBER_CUDA_UNARY_OP(Trigamma)
EMBER_CUDA_UNARY_OP(Exp2) EMBER_CUDA_UNARY_OP(Sinc) EMBER_CUDA_UNARY_OP(Logit)
EMBER_CUDA_UNARY_OP(NanToNum) EMBER_CUDA_UNARY_OP(IsInf) EMBER_CUDA_UNARY_OP(IsPosInf)
EMBER_CUDA_UNARY_OP(IsNegInf) EMBER_CUDA_UNARY_OP(Signbit)
#undef EMBER_CUDA_UNARY_OP

template <template <typename> class Op>
struct CompareOpOf;
template <> struct CompareOpOf<functors::Eq> { static constexpr CompareOp value = CompareOp::kEq; };
template <> struct CompareOpOf<functors::Ne> { static constexpr CompareOp value = CompareOp::kNe; };
template <> struct CompareOpOf<functors::Lt> { static constexpr CompareOp value = CompareOp::kLt; };
template <> struct CompareOpOf<functors::Le> { static constexpr CompareOp value = CompareOp::kLe; };
template <> struct CompareOpOf<functors::Gt> { static constexpr CompareOp value = CompareOp::kGt; };
template <> struct CompareOpOf<functors::Ge> { static constexpr CompareOp value = CompareOp::kGe; };
template <> struct CompareOpOf<functors::LogicalAnd> { static constexpr CompareOp value = CompareOp::kLogicalAnd; };
template <> struct CompareOpOf<functors::LogicalOr> { static constexpr CompareOp value = CompareOp::kLogicalOr; };
template <> struct CompareOpOf<functors::LogicalXor> { static constexpr CompareOp value = CompareOp::kLogicalXor; };
template <>
struct CompareOpOf<functors::IsClose> {
  static constexpr CompareOp value = CompareOp::kIsClose;
};

template <template <typename> class Op>
struct TernaryOpOf;
template <> struct TernaryOpOf<functors::Lerp> { static constexpr TernaryOp value = TernaryOp::kLerp; };
template <> struct TernaryOpOf<functors::Addcmul> { static constexpr TernaryOp value = TernaryOp::kAddcmul; };
template <> struct TernaryOpOf<functors::Addcdiv> { static constexpr TernaryOp value = TernaryOp::kAddcdiv; };

}  // namespace ember::cuda
