#include "ember/kernels/cpu/conv_algo.h"

namespace ember::cpu {

const char* conv_algo_name(ConvAlgo algo) {
  switch (algo) {
    case ConvAlgo::kIm2colGemm: return "im2col_gemm";
    case ConvAlgo::kGemm1x1: return "gemm_1x1";
    case ConvAlgo::kDirect: return "direct";
    case ConvAlgo::kIm2colNhwc: return "im2col_nhwc";
    case ConvAlgo::kImplicitGemm: return "implicit_gemm";
    case ConvAlgo::kWinograd: return "winograd";
  }
  return "unknown";
}

}  // namespace ember::cpu
