#pragma once
// Activation functions beyond relu/sigmoid/tanh/gelu (those are in unary.h),
// as libtorch's torch:: free functions; nn::functional and the nn layers call
// these. Float inputs only, except hardtanh and relu6 (any numeric dtype).
#include "ember/core/tensor.h"

namespace ember {

Tensor silu(const Tensor& x);  // x sigmoid(x)
Tensor mish(const Tensor& x);  // x tanh(softplus(x))
// scale x for x > 0, scale alpha (exp(input_scale x) - 1) for x <= 0.
Tensor elu(const Tensor& x, const Scalar& alpha = 1, const Scalar& scale = 1,
           const Scalar& input_scale = 1);
Tensor selu(const Tensor& x);
Tensor celu(const Tensor& x, const Scalar& alpha = 1.0);  // elu with input_scale 1/alpha
// log(1 + exp(beta x)) / beta, and x where beta x > threshold.
Tensor softplus(const Tensor& x, const Scalar& beta = 1, const Scalar& threshold = 20);
// clamp(x, min_val, max_val) with gradient 0 at the bounds, as PyTorch.
Tensor hardtanh(const Tensor& x, const Scalar& min_val = -1, const Scalar& max_val = 1);
Tensor relu6(const Tensor& x);        // hardtanh(x, 0, 6)
Tensor hardsigmoid(const Tensor& x);  // relu6(x + 3) / 6
Tensor hardswish(const Tensor& x);    // x relu6(x + 3) / 6
Tensor log_sigmoid(const Tensor& x);  // log(sigmoid(x)), stable for large |x|
// x - lambd above lambd, x + lambd below -lambd, 0 between; lambd >= 0.
Tensor softshrink(const Tensor& x, const Scalar& lambd = 0.5);
// x where |x| > lambd, 0 elsewhere.
Tensor hardshrink(const Tensor& x, const Scalar& lambd = 0.5);

}  // namespace ember
