#pragma once
// How a padding fills the positions outside the input, as PyTorch's modes:
// kConstant (a value; kZeros is its name for conv's padding_mode), kReflect
// (mirror without repeating the edge: 2 1 | 0 1 2 | 1 0), kReplicate (repeat the
// edge: 0 0 | 0 1 2 | 2 2) and kCircular (wrap around: 1 2 | 0 1 2 | 0 1).
#include <ostream>

namespace ember {

enum class PadMode { Constant, Reflect, Replicate, Circular };
inline constexpr PadMode kConstant = PadMode::Constant;
inline constexpr PadMode kZeros = PadMode::Constant;
inline constexpr PadMode kReflect = PadMode::Reflect;
inline constexpr PadMode kReplicate = PadMode::Replicate;
inline constexpr PadMode kCircular = PadMode::Circular;

std::ostream& operator<<(std::ostream& os, PadMode mode);  // "kReflect"

}  // namespace ember
