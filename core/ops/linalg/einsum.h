#pragma once
// einsum: Einstein summation over a list of operands.
#include <string_view>

#include "ember/core/tensor.h"

namespace ember {

// equation: one term of subscripts (letters a-z, A-Z, at most one "...") per
// operand, separated by commas, optionally "->" and the output's term. Without
// "->", the output is "..." followed by the letters seen exactly once, in
// ASCII order (A-Z before a-z). A letter repeated in one term takes that
// operand's diagonal; letters absent from the output are summed over; sizes
// of 1 broadcast. Spaces are ignored.
Tensor einsum(std::string_view equation, TensorList tensors);

}  // namespace ember
