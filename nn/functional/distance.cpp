#include "ember/core/autocast.h"
#include "ember/nn/functional/distance.h"

#include <vector>

#include "ember/core/error.h"
#include "ember/core/ops/reduction/reduce.h"
#include "ember/core/ops/elementwise/unary.h"
#include "ember/core/ops/shape/views.h"
#include "ember/core/shape.h"

namespace ember::nn::functional {

namespace {

void check_pair(const char* op, const Tensor& x1, const Tensor& x2) {
  EMBER_CHECK(x1.defined() && x2.defined(), op, ": x1 and x2 must be defined");
  EMBER_CHECK(x1.device() == x2.device(), op, ": expected x1 and x2 on one device, got ",
              x1.device(), " and ", x2.device());
  EMBER_CHECK(x1.is_floating_point() && x2.is_floating_point(), op,
              ": expected floating point inputs, got ", x1.scalar_type(), " and ",
              x2.scalar_type());
}

}  // namespace

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2,
                         const CosineSimilarityFuncOptions& options) {
  if (const auto to = autocast::cast_dtype(autocast::kCudaFloat32Op, {&x1, &x2})) {
    const autocast::Suspend as_listed(DeviceType::CUDA);  // its inner ops as called
    return cosine_similarity(autocast::cast(x1, *to), autocast::cast(x2, *to), options);
  }
  const char* op = "cosine_similarity";
  check_pair(op, x1, x2);
  broadcast_shapes(x1.sizes(), x2.sizes(), op);
  const std::vector<Tensor> x = broadcast_tensors({x1, x2});
  const int64_t dim = wrap_dim(options.dim(), x[0].dim(), op);
  // Each input over its norm, the norm clamped to >= eps in value only: the
  // gradient flows as if unclamped (libtorch clamps under no_grad).
  auto unit = [&](const Tensor& v) {
    const Tensor n = norm(v, 2, {dim}, /*keepdim=*/true);
    return v / (clamp_min(n.detach(), options.eps()) + (n - n.detach()));
  };
  return sum(unit(x[0]) * unit(x[1]), {dim});
}

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2,
                         const PairwiseDistanceFuncOptions& options) {
  const char* op = "pairwise_distance";
  check_pair(op, x1, x2);
  broadcast_shapes(x1.sizes(), x2.sizes(), op);
  const Tensor d = x1 - x2 + options.eps();
  // A 0-d difference is its own last dim.
  if (d.dim() == 0) return norm(d, options.p(), {}, options.keepdim());
  return norm(d, options.p(), {-1}, options.keepdim());
}

}  // namespace ember::nn::functional
