// The 1-d ops as their 2-d forms on a view with a height of 1 (ops_1d.h).
#include "ember/core/ops/nn_ops/ops_1d.h"

#include "ember/core/autocast.h"
#include "ember/core/ops/nn_ops/conv.h"
#include "ember/core/ops/nn_ops/pooling.h"

namespace ember {

namespace {

// x: (N, C, L) or (C, L) -> (N, C, 1, L) or (C, 1, L).
Tensor as_planes(const char* op, const Tensor& x) {
  EMBER_CHECK(x.dim() == 2 || x.dim() == 3, op,
              ": expected a 2-d (C, L) or 3-d (N, C, L) input, got shape ", x.sizes());
  return x.unsqueeze(-2);
}

// One value for the length dim, as {1 or `height`, value} for the 2-d op.
DimVector one_value(const char* op, const char* what, IntArrayRef v, int64_t height) {
  EMBER_CHECK(v.size() == 1, op, ": ", what, " must be one value, got ", v);
  return DimVector{height, v[0]};
}

}  // namespace

Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  if (const auto to = autocast::cast_dtype(autocast::kLowerPrecisionOp, {&input, &weight, &bias}))
    return conv1d(autocast::cast(input, *to), autocast::cast(weight, *to), autocast::cast(bias, *to), stride, padding, dilation, groups);
  constexpr const char* op = "conv1d";
  const Tensor x = as_planes(op, input);
  EMBER_CHECK(weight.dim() == 3, op, ": expected a 3-d weight (K, C / groups, S), got shape ",
              weight.sizes());
  EMBER_CHECK(groups > 0 && input.size(-2) == weight.size(1) * groups, op, ": input of shape ",
              input.sizes(), " has ", input.size(-2), " channels, but weight of shape ",
              weight.sizes(), " with groups ", groups, " expects ", weight.size(1) * groups);
  return conv2d(x, weight.unsqueeze(2), bias, one_value(op, "stride", stride, 1),
                one_value(op, "padding", padding, 0), one_value(op, "dilation", dilation, 1),
                groups)
      .squeeze(-2);
}

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding,
                        int64_t groups, IntArrayRef dilation) {
  if (const auto to = autocast::cast_dtype(autocast::kCudaLowerPrecisionOp, {&input, &weight, &bias}))
    return conv_transpose1d(autocast::cast(input, *to), autocast::cast(weight, *to), autocast::cast(bias, *to), stride, padding, output_padding, groups, dilation);
  constexpr const char* op = "conv_transpose1d";
  const Tensor x = as_planes(op, input);
  EMBER_CHECK(weight.dim() == 3, op, ": expected a 3-d weight (C, K / groups, S), got shape ",
              weight.sizes());
  EMBER_CHECK(input.size(-2) == weight.size(0), op, ": input of shape ", input.sizes(), " has ",
              input.size(-2), " channels, but weight of shape ", weight.sizes(), " expects ",
              weight.size(0));
  return conv_transpose2d(x, weight.unsqueeze(2), bias, one_value(op, "stride", stride, 1),
                          one_value(op, "padding", padding, 0),
                          one_value(op, "output_padding", output_padding, 0), groups,
                          one_value(op, "dilation", dilation, 1))
      .squeeze(-2);
}

std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                   IntArrayRef stride, IntArrayRef padding,
                                                   IntArrayRef dilation, bool ceil_mode) {
  constexpr const char* op = "max_pool1d";
  const DimVector k = one_value(op, "kernel_size", kernel_size, 1);
  auto [out, indices] = max_pool2d_with_indices(
      as_planes(op, input), k, stride.empty() ? k : one_value(op, "stride", stride, 1),
      one_value(op, "padding", padding, 0), one_value(op, "dilation", dilation, 1), ceil_mode);
  // A plane of height 1: the flat position in it is the position along L.
  return {out.squeeze(-2), indices.squeeze(-2)};
}

Tensor max_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(
      max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode));
}

Tensor avg_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, bool ceil_mode, bool count_include_pad) {
  constexpr const char* op = "avg_pool1d";
  const DimVector k = one_value(op, "kernel_size", kernel_size, 1);
  return avg_pool2d(as_planes(op, input), k,
                    stride.empty() ? k : one_value(op, "stride", stride, 1),
                    one_value(op, "padding", padding, 0), ceil_mode, count_include_pad)
      .squeeze(-2);
}

Tensor adaptive_avg_pool1d(const Tensor& input, IntArrayRef output_size) {
  constexpr const char* op = "adaptive_avg_pool1d";
  return adaptive_avg_pool2d(as_planes(op, input), one_value(op, "output_size", output_size, 1))
      .squeeze(-2);
}

std::tuple<Tensor, Tensor> adaptive_max_pool1d(const Tensor& input, IntArrayRef output_size) {
  constexpr const char* op = "adaptive_max_pool1d";
  auto [out, indices] =
      adaptive_max_pool2d(as_planes(op, input), one_value(op, "output_size", output_size, 1));
  return {out.squeeze(-2), indices.squeeze(-2)};
}

}  // namespace ember
