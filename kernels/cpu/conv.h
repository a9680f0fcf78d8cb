#pragma once
// CPU 2-D convolution kernels on raw contiguous NCHW buffers described by a
// ConvParams p: x (N, C, H, W), w (K, C/groups, R, S), y (N, K, OH, OW).
// Every pass overwrites its whole output (so the benchmark cache may run it
// once per candidate algorithm) and reads its inputs only.
//
//   forward:         y  = conv(x, w) + bias (bias: (K) or null)
//   backward-data:   gx = conv^T(gy, w) + bias (bias: (C) or null; the forward of
//                    conv_transpose2d)
//   backward-weight: gw = d<conv(x, w), gy>/dw
//
// One set per algorithm (ConvAlgo); conv_forward etc. pick it by value. An
// algorithm may be called only for the passes and problems it supports
// (conv_algo_supports) and with every size positive (the op handles empty
// problems itself).
#include <type_traits>

#include "ember/core/error.h"
#include "ember/core/reduced_float.h"
#include "ember/core/tensor.h"
#include "ember/kernels/common/conv_kernels.h"
#include "ember/kernels/cpu/conv_algo.h"

namespace ember::cpu {

// The conv table's CPU entry points (kernels/common/conv_kernels.h, conv.cpp):
// each runs its pass with the algorithm choose_conv_algo picks.
decltype(ConvKernels::forward)::Signature conv_forward_kernel;
decltype(ConvKernels::backward_data)::Signature conv_backward_data_kernel;
decltype(ConvKernels::backward_weight)::Signature conv_backward_weight_kernel;

template <typename T>
struct ConvForwardArgs {
  const T* x;
  const T* w;
  const T* bias;
  T* y;
};
template <typename T>
struct ConvBackwardDataArgs {
  const T* gy;
  const T* w;
  const T* bias;
  T* gx;
};
template <typename T>
struct ConvBackwardWeightArgs {
  const T* x;
  const T* gy;
  T* gw;
};

// Instantiated for float and double in each conv_<algo>.cpp.
#define EMBER_DECLARE_CONV_ALGO(prefix)                                                            \
  template <typename T>                                                                            \
  void prefix##_forward(const ConvParams& p, const ConvForwardArgs<T>& a);                         \
  template <typename T>                                                                            \
  void prefix##_backward_data(const ConvParams& p, const ConvBackwardDataArgs<T>& a);              \
  template <typename T>                                                                            \
  void prefix##_backward_weight(const ConvParams& p, const ConvBackwardWeightArgs<T>& a);
EMBER_DECLARE_CONV_ALGO(conv_im2col)
EMBER_DECLARE_CONV_ALGO(conv_gemm1x1)
EMBER_DECLARE_CONV_ALGO(conv_direct)
EMBER_DECLARE_CONV_ALGO(conv_im2col_nhwc)
#undef EMBER_DECLARE_CONV_ALGO

// bfloat16 problems (conv_im2col_bf16.cpp): im2col + the bfloat16 GEMM, on CPUs with
// AVX-512 BF16 (conv_bf16_available; without it the entry points compute bfloat16 through
// float32 copies, as float16 always does). The algorithm of every pass is kIm2colGemm.
bool conv_bf16_available();
void conv_im2col_bf16_forward(const ConvParams& p, const ConvForwardArgs<BFloat16>& a);
void conv_im2col_bf16_backward_data(const ConvParams& p, const ConvBackwardDataArgs<BFloat16>& a);
void conv_im2col_bf16_backward_weight(const ConvParams& p,
                                      const ConvBackwardWeightArgs<BFloat16>& a);

// The implicit GEMM has a float32 forward only, in builds with AVX-512
// (conv_implicit_gemm.cpp) or AVX2 and FMA (conv_implicit_gemm_avx2.cpp);
// available() says whether this one has it. preferred(p): whether p is a
// problem it was measured to win on (its output planes fill its vectors; an
// image's phase planes fit in L2).
bool conv_implicit_gemm_available();
bool conv_implicit_gemm_preferred(const ConvParams& p);
void conv_implicit_gemm_forward(const ConvParams& p, const ConvForwardArgs<float>& a);
// The stride-2 Winograd (conv_winograd.cpp): float32 3x3 convolutions with stride 2, no
// dilation, one group, all three passes, in builds with AVX-512 or AVX2 and FMA (available()
// and applies() are false without). Inference forwards keep the transformed weights for the
// next call; training forwards and backward-data passes transform them at every call.
// preferred(p): where the heuristic takes it (inference forwards only; benchmark mode times
// it for the training passes too).
bool conv_winograd_available();
bool conv_winograd_applies(const ConvParams& p);
bool conv_winograd_preferred(const ConvParams& p);
void conv_winograd_forward(const ConvParams& p, const ConvForwardArgs<float>& a);
void conv_winograd_backward_data(const ConvParams& p, const ConvBackwardDataArgs<float>& a);
void conv_winograd_backward_weight(const ConvParams& p, const ConvBackwardWeightArgs<float>& a);

// Whether the algorithm applies ConvParams::relu in its own output pass;
// conv_forward applies it afterwards for the others.
bool conv_forward_fuses_relu(ConvAlgo algo);
// y[i] = max(y[i], 0) over n elements (NaN stays NaN, as relu), in parallel.
template <typename T>
void relu_in_place(T* y, int64_t n);

template <typename T>
void conv_forward(ConvAlgo algo, const ConvParams& p, const ConvForwardArgs<T>& a) {
  const auto run = [&] {
    switch (algo) {
      case ConvAlgo::kIm2colGemm: return conv_im2col_forward(p, a);
      case ConvAlgo::kGemm1x1: return conv_gemm1x1_forward(p, a);
      case ConvAlgo::kDirect: return conv_direct_forward(p, a);
      case ConvAlgo::kIm2colNhwc: return conv_im2col_nhwc_forward(p, a);
      case ConvAlgo::kImplicitGemm:
        if constexpr (std::is_same_v<T, float>) return conv_implicit_gemm_forward(p, a);
        break;
      case ConvAlgo::kWinograd:
        if constexpr (std::is_same_v<T, float>) return conv_winograd_forward(p, a);
        break;
    }
    EMBER_ERROR("conv2d: the ", conv_algo_name(algo), " algorithm has no ", dtype_name(p.dtype),
                " forward");
  };
  run();
  if (p.relu && !conv_forward_fuses_relu(algo)) relu_in_place(a.y, p.n * p.k * p.out_h() * p.out_w());
}
template <typename T>
void conv_backward_data(ConvAlgo algo, const ConvParams& p, const ConvBackwardDataArgs<T>& a) {
  switch (algo) {
    case ConvAlgo::kIm2colGemm: return conv_im2col_backward_data(p, a);
    case ConvAlgo::kGemm1x1: return conv_gemm1x1_backward_data(p, a);
    case ConvAlgo::kDirect: return conv_direct_backward_data(p, a);
    case ConvAlgo::kIm2colNhwc: return conv_im2col_nhwc_backward_data(p, a);
    case ConvAlgo::kWinograd:
      if constexpr (std::is_same_v<T, float>) return conv_winograd_backward_data(p, a);
      break;
    case ConvAlgo::kImplicitGemm: break;
  }
  EMBER_ERROR("conv2d: the ", conv_algo_name(algo), " algorithm has no ", dtype_name(p.dtype),
              " backward-data pass");
}
template <typename T>
void conv_backward_weight(ConvAlgo algo, const ConvParams& p, const ConvBackwardWeightArgs<T>& a) {
  switch (algo) {
    case ConvAlgo::kIm2colGemm: return conv_im2col_backward_weight(p, a);
    case ConvAlgo::kGemm1x1: return conv_gemm1x1_backward_weight(p, a);
    case ConvAlgo::kDirect: return conv_direct_backward_weight(p, a);
    case ConvAlgo::kIm2colNhwc: return conv_im2col_nhwc_backward_weight(p, a);
    case ConvAlgo::kWinograd:
      if constexpr (std::is_same_v<T, float>) return conv_winograd_backward_weight(p, a);
      break;
    case ConvAlgo::kImplicitGemm: break;
  }
  EMBER_ERROR("conv2d: the ", conv_algo_name(algo), " algorithm has no ", dtype_name(p.dtype),
              " backward-weight pass");
}

}  // namespace ember::cpu
