#pragma once
// The binary cross-entropies per element, the kernel-backed part of
// nn::functional's binary_cross_entropy and binary_cross_entropy_with_logits
// (nn/functional/loss.cpp checks the arguments, then weighs and reduces these).
// The forward is one fused elementwise kernel (kernels/common/loss_functors.h);
// the derivatives are written with ember ops, so they can be differentiated again:
//   bce:             dx = g (x - y) / max(x (1 - x), 1e-12)   (PyTorch's guard at 0 and 1)
//                    dy = g (log(1 - x) - log(x))              (logs clamped to >= -100)
//   bce_with_logits: dx = g (sigmoid(x) (pw y + 1 - y) - pw y)
//                    dy = -g ((pw - 1) log_sigmoid(x) + x)
//                    dpw = -g y log_sigmoid(x)
// An internal header, not in ember.h.
#include "ember/core/tensor.h"

namespace ember {

// Per-element -(y log(x) + (1 - y) log(1 - x)); x and y of one floating dtype and shape.
Tensor binary_cross_entropy_elements(const Tensor& x, const Tensor& y);

// Per-element loss of logits x against y; pos_weight may be undefined (then 1).
Tensor binary_cross_entropy_with_logits_elements(const Tensor& x, const Tensor& y,
                                                 const Tensor& pos_weight);

}  // namespace ember
