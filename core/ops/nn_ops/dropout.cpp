// dropout and dropout_, and their channel form feature_dropout: a scaled
// keep-mask (0 or 1/(1-p)) drawn from the default generator's Philox stream,
// then multiplied in with mul/mul_, whose derivative (g times the same mask)
// and double backward come for free.
#include "ember/core/ops/nn_ops/dropout.h"

#include "ember/core/ops/elementwise/elementwise_helpers.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/kernels/common/kernel_registry.h"

namespace ember {

namespace {

void check_dropout(const char* op, const Tensor& x, double p) {
  EMBER_CHECK(p >= 0 && p <= 1, op, ": dropout probability has to be between 0 and 1, but got ", p);
  EMBER_CHECK(x.is_floating_point(), op, ": expected a floating point input, got ",
              x.scalar_type());
}

// Contiguous mask of `shape` with x's dtype and device: element i keeps (1/(1-p)) when
// uniform i of the draw is below 1-p, else 0 (the same mask on every device
// for one seed: kernels/cpu/random.cpp).
Tensor keep_mask(const Tensor& x, IntArrayRef shape, double p) {
  Tensor mask = empty(shape, x.options().requires_grad(false));
  kernels().random.dropout_mask.on(mask.device(), "dropout")(mask, p);
  return mask;
}

// One mask value per (sample, channel): (N, C, 1, ..., 1), broadcast over the rest.
DimVector channel_mask_shape(const Tensor& x) {
  DimVector shape(x.dim(), 1);
  shape[0] = x.size(0);
  shape[1] = x.size(1);
  return shape;
}

void check_feature_dropout(const char* op, const Tensor& x, double p) {
  check_dropout(op, x, p);
  EMBER_CHECK(x.dim() >= 2, op, ": expected an input of shape (N, C, *), got ", x.sizes());
}

}  // namespace

Tensor dropout(const Tensor& x, double p, bool train) {
  check_dropout("dropout", x, p);
  if (!train || p == 0) return x;
  if (p == 1) return x * zeros({}, x.options());  // as PyTorch: keeps the graph, gradient 0
  return x * keep_mask(x, x.sizes(), p);
}

Tensor& dropout_(Tensor& x, double p, bool train) {
  check_dropout("dropout_", x, p);
  if (!train || p == 0) return x;
  if (p == 1) return x.mul_(zeros({}, x.options()));
  return x.mul_(keep_mask(x, x.sizes(), p));
}

Tensor feature_dropout(const Tensor& x, double p, bool train) {
  check_feature_dropout("feature_dropout", x, p);
  if (!train || p == 0) return x;
  if (p == 1) return x * zeros({}, x.options());
  return x * keep_mask(x, channel_mask_shape(x), p);
}

Tensor& feature_dropout_(Tensor& x, double p, bool train) {
  check_feature_dropout("feature_dropout_", x, p);
  if (!train || p == 0) return x;
  if (p == 1) return x.mul_(zeros({}, x.options()));
  return x.mul_(keep_mask(x, channel_mask_shape(x), p));
}

}  // namespace ember
