// The fused optimizer kernels: one grid-stride loop that applies a shared
// functor of optim_functors.h to every element, instantiated per dtype and
// per combination of the flags that change the update rule.
#include "ember/kernels/cuda/cuda_check.h"
#include "ember/kernels/cuda/optim_launch.h"

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
