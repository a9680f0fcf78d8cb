// The cuDNN batch-norm path (cudnn_batch_norm.h). cuDNN 9 marks these legacy
// calls deprecated; they remain the documented way to run batch norm without
// building a cuDNN graph.
#include "ember/kernels/cuda/cudnn_batch_norm.h"

#include <cudnn.h>

#include "ember/core/backends.h"
#include "ember/core/ops/creation/factory.h"
#include "ember/kernels/common/cuda_plans/host_helpers.h"
#include "ember/kernels/cuda/cudnn_check.h"
#include "ember/kernels/cuda/cudnn_descriptors.h"
#include "ember/kernels/cuda/cudnn_handle.h"
#include "ember/kernels/cuda/device_guard.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace ember::cuda {

using detail::data_or_null;
using detail::device_of;

namespace {

// (N, C, S): the batch, the channels and the values per channel and sample.
struct BatchNormSizes {
  int64_t n, c, s;
};

BatchNormSizes sizes_of(const Tensor& x) {
  const int64_t n = x.size(0), c = x.size(1);
  return {n, c, x.numel() / (n * c)};
}

}  // namespace

bool cudnn_batch_norm_applies(const Tensor& x, double eps, const Tensor& running_mean,
                              const Tensor& running_var) {
  if (!backends::cudnn::batch_norm_enabled() || !x.is_cuda()) return false;
  if (!cudnn_batch_norm_takes(x.scalar_type(), x.sizes(), eps)) return false;
  return !running_mean.defined() || (running_mean.is_contiguous() && running_var.is_contiguous());
}

namespace {

// The descriptors of one call: x (and y, dy, dx) as (N, C, S, 1), and the
// per-channel (1, C, 1, 1) tensor cuDNN derives from it.
struct BatchNormDescriptors {
  TensorDescriptor data, channel;
};

BatchNormDescriptors descriptors_of(const Tensor& x) {
  const BatchNormSizes s = sizes_of(x);
  const std::array<int64_t, 4> sizes{s.n, s.c, s.s, 1};
  BatchNormDescriptors d{make_tensor_descriptor(cudnn_data_type(x.scalar_type()), sizes,
                                                cudnn_contiguous_strides(sizes)),
                         nullptr};
  cudnnTensorDescriptor_t raw = nullptr;
  EMBER_CUDNN_CHECK(cudnnCreateTensorDescriptor(&raw));
  d.channel.reset(raw);
  EMBER_CUDNN_CHECK(cudnnDeriveBNTensorDescriptor(raw, d.data.get(), CUDNN_BATCHNORM_SPATIAL));
  return d;
}

// cuDNN's scaling factors: double for double data, float otherwise.
struct Scale {
  float f;
  double d;
  const void* of(const Tensor& x) const {
    return x.scalar_type() == kDouble ? static_cast<const void*>(&d) : &f;
  }
};
constexpr Scale kOne{1, 1}, kZero{0, 0};

// cuDNN needs a scale (and, forward, a bias) even without affine parameters.
Tensor or_filled(const Tensor& param, const Tensor& x, double value) {
  return param.defined() ? param : full({x.size(1)}, value, x.options().requires_grad(false));
}

}  // namespace

void cudnn_batch_norm_train_forward(const Tensor& x, const Tensor& weight, const Tensor& bias,
                                    double eps, double momentum, const Tensor& running_mean,
                                    const Tensor& running_var, const Tensor& y,
                                    const Tensor& mean, const Tensor& invstd) {
  DeviceGuard guard(device_of(x));
  const BatchNormDescriptors d = descriptors_of(x);
  const Tensor scale = or_filled(weight, x, 1), shift = or_filled(bias, x, 0);
  EMBER_CUDNN_CHECK(cudnnBatchNormalizationForwardTraining(
      cudnn_handle(device_of(x)), CUDNN_BATCHNORM_SPATIAL, kOne.of(x), kZero.of(x), d.data.get(),
      x.data_ptr(), d.data.get(), y.data_ptr(), d.channel.get(), scale.data_ptr(),
      shift.data_ptr(), momentum, data_or_null(running_mean), data_or_null(running_var), eps,
      mean.data_ptr(), invstd.data_ptr()));
}

void cudnn_batch_norm_backward(const Tensor& x, const Tensor& dy, const Tensor& mean,
                               const Tensor& invstd, const Tensor& weight, double eps,
                               const Tensor& dx, const Tensor& dweight, const Tensor& dbias) {
  DeviceGuard guard(device_of(x));
  const BatchNormDescriptors d = descriptors_of(x);
  const Tensor scale = or_filled(weight, x, 1);
  // cuDNN writes all three: scratch for the ones not wanted.
  const auto or_scratch = [&](const Tensor& t, IntArrayRef sizes) {
    return t.defined() ? t : empty(sizes, x.options().requires_grad(false));
  };
  const Tensor gx = or_scratch(dx, x.sizes()), gw = or_scratch(dweight, {x.size(1)}),
               gb = or_scratch(dbias, {x.size(1)});
  EMBER_CUDNN_CHECK(cudnnBatchNormalizationBackward(
      cudnn_handle(device_of(x)), CUDNN_BATCHNORM_SPATIAL, kOne.of(x), kZero.of(x), kOne.of(x),
      kZero.of(x), d.data.get(), x.data_ptr(), d.data.get(), dy.data_ptr(), d.data.get(),
      gx.data_ptr(), d.channel.get(), scale.data_ptr(), gw.data_ptr(), gb.data_ptr(), eps,
      mean.data_ptr(), invstd.data_ptr()));
}

}  // namespace ember::cuda
