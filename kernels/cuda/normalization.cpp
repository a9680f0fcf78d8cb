// The host half of the CUDA normalization kernels: reads the tensors, plans
// the reductions and allocates their scratch as an ember tensor (from the
// caching allocator, freed to it when the call returns: the kernels run in
// stream order, so a later allocation of the block runs after them).
// Compiled in every build; without CUDA each entry point raises.
#include "ember/kernels/cuda/normalization.h"

#include <algorithm>

#include "ember/core/ops/factory.h"
#include "ember/kernels/cpu/normalization.h"
#include "ember/kernels/cuda/host_helpers.h"
#include "ember/kernels/cuda/normalization_launch.h"

namespace ember::cuda {

using detail::data_or_null;
using detail::device_of;
using detail::no_cuda;

namespace {

#ifdef EMBER_WITH_CUDA
detail::BatchNormShape batch_norm_shape(const Tensor& x) {
  const int64_t n = x.size(0), c = x.size(1);
  return {x.scalar_type(), n, c, n * c == 0 ? 0 : x.numel() / (n * c), device_of(x)};
}

Tensor scratch_doubles(const Tensor& like, int64_t count) {
  return empty({std::max<int64_t>(count, 1)}, TensorOptions().dtype(kDouble).device(like.device()));
}
#endif

}  // namespace

#ifdef EMBER_WITH_CUDA

void batch_norm_train_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps,
                              const Tensor& y, const Tensor& mean, const Tensor& var,
                              const Tensor& invstd) {
  const detail::BatchNormShape d = batch_norm_shape(x);
  if (d.n * d.c * d.s == 0) return;
  const ChannelReducePlan p = plan_channel_reduce(d.n, d.c, d.s);
  const Tensor scratch = scratch_doubles(x, batch_norm_forward_scratch(p));
  detail::launch_batch_norm_train_forward(d, p, x.data_ptr(), data_or_null(weight),
                                          data_or_null(bias), eps, y.data_ptr(), mean.data_ptr(),
                                          var.data_ptr(), invstd.data_ptr(),
                                          scratch.data_ptr<double>());
}

void batch_norm_apply(const Tensor& x, const Tensor& mean, const Tensor& invstd,
                      const Tensor& weight, const Tensor& bias, const Tensor& y) {
  const detail::BatchNormShape d = batch_norm_shape(x);
  if (d.n * d.c * d.s == 0) return;
  detail::launch_batch_norm_apply(d, x.data_ptr(), mean.data_ptr(), invstd.data_ptr(),
                                  data_or_null(weight), data_or_null(bias), y.data_ptr());
}

void batch_norm_backward(const Tensor& x, const Tensor& dy, const Tensor& mean,
                         const Tensor& invstd, const Tensor& weight, bool training,
                         const Tensor& dx, const Tensor& dweight, const Tensor& dbias) {
  const detail::BatchNormShape d = batch_norm_shape(x);
  const ChannelReducePlan p = plan_channel_reduce(d.n, d.c, d.s);
  const Tensor scratch = scratch_doubles(x, batch_norm_backward_scratch(p));
  detail::launch_batch_norm_backward(d, p, x.data_ptr(), dy.data_ptr(), mean.data_ptr(),
                                     invstd.data_ptr(), data_or_null(weight), training,
                                     data_or_null(dx), data_or_null(dweight),
                                     data_or_null(dbias), scratch.data_ptr<double>());
}

void layer_norm_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, double eps,
                        const Tensor& y, const Tensor& mean, const Tensor& rstd) {
  const int64_t rows = mean.numel(), k = rows == 0 ? 0 : x.numel() / rows;
  detail::launch_layer_norm_forward(x.scalar_type(), rows, k, x.data_ptr(), data_or_null(weight),
                                    data_or_null(bias), eps, y.data_ptr(), mean.data_ptr(),
                                    rstd.data_ptr(), device_of(x));
}

void layer_norm_backward(const Tensor& x, const Tensor& dy, const Tensor& mean, const Tensor& rstd,
                         const Tensor& weight, const Tensor& dx, const Tensor& dweight,
                         const Tensor& dbias) {
  const int64_t rows = mean.numel();
  const int64_t k = cpu::layer_norm_backward_row_length(x, mean, dweight, dbias);
  const bool columns = dweight.defined() || dbias.defined();
  const Tensor scratch = scratch_doubles(
      x, columns ? layer_norm_backward_scratch(plan_column_reduce(rows, k), k) : 0);
  detail::launch_layer_norm_backward(x.scalar_type(), rows, k, x.data_ptr(), dy.data_ptr(),
                                     mean.data_ptr(), rstd.data_ptr(), data_or_null(weight),
                                     data_or_null(dx), data_or_null(dweight),
                                     data_or_null(dbias), scratch.data_ptr<double>(),
                                     device_of(x));
}

#else

void batch_norm_train_forward(const Tensor& x, const Tensor&, const Tensor&, double, const Tensor&,
                              const Tensor&, const Tensor&, const Tensor&) {
  no_cuda("batch_norm", x);
}
void batch_norm_apply(const Tensor& x, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                      const Tensor&) {
  no_cuda("batch_norm", x);
}
void batch_norm_backward(const Tensor& x, const Tensor&, const Tensor&, const Tensor&,
                         const Tensor&, bool, const Tensor&, const Tensor&, const Tensor&) {
  no_cuda("batch_norm_backward", x);
}
void layer_norm_forward(const Tensor& x, const Tensor&, const Tensor&, double, const Tensor&,
                        const Tensor&, const Tensor&) {
  no_cuda("layer_norm", x);
}
void layer_norm_backward(const Tensor& x, const Tensor&, const Tensor&, const Tensor&,
                         const Tensor&, const Tensor&, const Tensor&, const Tensor&) {
  no_cuda("layer_norm_backward", x);
}

#endif

}  // namespace ember::cuda
