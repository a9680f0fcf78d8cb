#pragma once
// Options of Fold / Unfold and of F::fold / F::unfold, as libtorch's:
//   F::unfold(x, F::UnfoldFuncOptions({3, 3}).padding(1).stride(2))
//   F::fold(cols, F::FoldFuncOptions({8, 8}, {3, 3}).padding(1).stride(2))
#include "ember/nn/options/arg.h"
#include "ember/nn/options/expanding_array.h"

namespace ember::nn {

struct UnfoldOptions {
  UnfoldOptions(ExpandingArray<2> kernel_size) : kernel_size_(kernel_size) {}  // NOLINT
  EMBER_ARG(ExpandingArray<2>, kernel_size);
  EMBER_ARG(ExpandingArray<2>, dilation) = 1;
  EMBER_ARG(ExpandingArray<2>, padding) = 0;
  EMBER_ARG(ExpandingArray<2>, stride) = 1;
};

// output_size: the (H, W) of the folded image.
struct FoldOptions {
  FoldOptions(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size)
      : output_size_(output_size), kernel_size_(kernel_size) {}
  EMBER_ARG(ExpandingArray<2>, output_size);
  EMBER_ARG(ExpandingArray<2>, kernel_size);
  EMBER_ARG(ExpandingArray<2>, dilation) = 1;
  EMBER_ARG(ExpandingArray<2>, padding) = 0;
  EMBER_ARG(ExpandingArray<2>, stride) = 1;
};

namespace functional {
using UnfoldFuncOptions = UnfoldOptions;
using FoldFuncOptions = FoldOptions;
}  // namespace functional
}  // namespace ember::nn
