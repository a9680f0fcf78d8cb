#pragma once
// The description of one 2-D convolution problem and its passes, shared by
// the op (core/ops/nn_ops/conv.cpp), the conv kernel table (conv_kernels.h), the CPU
// kernels and their algorithm choice (kernels/cpu/conv*.cpp) and the cuDNN
// passes (kernels/cuda/cudnn_conv*).
#include <array>
#include <cstdint>
#include <string>

#include "ember/core/dtype.h"

namespace ember {

struct ConvParams {
  int64_t n = 0, c = 0, h = 0, w = 0;  // input (N, C, H, W)
  int64_t k = 0, r = 0, s = 0;         // weight (K, C/groups, R, S)
  int64_t groups = 1;
  std::array<int64_t, 2> stride{1, 1}, padding{0, 0}, dilation{1, 1};
  ScalarType dtype = ScalarType::Float;
  // A forward whose output records no graph (inference, evaluation): its weights are likely
  // the same at the next call, so the Winograd algorithm keeps their transform.
  bool inference = false;
  // The forward's output goes through ReLU before it is stored (an eval-time
  // fusion, Note [Eval fusion of Conv2d, BatchNorm and ReLU]): forwards only, and
  // only where no graph records. Every forward of the conv table honors it. It
  // changes no algorithm's applicability, so the cache key leaves it out.
  bool relu = false;

  int64_t out_h() const { return (h + 2 * padding[0] - dilation[0] * (r - 1) - 1) / stride[0] + 1; }
  int64_t out_w() const { return (w + 2 * padding[1] - dilation[1] * (s - 1) - 1) / stride[1] + 1; }
  // A canonical text form: the key of the algorithm cache.
  std::string key() const;
};

enum class ConvPass : int { kForward = 0, kBackwardData = 1, kBackwardWeight = 2 };
const char* conv_pass_name(ConvPass pass);

}  // namespace ember
