// The host half of the fused CUDA optimizer updates (kernels/cuda/optim.h):
// operand checks and the launch plan, compiled in every build; the kernels
// are in optim.cu.
#include "ember/kernels/cuda/optim.h"

#include <algorithm>

#include "ember/core/error.h"
#include "ember/kernels/cuda/host_helpers.h"

#ifdef EMBER_WITH_CUDA
#include "ember/kernels/cuda/device_guard.h"
#include "ember/kernels/cuda/optim_launch.h"
#endif

namespace ember::cuda {

namespace {

constexpr unsigned kOptimThreads = 256;
constexpr int64_t kMaxOptimBlocks = 65535;  // a grid-stride loop covers the rest

void check_operand(const char* op, const Tensor& param, const Tensor& t) {
  EMBER_INTERNAL_ASSERT(t.is_cuda() && t.device() == param.device() && t.is_contiguous() &&
                            t.dtype() == param.dtype() && t.numel() == param.numel(),
                        op, ": operand ", t.toString(), " for parameter ", param.toString());
}

void check_param(const char* op, const Tensor& param) {
  EMBER_INTERNAL_ASSERT(param.is_cuda() && param.is_contiguous() && param.is_floating_point(),
                        op, ": parameter ", param.toString());
}

}  // namespace

OptimGrid optim_grid(int64_t numel) {
  const int64_t blocks = (numel + kOptimThreads - 1) / kOptimThreads;
  return {static_cast<unsigned>(std::min(blocks, kMaxOptimBlocks)), kOptimThreads};
}

void sgd_update(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
                const SgdHyper& h, bool first_step) {
  check_param("sgd_update", param);
  check_operand("sgd_update", param, grad);
  const bool momentum = h.momentum != 0;
  if (momentum) check_operand("sgd_update", param, momentum_buffer);
#ifdef EMBER_WITH_CUDA
  if (param.numel() == 0) return;
  DeviceGuard guard(detail::device_of(param));
  detail::launch_sgd_update(param.dtype(), optim_grid(param.numel()), param.numel(),
                            param.data_ptr(), grad.data_ptr(),
                            momentum ? momentum_buffer.data_ptr() : nullptr, h, first_step);
#else
  detail::no_cuda("sgd_update", param);
#endif
}

void adam_update(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                 const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq, const AdamHyper& h) {
  check_param("adam_update", param);
  check_operand("adam_update", param, grad);
  check_operand("adam_update", param, exp_avg);
  check_operand("adam_update", param, exp_avg_sq);
  if (h.amsgrad) check_operand("adam_update", param, max_exp_avg_sq);
#ifdef EMBER_WITH_CUDA
  if (param.numel() == 0) return;
  DeviceGuard guard(detail::device_of(param));
  detail::launch_adam_update(param.dtype(), optim_grid(param.numel()), param.numel(),
                             param.data_ptr(), grad.data_ptr(), exp_avg.data_ptr(),
                             exp_avg_sq.data_ptr(),
                             h.amsgrad ? max_exp_avg_sq.data_ptr() : nullptr, h);
#else
  detail::no_cuda("adam_update", param);
#endif
}

void rmsprop_update(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
                    const Tensor& momentum_buffer, const Tensor& grad_avg, const RmspropHyper& h) {
  check_param("rmsprop_update", param);
  check_operand("rmsprop_update", param, grad);
  check_operand("rmsprop_update", param, square_avg);
  if (h.momentum > 0) check_operand("rmsprop_update", param, momentum_buffer);
  if (h.centered) check_operand("rmsprop_update", param, grad_avg);
#ifdef EMBER_WITH_CUDA
  if (param.numel() == 0) return;
  DeviceGuard guard(detail::device_of(param));
  detail::launch_rmsprop_update(param.dtype(), optim_grid(param.numel()), param.numel(),
                                param.data_ptr(), grad.data_ptr(), square_avg.data_ptr(),
                                h.momentum > 0 ? momentum_buffer.data_ptr() : nullptr,
                                h.centered ? grad_avg.data_ptr() : nullptr, h);
#else
  detail::no_cuda("rmsprop_update", param);
#endif
}

void adagrad_update(const Tensor& param, const Tensor& grad, const Tensor& sum,
                    const AdagradHyper& h) {
  check_param("adagrad_update", param);
  check_operand("adagrad_update", param, grad);
  check_operand("adagrad_update", param, sum);
#ifdef EMBER_WITH_CUDA
  if (param.numel() == 0) return;
  DeviceGuard guard(detail::device_of(param));
  detail::launch_adagrad_update(param.dtype(), optim_grid(param.numel()), param.numel(),
                                param.data_ptr(), grad.data_ptr(), sum.data_ptr(), h);
#else
  detail::no_cuda("adagrad_update", param);
#endif
}

}  // namespace ember::cuda
