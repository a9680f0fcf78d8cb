// The conv table's CPU entry points: the dtype dispatch and the algorithm
// choice around the raw-buffer passes of conv.h (moved from core/ops/nn_ops/conv.cpp).
#include "ember/kernels/cpu/conv.h"

#include <functional>

#include "ember/core/parallel.h"
#include "ember/kernels/common/through_compute_dtype.h"
#include "ember/kernels/common/unary_functors.h"
#include "ember/kernels/cpu/conv_algo_select.h"

namespace ember::cpu {
namespace {

template <typename T>
const T* data_or_null(const Tensor& t) {
  return t.defined() ? t.data_ptr<T>() : nullptr;
}

// Runs one pass with the algorithm choose_conv_algo picks; `run` executes the
// pass with a given algorithm (the benchmark cache may call it per candidate).
template <typename Run>
void run_pass(ConvPass pass, const ConvParams& p, const Run& run) {
  const std::function<void(ConvAlgo)> fn = run;
  run(choose_conv_algo(pass, p, fn));
}

}  // namespace

bool conv_forward_fuses_relu(ConvAlgo algo) { return algo != ConvAlgo::kGemm1x1; }

template <typename T>
void relu_in_place(T* y, int64_t n) {
  parallel_for(0, n, int64_t(1) << 15, [&](int64_t begin, int64_t end) {
    const functors::Relu<T> relu;
    for (int64_t i = begin; i < end; ++i) y[i] = relu(y[i]);
  });
}
template void relu_in_place<float>(float*, int64_t);
template void relu_in_place<double>(double*, int64_t);

namespace {

// Note [16-bit convolutions on the CPU]
// bfloat16 problems run their own passes (conv_im2col_bf16.cpp) where the CPU
// has AVX-512 BF16; float16 problems, and bfloat16 ones without those
// instructions, run the float32 algorithms on float32 copies (Note [Kernels
// run through compute-dtype copies]), described as the float32 problems they
// then are, so the algorithm choice and its cache key see float32.
bool runs_on_copies(const Tensor& x) {
  return is_reduced_floating_point(x.scalar_type()) &&
         !(x.scalar_type() == kBFloat16 && conv_bf16_available());
}

template <auto Kernel, size_t... Outputs, typename... Tensors>
void run_on_float32_copies(const ConvParams& p, const Tensors&... tensors) {
  ConvParams p32 = p;
  p32.dtype = kFloat;
  ThroughFloat32<Kernel, Outputs...>::call(tensors..., p32);
}

}  // namespace

void conv_forward_kernel(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& y,
                         const ConvParams& p) {
  if (runs_on_copies(x)) return run_on_float32_copies<&conv_forward_kernel, 3>(p, x, w, bias, y);
  if (x.scalar_type() == kBFloat16) {
    const ConvForwardArgs<BFloat16> args{x.data_ptr<BFloat16>(), w.data_ptr<BFloat16>(),
                                         data_or_null<BFloat16>(bias), y.data_ptr<BFloat16>()};
    return run_pass(ConvPass::kForward, p, [&](ConvAlgo) { conv_im2col_bf16_forward(p, args); });
  }
  dispatch_floating(x.scalar_type(), "conv2d", [&]<typename T>() {
    const ConvForwardArgs<T> args{x.data_ptr<T>(), w.data_ptr<T>(), data_or_null<T>(bias),
                                  y.data_ptr<T>()};
    run_pass(ConvPass::kForward, p, [&](ConvAlgo algo) { conv_forward(algo, p, args); });
  });
}

void conv_backward_data_kernel(const Tensor& gy, const Tensor& w, const Tensor& bias,
                               const Tensor& gx, const ConvParams& p) {
  if (runs_on_copies(gy))
    return run_on_float32_copies<&conv_backward_data_kernel, 3>(p, gy, w, bias, gx);
  if (gy.scalar_type() == kBFloat16) {
    const ConvBackwardDataArgs<BFloat16> args{gy.data_ptr<BFloat16>(), w.data_ptr<BFloat16>(),
                                              data_or_null<BFloat16>(bias),
                                              gx.data_ptr<BFloat16>()};
    return run_pass(ConvPass::kBackwardData, p,
                    [&](ConvAlgo) { conv_im2col_bf16_backward_data(p, args); });
  }
  dispatch_floating(gy.scalar_type(), "conv_transpose2d", [&]<typename T>() {
    const ConvBackwardDataArgs<T> args{gy.data_ptr<T>(), w.data_ptr<T>(), data_or_null<T>(bias),
                                       gx.data_ptr<T>()};
    run_pass(ConvPass::kBackwardData, p,
             [&](ConvAlgo algo) { conv_backward_data(algo, p, args); });
  });
}

void conv_backward_weight_kernel(const Tensor& x, const Tensor& gy, const Tensor& gw,
                                 const ConvParams& p) {
  if (runs_on_copies(x)) return run_on_float32_copies<&conv_backward_weight_kernel, 2>(p, x, gy, gw);
  if (x.scalar_type() == kBFloat16) {
    const ConvBackwardWeightArgs<BFloat16> args{x.data_ptr<BFloat16>(), gy.data_ptr<BFloat16>(),
                                                gw.data_ptr<BFloat16>()};
    return run_pass(ConvPass::kBackwardWeight, p,
                    [&](ConvAlgo) { conv_im2col_bf16_backward_weight(p, args); });
  }
  dispatch_floating(x.scalar_type(), "conv2d", [&]<typename T>() {
    const ConvBackwardWeightArgs<T> args{x.data_ptr<T>(), gy.data_ptr<T>(), gw.data_ptr<T>()};
    run_pass(ConvPass::kBackwardWeight, p,
             [&](ConvAlgo algo) { conv_backward_weight(algo, p, args); });
  });
}

}  // namespace ember::cpu
