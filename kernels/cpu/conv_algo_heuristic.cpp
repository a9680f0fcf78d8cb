// Which CPU conv algorithms apply to a problem, and the one used when
// benchmark mode is off. The thresholds come from benchmarks/conv_bench.cpp.
#include "ember/kernels/cpu/conv_algo_select.h"

namespace ember::cpu {

namespace {
// Direct loops only for few channels per group: beyond this the GEMM always wins,
// and benchmark mode need not time a hopeless candidate.
constexpr int64_t kDirectMaxChannels = 16;
// The direct forward beats im2col + GEMM up to this many channels per group
// (first layer, batch 64, 1 thread: C = 3 0.44 vs 0.58 ms, C = 1 0.197 vs 0.197 ms).
constexpr int64_t kDirectForwardChannels = 4;
}  // namespace

bool conv_algo_supports(ConvAlgo algo, const ConvParams& p) {
  switch (algo) {
    case ConvAlgo::kIm2colGemm: return true;
    case ConvAlgo::kGemm1x1:
      return p.r == 1 && p.s == 1 && p.stride[0] == 1 && p.stride[1] == 1 && p.padding[0] == 0 &&
             p.padding[1] == 0;
    case ConvAlgo::kDirect: return p.c / p.groups <= kDirectMaxChannels;
  }
  return false;
}

// 1x1 GEMM wherever it applies (it skips the unfold); the direct forward for
// the first layer of an image model; im2col + GEMM otherwise. The direct
// backward passes are plain loops, slower than im2col at every measured shape.
ConvAlgo conv_heuristic_algo(ConvPass pass, const ConvParams& p) {
  if (conv_algo_supports(ConvAlgo::kGemm1x1, p)) return ConvAlgo::kGemm1x1;
  if (pass == ConvPass::kForward && p.c / p.groups <= kDirectForwardChannels)
    return ConvAlgo::kDirect;
  return ConvAlgo::kIm2colGemm;
}

}  // namespace ember::cpu
