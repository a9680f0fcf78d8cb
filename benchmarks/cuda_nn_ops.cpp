// ember's own CUDA pooling and batch-norm kernels next to cuDNN's legacy
// pooling and batch-norm calls on the same data: the device time of each, the
// forward alone and forward + backward, and how far apart their results are
// (cuDNN as a second, independent reference for our kernels). Design.md §5
// leaves pooling and batch norm to "cuDNN or our own kernels, whichever is
// shown faster": this program is that showing. Built only with CUDA; without
// a device it says so and exits 0.
//
//   build-*/benchmarks/cuda_nn_ops [--reps N]
//
// ember's forward + backward goes through autograd (autograd::grad), as a
// training step does; cuDNN's is its forward and backward calls back to back.
// A last batch-norm row runs ember's op on cuDNN's calls
// (backends::cudnn::set_batch_norm_enabled): the cost of that path.
#include <cudnn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <ember/ember.h>
#include <ember/kernels/cuda/cudnn_check.h>
#include <ember/kernels/common/cuda_plans/cudnn_conv_plan.h>
#include <ember/kernels/cuda/cudnn_descriptors.h>
#include <ember/kernels/cuda/cudnn_handle.h>

#include "cuda_timing.h"

// cuDNN 9 marks its legacy pooling and batch-norm calls deprecated; they are
// the reference here, so their warnings are expected.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

using namespace ember;
using bench_timing::median_device_seconds;

namespace {

const Device kGpu(kCUDA);

// Contiguous float32 NCHW descriptor.
cuda::TensorDescriptor nchw_descriptor(IntArrayRef sizes) {
  const std::array<int64_t, 4> s{sizes[0], sizes[1], sizes[2], sizes[3]};
  return cuda::make_tensor_descriptor(CUDNN_DATA_FLOAT, s, cuda::cudnn_contiguous_strides(s));
}

struct PoolingDescriptorDeleter {
  void operator()(cudnnPoolingDescriptor_t d) const { cudnnDestroyPoolingDescriptor(d); }
};
using PoolingDescriptor =
    std::unique_ptr<std::remove_pointer_t<cudnnPoolingDescriptor_t>, PoolingDescriptorDeleter>;

// max |a - b| / max(max |b|, tiny): how far ember's result is from cuDNN's.
double relative_difference(const Tensor& ours, const Tensor& theirs) {
  NoGradGuard no_grad;
  const double scale = std::max(theirs.abs().max().item<double>(), 1e-30);
  return (ours - theirs).abs().max().item<double>() / scale;
}

struct Tally {
  int ours_faster = 0, timings = 0;
  double worst_difference = 0;
};

void row(Tally& tally, const std::string& what, double ours_s, double theirs_s,
         double difference) {
  ++tally.timings;
  if (ours_s < theirs_s) ++tally.ours_faster;
  tally.worst_difference = std::max(tally.worst_difference, difference);
  std::printf("%-46s %9.1f %9.1f %8.2fx %11.2e\n", what.c_str(), ours_s * 1e6, theirs_s * 1e6,
              ours_s / theirs_s, difference);
}

// A result compared, with no timing of its own.
void comparison_row(Tally& tally, const std::string& what, double difference) {
  tally.worst_difference = std::max(tally.worst_difference, difference);
  std::printf("%-46s %9s %9s %9s %11.2e\n", what.c_str(), "", "", "", difference);
}

std::string shape_text(IntArrayRef s) {
  return "(" + std::to_string(s[0]) + "," + std::to_string(s[1]) + "," + std::to_string(s[2]) +
         "," + std::to_string(s[3]) + ")";
}

struct PoolCase {
  bool max;  // else average, padding counted (PyTorch's count_include_pad default)
  std::vector<int64_t> shape;
  int64_t kernel, stride, padding;
};

void pooling_case(Tally& tally, const PoolCase& c, int reps) {
  const int64_t oh = (c.shape[2] + 2 * c.padding - c.kernel) / c.stride + 1;
  const int64_t ow = (c.shape[3] + 2 * c.padding - c.kernel) / c.stride + 1;
  const std::vector<int64_t> out_shape{c.shape[0], c.shape[1], oh, ow};
  const Tensor x = randn(c.shape).to(kGpu);
  const Tensor dy = randn(out_shape).to(kGpu);
  const Tensor x_leaf = x.detach().requires_grad_();
  auto ours = [&](const Tensor& in) {
    return c.max ? max_pool2d(in, c.kernel, c.stride, c.padding)
                 : avg_pool2d(in, c.kernel, c.stride, c.padding);
  };

  cudnnHandle_t handle = cuda::cudnn_handle(0);
  cudnnPoolingDescriptor_t raw = nullptr;
  EMBER_CUDNN_CHECK(cudnnCreatePoolingDescriptor(&raw));
  const PoolingDescriptor pool(raw);
  const int k = int(c.kernel), s = int(c.stride), p = int(c.padding);
  EMBER_CUDNN_CHECK(cudnnSetPooling2dDescriptor(
      raw, c.max ? CUDNN_POOLING_MAX : CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
      CUDNN_PROPAGATE_NAN, k, k, p, p, s, s));
  const auto x_desc = nchw_descriptor(c.shape), y_desc = nchw_descriptor(out_shape);
  const Tensor y = empty(out_shape, TensorOptions(kFloat).device(kGpu));
  const Tensor dx = empty(c.shape, TensorOptions(kFloat).device(kGpu));
  const float one = 1, zero = 0;
  auto theirs_forward = [&] {
    EMBER_CUDNN_CHECK(cudnnPoolingForward(handle, raw, &one, x_desc.get(), x.data_ptr(), &zero,
                                          y_desc.get(), y.data_ptr()));
  };
  auto theirs_backward = [&] {
    EMBER_CUDNN_CHECK(cudnnPoolingBackward(handle, raw, &one, y_desc.get(), y.data_ptr(),
                                           y_desc.get(), dy.data_ptr(), x_desc.get(),
                                           x.data_ptr(), &zero, x_desc.get(), dx.data_ptr()));
  };
  auto theirs_forward_backward = [&] {
    theirs_forward();
    theirs_backward();
  };

  const std::string name = std::string(c.max ? "max" : "avg") + " " + std::to_string(k) + "x" +
                           std::to_string(k) + " s" + std::to_string(s) + " p" +
                           std::to_string(p) + " " + shape_text(c.shape);
  NoGradGuard no_grad;
  const double ours_fwd = median_device_seconds(reps, [&] { (void)ours(x); });
  const double theirs_fwd = median_device_seconds(reps, theirs_forward);
  theirs_forward();
  row(tally, name + " fwd", ours_fwd, theirs_fwd, relative_difference(ours(x), y));

  auto ours_step = [&] {
    AutoGradMode enable(true);
    return autograd::grad({ours(x_leaf)}, {x_leaf}, {dy})[0];
  };
  const double ours_both = median_device_seconds(reps, [&] { (void)ours_step(); });
  const double theirs_both = median_device_seconds(reps, theirs_forward_backward);
  theirs_forward_backward();
  row(tally, name + " fwd+bwd", ours_both, theirs_both, relative_difference(ours_step(), dx));
}

// Training-mode batch norm (batch statistics, running stats updated with
// momentum 0.1, eps 1e-5) and the eval-mode forward with running stats.
void batch_norm_case(Tally& tally, const std::vector<int64_t>& shape, int reps) {
  constexpr double kMomentum = 0.1, kEps = 1e-5;
  const int64_t channels = shape[1];
  const TensorOptions on_gpu = TensorOptions(kFloat).device(kGpu);
  const Tensor x = randn(shape).to(kGpu), dy = randn(shape).to(kGpu);
  const Tensor weight = (rand({channels}) + 0.5).to(kGpu), bias = randn({channels}).to(kGpu);
  const Tensor x_leaf = x.detach().requires_grad_();
  const Tensor w_leaf = weight.detach().requires_grad_(), b_leaf = bias.detach().requires_grad_();
  const Tensor running_mean = zeros({channels}, on_gpu), running_var = ones({channels}, on_gpu);
  const Tensor their_mean = zeros({channels}, on_gpu), their_var = ones({channels}, on_gpu);
  const Tensor saved_mean = empty({channels}, on_gpu), saved_inv_std = empty({channels}, on_gpu);
  const Tensor y = empty(shape, on_gpu), dx = empty(shape, on_gpu);
  const Tensor dweight = empty({channels}, on_gpu), dbias = empty({channels}, on_gpu);

  cudnnHandle_t handle = cuda::cudnn_handle(0);
  const auto x_desc = nchw_descriptor(shape);
  cudnnTensorDescriptor_t raw = nullptr;
  EMBER_CUDNN_CHECK(cudnnCreateTensorDescriptor(&raw));
  const cuda::TensorDescriptor param_desc(raw);
  EMBER_CUDNN_CHECK(cudnnDeriveBNTensorDescriptor(raw, x_desc.get(), CUDNN_BATCHNORM_SPATIAL));
  const float one = 1, zero = 0;
  auto theirs_forward = [&] {
    EMBER_CUDNN_CHECK(cudnnBatchNormalizationForwardTraining(
        handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, x_desc.get(), x.data_ptr(), x_desc.get(),
        y.data_ptr(), raw, weight.data_ptr(), bias.data_ptr(), kMomentum, their_mean.data_ptr(),
        their_var.data_ptr(), kEps, saved_mean.data_ptr(), saved_inv_std.data_ptr()));
  };
  auto theirs_backward = [&] {
    EMBER_CUDNN_CHECK(cudnnBatchNormalizationBackward(
        handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero, x_desc.get(), x.data_ptr(),
        x_desc.get(), dy.data_ptr(), x_desc.get(), dx.data_ptr(), raw, weight.data_ptr(),
        dweight.data_ptr(), dbias.data_ptr(), kEps, saved_mean.data_ptr(),
        saved_inv_std.data_ptr()));
  };
  auto theirs_forward_backward = [&] {
    theirs_forward();
    theirs_backward();
  };
  auto theirs_eval_forward = [&] {
    EMBER_CUDNN_CHECK(cudnnBatchNormalizationForwardInference(
        handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, x_desc.get(), x.data_ptr(), x_desc.get(),
        y.data_ptr(), raw, weight.data_ptr(), bias.data_ptr(), their_mean.data_ptr(),
        their_var.data_ptr(), kEps));
  };
  auto ours = [&](const Tensor& in, const Tensor& w, const Tensor& b, bool training) {
    return batch_norm(in, w, b, running_mean, running_var, training, kMomentum, kEps);
  };

  const std::string name = "batch_norm " + shape_text(shape);
  NoGradGuard no_grad;
  const double ours_fwd = median_device_seconds(reps, [&] { (void)ours(x, weight, bias, true); });
  const double theirs_fwd = median_device_seconds(reps, theirs_forward);
  theirs_forward();
  row(tally, name + " train fwd", ours_fwd, theirs_fwd,
      relative_difference(ours(x, weight, bias, true), y));

  auto ours_step = [&] {
    AutoGradMode enable(true);
    return autograd::grad({ours(x_leaf, w_leaf, b_leaf, true)}, {x_leaf, w_leaf, b_leaf}, {dy});
  };
  const double ours_both = median_device_seconds(reps, [&] { (void)ours_step(); });
  const double theirs_both = median_device_seconds(reps, theirs_forward_backward);
  theirs_forward_backward();
  const tensor_list grads = ours_step();
  row(tally, name + " train fwd+bwd", ours_both, theirs_both,
      std::max({relative_difference(grads[0], dx), relative_difference(grads[1], dweight),
                relative_difference(grads[2], dbias)}));

  // Both sides have now run the same number of updates from (0, 1), so the
  // running statistics agree; the eval forward reads them.
  comparison_row(tally, name + " running stats",
                 std::max(relative_difference(running_mean, their_mean),
                          relative_difference(running_var, their_var)));
  const double ours_eval = median_device_seconds(reps, [&] { (void)ours(x, weight, bias, false); });
  const double theirs_eval = median_device_seconds(reps, theirs_eval_forward);
  theirs_eval_forward();
  row(tally, name + " eval fwd", ours_eval, theirs_eval,
      relative_difference(ours(x, weight, bias, false), y));
  // The same op with backends::cudnn::set_batch_norm_enabled(true): what the
  // cuDNN path costs through ember (not in the tally; last, as it updates
  // the running statistics more times than cuDNN's side).
  backends::cudnn::set_batch_norm_enabled(true);
  const double via_cudnn = median_device_seconds(reps, [&] { (void)ours_step(); });
  Tally path;
  row(path, name + " train fwd+bwd, op on cuDNN", via_cudnn, theirs_both,
      relative_difference(ours_step()[0], dx));
  backends::cudnn::set_batch_norm_enabled(false);
}

void summary(const char* family, const Tally& t) {
  std::printf("%s: ember's kernels faster in %d of %d timings; largest relative difference "
              "from cuDNN %.2e (%s)\n",
              family, t.ours_faster, t.timings, t.worst_difference,
              t.worst_difference < 1e-4 ? "agree" : "DIFFER");
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 21;
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--reps" && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
  if (!cuda::is_available()) {
    std::printf("cuda_nn_ops: no CUDA device (%s)\n", cuda::build_info().c_str());
    return 0;
  }
  std::printf("ember cuda_nn_ops: %s; float32, median device time of %d runs\n\n",
              cuda::build_info().c_str(), reps);
  std::printf("%-46s %9s %9s %9s %11s\n", "", "ember us", "cuDNN us", "ratio", "rel. diff");
  manual_seed(0);
  Tally pooling, norm;
  try {
    // The sample model has no pooling; these are the common ones: 2x2 after
    // a VGG/CIFAR block, ResNet's 3x3 stem pool, a 3x3 stride-1 average.
    for (const PoolCase& c : {PoolCase{true, {64, 64, 32, 32}, 2, 2, 0},
                              PoolCase{true, {32, 64, 112, 112}, 3, 2, 1},
                              PoolCase{false, {64, 64, 32, 32}, 2, 2, 0},
                              PoolCase{false, {32, 192, 28, 28}, 3, 1, 1}})
      pooling_case(pooling, c, reps);
    // The sample model's three BatchNorm2d inputs, then a ResNet-50 stage.
    for (const std::vector<int64_t>& shape :
         {std::vector<int64_t>{64, 32, 16, 16}, {64, 64, 8, 8}, {64, 128, 4, 4}, {32, 256, 56, 56}})
      batch_norm_case(norm, shape, reps);
  } catch (const std::exception& e) {
    std::printf("cuda_nn_ops stopped: %s\n", e.what());
    return 1;
  }
  std::printf("\n");
  summary("pooling", pooling);
  summary("batch norm", norm);
  return 0;
}
