#pragma once
// Padding, as torch::constant_pad_nd and torch::nn::functional::pad: the last
// pad.size() / 2 dims, the last dim first (pad = {left, right, top, bottom, ...}).
// A negative pad crops.
#include "ember/core/ops/nn_ops/pad_mode.h"
#include "ember/core/scalar.h"
#include "ember/core/tensor.h"

namespace ember {

// kConstant pads any number of dims with `value`. The other modes pad 1, 2 or
// 3 dims of an input with one or two dims more (a channel dim, and a batch dim
// or not); their pads must be below the padded dim's size for kReflect and at
// most it for kCircular, and they take no value. Floating-point inputs.
Tensor pad(const Tensor& input, IntArrayRef pad, PadMode mode = kConstant, double value = 0.0);
Tensor constant_pad_nd(const Tensor& input, IntArrayRef pad, const Scalar& value = 0);

}  // namespace ember
