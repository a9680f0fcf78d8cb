#pragma once
// The CPU conv algorithms. Every algorithm computes the passes and problems it
// `supports` (conv_algo_select.h); they differ only in speed.
#include "ember/kernels/common/conv_params.h"

namespace ember::cpu {

enum class ConvAlgo : int {
  kIm2colGemm = 0,  // unfold the input, one GEMM per image and group
  kGemm1x1 = 1,     // 1x1, stride 1, no padding: the input already is the matrix
  kDirect = 2,      // direct loops, for small channel counts
  kIm2colNhwc = 3,  // unfold a channels-last copy: contiguous runs of channels
  kImplicitGemm = 4,  // im2col's product, its panels gathered from the image (forward only)
  kWinograd = 5,      // 3x3 stride 2: Winograd on the phases
};
inline constexpr int kNumConvAlgos = 6;
const char* conv_algo_name(ConvAlgo algo);

}  // namespace ember::cpu
