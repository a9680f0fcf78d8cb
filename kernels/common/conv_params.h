#pragma once
// The description of one 2-D convolution problem, shared by the CPU conv
// kernels (kernels/cpu/conv*.cpp), the op (core/ops/conv.cpp) and the
// algorithm choice (kernels/cpu/conv_algo_select.h).
#include <array>
#include <cstdint>
#include <string>

#include "ember/core/dtype.h"

namespace ember::cpu {

struct ConvParams {
  int64_t n = 0, c = 0, h = 0, w = 0;  // input (N, C, H, W)
  int64_t k = 0, r = 0, s = 0;         // weight (K, C/groups, R, S)
  int64_t groups = 1;
  std::array<int64_t, 2> stride{1, 1}, padding{0, 0}, dilation{1, 1};
  ScalarType dtype = ScalarType::Float;
  // A forward whose output records no graph (inference, evaluation): its weights are likely
  // the same at the next call, which the Winograd algorithm's weight cache relies on.
  bool inference = false;

  int64_t out_h() const { return (h + 2 * padding[0] - dilation[0] * (r - 1) - 1) / stride[0] + 1; }
  int64_t out_w() const { return (w + 2 * padding[1] - dilation[1] * (s - 1) - 1) / stride[1] + 1; }
  // A canonical text form: the key of the algorithm cache.
  std::string key() const;
};

// The CPU algorithms. Every algorithm computes the passes and problems it
// `supports` (conv_algo_select.h); they differ only in speed.
enum class ConvAlgo : int {
  kIm2colGemm = 0,  // unfold the input, one GEMM per image and group
  kGemm1x1 = 1,     // 1x1, stride 1, no padding: the input already is the matrix
  kDirect = 2,      // direct loops, for small channel counts
  kIm2colNhwc = 3,  // unfold a channels-last copy: contiguous runs of channels
  kImplicitGemm = 4,  // im2col's product, its panels gathered from the image (forward only)
  kWinograd = 5,      // 3x3 stride 2: Winograd on the input's phases (forward only)
};
inline constexpr int kNumConvAlgos = 6;
const char* conv_algo_name(ConvAlgo algo);

enum class ConvPass : int { kForward = 0, kBackwardData = 1, kBackwardWeight = 2 };
const char* conv_pass_name(ConvPass pass);

}  // namespace ember::cpu
