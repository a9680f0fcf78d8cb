#pragma once
// Convolutions, as torch::nn::functional's:
//   F::conv2d(x, w, F::Conv2dFuncOptions().stride(2).padding(1));
//   F::conv1d(x, w, F::Conv1dFuncOptions().padding(ember::kSame));
#include <array>
#include <utility>

#include "ember/core/error.h"
#include "ember/core/tensor.h"
#include "ember/nn/options/conv.h"

namespace ember::nn::functional {

// x: (N, C, L) or (C, L), weight: (K, C / groups, S). kSame pads as conv2d's.
Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& options = {});
// x: (N, C, H, W), weight: (K, C / groups, R, S). kSame pads as PyTorch: a
// total of dilation * (kernel - 1) per dim, half before and the rest after
// (so an odd total puts the extra row or column at the bottom or right).
Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options = {});
// x: (N, C, L) or (C, L), weight: (C, K / groups, S).
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose1dFuncOptions& options = {});
// x: (N, C, H, W), weight: (C, K / groups, R, S).
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose2dFuncOptions& options = {});

namespace detail {
// The padding of each of the D dims as (before, after) for a kernel of
// `kernel` taps with `dilation`; kSame needs stride 1 (an Error naming `op`).
template <size_t D>
std::array<std::pair<int64_t, int64_t>, D> conv_padding_sides(const conv_padding_t<D>& padding,
                                                              IntArrayRef kernel,
                                                              IntArrayRef stride,
                                                              IntArrayRef dilation,
                                                              const char* op) {
  std::array<std::pair<int64_t, int64_t>, D> sides;
  if (const auto* p = std::get_if<ExpandingArray<D>>(&padding)) {
    for (size_t d = 0; d < D; ++d) sides[d] = {(*p)[d], (*p)[d]};
    return sides;
  }
  const bool same = std::holds_alternative<enumtype::kSame>(padding);
  for (size_t d = 0; d < D; ++d) {
    EMBER_CHECK(!same || stride[d] == 1, op, ": padding kSame needs stride 1, as PyTorch's, "
                "got stride ", stride);
    const int64_t total = same ? dilation[d] * (kernel[d] - 1) : 0;
    sides[d] = {total / 2, total - total / 2};
  }
  return sides;
}
}  // namespace detail

}  // namespace ember::nn::functional
