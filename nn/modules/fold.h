#pragma once
// Fold and Unfold, as torch::nn's (F::fold, F::unfold).
#include <ostream>

#include "ember/nn/module_holder.h"
#include "ember/nn/options/fold.h"

namespace ember::nn {

class UnfoldImpl : public Module {
 public:
  explicit UnfoldImpl(ExpandingArray<2> kernel_size) : UnfoldImpl(UnfoldOptions(kernel_size)) {}
  explicit UnfoldImpl(const UnfoldOptions& options) : options(options) {}
  // x: (N, C, H, W) -> (N, C * kH * kW, L).
  Tensor forward(const Tensor& input);
  // Unfold(kernel_size=[2, 2], dilation=[1, 1], padding=[0, 0], stride=[1, 1])
  void pretty_print(std::ostream& stream) const override;
  UnfoldOptions options;
};
EMBER_MODULE(Unfold);

class FoldImpl : public Module {
 public:
  FoldImpl(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size)
      : FoldImpl(FoldOptions(output_size, kernel_size)) {}
  explicit FoldImpl(const FoldOptions& options) : options(options) {}
  // cols: (N, C * kH * kW, L) -> (N, C, H, W), (H, W) = output_size.
  Tensor forward(const Tensor& input);
  // Fold(output_size=[4, 4], kernel_size=[2, 2], dilation=[1, 1], padding=[0, 0], stride=[1, 1])
  void pretty_print(std::ostream& stream) const override;
  FoldOptions options;
};
EMBER_MODULE(Fold);

}  // namespace ember::nn
