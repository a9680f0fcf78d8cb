// The fused optimizer updates on CUDA (kernels/cuda/optim.h): the operand
// checks, and one grid-stride loop that applies a shared functor of
// optim_functors.h to every element, instantiated per dtype and per
// combination of the flags that change the update rule.
#include "ember/kernels/cuda/optim.h"

#include "ember/core/error.h"
#include "ember/kernels/cuda/cuda_check.h"
#include "ember/kernels/cuda/device_guard.h"
#include "ember/kernels/common/cuda_plans/host_helpers.h"

namespace ember::cuda::detail {

namespace {

// f(operands..., i) for every element i < numel.
template <typename F, typename... Ptr>
__global__ void update_kernel(F f, int64_t numel, Ptr... operands) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < numel; i += step)
    f(operands..., i);
}

template <typename F, typename... Ptr>
void launch(const OptimGrid& grid, int64_t numel, const F& f, Ptr... operands) {
  update_kernel<F, Ptr...><<<grid.blocks, grid.threads, 0, nullptr>>>(f, numel, operands...);
  EMBER_CUDA_CHECK_LAUNCH();
}

}  // namespace

void launch_sgd_update(ScalarType dtype, const OptimGrid& grid, int64_t numel, void* param,
                       const void* grad, void* buf, const SgdHyper& h, bool first_step) {
  dispatch_floating(dtype, "sgd_update", [&]<typename T>() {
    T* p = static_cast<T*>(param);
    const T* g = static_cast<const T*>(grad);
    T* b = static_cast<T*>(buf);
    if (h.momentum == 0) {
      return launch(grid, numel, functors::make_sgd_update<T, false, false, false>(h), p, g, b);
    }
    with_flag(h.nesterov, [&]<bool kNesterov>() {
      with_flag(first_step, [&]<bool kFirst>() {
        launch(grid, numel, functors::make_sgd_update<T, true, kNesterov, kFirst>(h), p, g, b);
      });
    });
  });
}

void launch_adam_update(ScalarType dtype, const OptimGrid& grid, int64_t numel, void* param,
                        const void* grad, void* exp_avg, void* exp_avg_sq, void* max_exp_avg_sq,
                        const AdamHyper& h) {
  dispatch_floating(dtype, "adam_update", [&]<typename T>() {
    with_flag(h.amsgrad, [&]<bool kAmsgrad>() {
      with_flag(h.decoupled_weight_decay, [&]<bool kDecoupled>() {
        launch(grid, numel, functors::make_adam_update<T, kAmsgrad, kDecoupled>(h),
               static_cast<T*>(param), static_cast<const T*>(grad), static_cast<T*>(exp_avg),
               static_cast<T*>(exp_avg_sq), static_cast<T*>(max_exp_avg_sq));
      });
    });
  });
}

void launch_rmsprop_update(ScalarType dtype, const OptimGrid& grid, int64_t numel, void* param,
                           const void* grad, void* square_avg, void* momentum_buffer,
                           void* grad_avg, const RmspropHyper& h) {
  dispatch_floating(dtype, "rmsprop_update", [&]<typename T>() {
    with_flag(h.momentum > 0, [&]<bool kMomentum>() {
      with_flag(h.centered, [&]<bool kCentered>() {
        launch(grid, numel, functors::make_rmsprop_update<T, kMomentum, kCentered>(h),
               static_cast<T*>(param), static_cast<const T*>(grad), static_cast<T*>(square_avg),
               static_cast<T*>(momentum_buffer), static_cast<T*>(grad_avg));
      });
    });
  });
}

void launch_adagrad_update(ScalarType dtype, const OptimGrid& grid, int64_t numel, void* param,
                           const void* grad, void* sum, const AdagradHyper& h) {
  dispatch_floating(dtype, "adagrad_update", [&]<typename T>() {
    launch(grid, numel, functors::make_adagrad_update<T>(h), static_cast<T*>(param),
           static_cast<const T*>(grad), static_cast<T*>(sum));
  });
}

}  // namespace ember::cuda::detail

namespace ember::cuda {

namespace {

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

void sgd_update(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
                const SgdHyper& h, bool first_step) {
  check_param("sgd_update", param);
  check_operand("sgd_update", param, grad);
  const bool momentum = h.momentum != 0;
  if (momentum) check_operand("sgd_update", param, momentum_buffer);
  if (param.numel() == 0) return;
  DeviceGuard guard(detail::device_of(param));
  detail::launch_sgd_update(param.dtype(), optim_grid(param.numel()), param.numel(),
                            param.data_ptr(), grad.data_ptr(),
                            momentum ? momentum_buffer.data_ptr() : nullptr, h, first_step);
}

void adam_update(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                 const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq, const AdamHyper& h) {
  check_param("adam_update", param);
  check_operand("adam_update", param, grad);
  check_operand("adam_update", param, exp_avg);
  check_operand("adam_update", param, exp_avg_sq);
  if (h.amsgrad) check_operand("adam_update", param, max_exp_avg_sq);
  if (param.numel() == 0) return;
  DeviceGuard guard(detail::device_of(param));
  detail::launch_adam_update(param.dtype(), optim_grid(param.numel()), param.numel(),
                             param.data_ptr(), grad.data_ptr(), exp_avg.data_ptr(),
                             exp_avg_sq.data_ptr(),
                             h.amsgrad ? max_exp_avg_sq.data_ptr() : nullptr, h);
}

void rmsprop_update(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
                    const Tensor& momentum_buffer, const Tensor& grad_avg, const RmspropHyper& h) {
  check_param("rmsprop_update", param);
  check_operand("rmsprop_update", param, grad);
  check_operand("rmsprop_update", param, square_avg);
  if (h.momentum > 0) check_operand("rmsprop_update", param, momentum_buffer);
  if (h.centered) check_operand("rmsprop_update", param, grad_avg);
  if (param.numel() == 0) return;
  DeviceGuard guard(detail::device_of(param));
  detail::launch_rmsprop_update(param.dtype(), optim_grid(param.numel()), param.numel(),
                                param.data_ptr(), grad.data_ptr(), square_avg.data_ptr(),
                                h.momentum > 0 ? momentum_buffer.data_ptr() : nullptr,
                                h.centered ? grad_avg.data_ptr() : nullptr, h);
}

void adagrad_update(const Tensor& param, const Tensor& grad, const Tensor& sum,
                    const AdagradHyper& h) {
  check_param("adagrad_update", param);
  check_operand("adagrad_update", param, grad);
  check_operand("adagrad_update", param, sum);
  if (param.numel() == 0) return;
  DeviceGuard guard(detail::device_of(param));
  detail::launch_adagrad_update(param.dtype(), optim_grid(param.numel()), param.numel(),
                                param.data_ptr(), grad.data_ptr(), sum.data_ptr(), h);
}

}  // namespace ember::cuda
