#pragma once
// The names of the functors (kernels/common) that have CUDA kernels, one enum
// per family: what crosses from the ops to the .cu files.
namespace ember::cuda {

enum class BinaryOp {
  kAdd, kSub, kMul, kDiv, kPow, kMaximum, kMinimum, kReluBackward, kRemainder, kFmod, kFloorDivide,
  kAtan2, kBitwiseAnd, kBitwiseOr, kBitwiseXor,
  // core/ops/pointwise_binary.cpp
  kHypot, kXlogy, kCopysign, kLogAddExp, kLogAddExp2, kHeaviside
};
enum class UnaryOp {
  kNeg, kExp, kLog, kSqrt, kRsqrt, kAbs, kSign, kSquare, kReciprocal, kRelu, kLeakyRelu,
  kSigmoid, kTanh, kNormalCdf, kGelu, kGeluTanh, kClamp, kInRange, kIsNan, kIsFinite, kLogicalNot,
  kSin, kCos, kTan, kAsin, kAcos, kAtan, kSinh, kCosh, kLog1p, kExpm1, kLog2, kLog10, kFloor, kCeil,
  kRound, kTrunc, kFrac, kBitwiseNot,
  // core/ops/special_math.cpp and pointwise_extras.cpp
  kErf, kErfc, kErfinv, kLgamma, kDigamma, kTrigamma, kExp2, kSinc, kLogit, kNanToNum, kIsInf,
  kIsPosInf, kIsNegInf, kSignbit
};
enum class CompareOp { kEq, kNe, kLt, kLe, kGt, kGe, kIsClose, kLogicalAnd, kLogicalOr, kLogicalXor };
// The per-element losses of nn/functional/loss.cpp (kernels/common/loss_functors.h).
// The three-operand ops of core/ops/pointwise_ternary.cpp.
enum class TernaryOp { kLerp, kAddcmul, kAddcdiv };
enum class LossOp { kLogSigmoid, kBinaryCrossEntropy, kBinaryCrossEntropyWithLogits };

}  // namespace ember::cuda
