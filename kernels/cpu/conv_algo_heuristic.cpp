// Which CPU conv algorithms apply to a problem, and the one used when
// benchmark mode is off. The thresholds come from benchmarks/conv_bench.cpp.
#include "ember/kernels/cpu/conv_algo_select.h"

#include "ember/kernels/cpu/conv.h"
#include "ember/kernels/cpu/sgemm_avx512.h"

namespace ember::cpu {

namespace {
// Direct loops only for few channels per group: beyond this the GEMM always wins,
// and benchmark mode need not time a hopeless candidate.
constexpr int64_t kDirectMaxChannels = 16;
// The direct forward and backward-weight beat im2col + GEMM up to this many channels per
// group (first layer, batch 64, 1 thread, ms: forward C = 3 0.44 vs 0.58, C = 1 0.197 vs
// 0.197; backward-weight C = 3 0.52 vs 0.85, C = 1 0.19 vs 0.35, Note [Direct
// backward-weight]).
constexpr int64_t kDirectChannels = 4;
// The channels-last unfold copies runs of C floats: below a vector of them it
// is not measured, and benchmark mode need not time it.
constexpr int64_t kNhwcMinChannels = 16;
// Forwards with output rows this short keep the NCHW unfold (see below).
constexpr int64_t kGatherForwardWidth = 4;
}  // namespace

bool conv_algo_supports(ConvAlgo algo, ConvPass pass, const ConvParams& p) {
  // bfloat16 has its im2col passes only (Note [16-bit convolutions on the CPU]).
  if (p.dtype == ScalarType::BFloat16) return algo == ConvAlgo::kIm2colGemm;
  switch (algo) {
    case ConvAlgo::kIm2colGemm: return true;
    case ConvAlgo::kGemm1x1:
      return p.r == 1 && p.s == 1 && p.stride[0] == 1 && p.stride[1] == 1 && p.padding[0] == 0 &&
             p.padding[1] == 0;
    case ConvAlgo::kDirect: return p.c / p.groups <= kDirectMaxChannels;
    case ConvAlgo::kIm2colNhwc: return p.groups == 1 && p.c >= kNhwcMinChannels;
    case ConvAlgo::kImplicitGemm:
      return pass == ConvPass::kForward && p.dtype == ScalarType::Float &&
             conv_implicit_gemm_available();
    case ConvAlgo::kWinograd: return conv_winograd_applies(p);
  }
  return false;
}

// Winograd for the inference forwards it suits (conv_winograd_preferred:
// stride-2 3x3, 16+ input channels, transformed weights within 16 MiB); the
// implicit GEMM for the forwards it suits (conv_implicit_gemm_preferred: an
// image's phase planes within 256 KiB, and with AVX-512 OH*OW at least 7/8 of
// OH*OW rounded up to 16; with AVX2 only, OH*OW a multiple of 8, more than
// one tap and 5+ channels, conv_implicit_gemm_avx2.cpp has the figures); 1x1 GEMM wherever it applies (it skips the unfold); the
// direct forward for the first layer of an image model; the channels-last
// unfold where it applies (16+ channels, one group), except, with the AVX-512
// GEMM, for forwards with output rows of at most kGatherForwardWidth; im2col +
// GEMM otherwise. The direct backward-weight for the first layer as the forward;
// the direct backward-data is plain loops, slower than im2col at every measured
// shape.
// Inference forwards, batch 64, 2 threads, median of 300, ms, Winograd (its
// weights cached) vs implicit GEMM vs channels-last, three rounds:
//   32x16x16->64  0.59-0.68 vs 0.83-0.86 vs 0.85-0.94
//   64x8x8->128   0.49-0.54 vs 0.79-0.85 vs 0.81-0.86
//   32x14x14->64  0.58-0.60 vs 0.78      vs 0.66-0.67
//   64x7x7->128   0.50-0.58 vs 0.79-0.87 vs 0.86-1.14
// With AVX2 only (Zen, 8 images per vector; inference forwards, batch 64, median of 200,
// ms, 1 / 2 threads), Winograd vs the algorithm taken before it:
//   32x16x16->64  2.05 / 1.06 vs 2.18 / 1.13 (implicit GEMM)
//   64x8x8->128   1.71 / 0.82 vs 2.04 / 1.05 (implicit GEMM)
//   32x14x14->64  2.10 / 1.03 vs 2.01 / 1.06 (channels-last)
//   64x7x7->128   1.86 / 0.87 vs 2.11 / 1.08 (implicit GEMM)
// Its backward passes (training only, so benchmark mode's to take) against the channels-last
// ones on AVX2 (medians of 200, ms, 1 / 2 threads), backward-data: 32x16x16->64 1.73 / 1.37
// vs 2.31 / 1.78, 64x8x8->128 1.50 / 1.26 vs 2.04 / 1.67; backward-weight: 2.27 / 1.50 vs
// 2.51 / 1.81, 1.60 / 0.97 vs 2.01 / 1.35 (docs/benchmarks.md).
// Its rounding error is several times the others' (on the model's middle layers,
// against channels-last: 4x in the forward, 15x and 8x in the backward passes,
// docs/benchmark-mode.md): the price of 81 products instead of 144. So
// the heuristic leaves training forwards to the implicit GEMM, but benchmark
// mode also times Winograd there, with its weights transformed at every call
// (training forwards, batch 64, ms, Winograd vs implicit GEMM, benchmark
// mode's own timings): 32x16x16->64 1.45 vs 1.73 (1 thread), 0.64 vs 0.79
// (2 threads); 64x8x8->128 1.24 vs 1.56, 0.74 vs 0.87.
// Forwards, conv_bench (batch 64, 2 threads, median of 41, ms), implicit GEMM
// vs the algorithm the heuristic took before it:
//   3x32x32->32    0.32 vs 0.31 (direct)   1x28x28->32   0.086 vs 0.143 (direct)
//   32x16x16->64   0.94 vs 1.08 (nhwc)     32x14x14->64  0.89 vs 0.77 (nhwc: 49 of 64 lanes)
//   64x8x8->128    0.91 vs 1.12 (im2col)   64x7x7->128   0.91 vs 1.04 (im2col)
//   1x1 64x16x16->128 1.66 vs 1.82 (1x1)   1x1 256x7x7->64 1.13 vs 0.93 (1x1: 49 of 64 lanes)
// Channels-last vs NCHW im2col, conv_bench under load (batch 64, 2 threads,
// fastest of 41, ms, forward / backward-data / backward-weight):
//   32x14x14->64  0.74 / 0.88 / 0.98 vs 0.95 / 1.03 / 1.10
//   32x16x16->64  0.97 / 0.90 / 0.93 vs 1.24 / 1.10 / 1.11
//   64x7x7->128   1.06 / 0.93 / 0.95 vs 1.00 / 1.10 / 1.19
//   64x8x8->128   0.99 / 1.01 / 0.93 vs 0.93 / 1.04 / 1.18
// The forwards with 4-wide output rows lose by 5% over 3 more runs: there one
// gather fills a whole output plane of the NCHW unfold, while the channels-
// last forward pays a transpose of the input and one of the columns (packing).
// That holds with the AVX-512 GEMM only: on a Zen CPU with AVX2 (its packed
// GEMM, sgemm_avx2.h), conv_bench (batch 64, 2 threads, median of 21, ms, two
// runs) has the channels-last forward ahead there too:
//   64x8x8->128   1.05-1.07 vs 1.45-1.54    64x7x7->128   1.10-1.36 vs 1.54-2.32
ConvAlgo conv_heuristic_algo(ConvPass pass, const ConvParams& p) {
  if (p.dtype == ScalarType::BFloat16) return ConvAlgo::kIm2colGemm;
  if (conv_algo_supports(ConvAlgo::kWinograd, pass, p) && conv_winograd_preferred(p))
    return ConvAlgo::kWinograd;
  if (conv_algo_supports(ConvAlgo::kImplicitGemm, pass, p) && conv_implicit_gemm_preferred(p))
    return ConvAlgo::kImplicitGemm;
  if (conv_algo_supports(ConvAlgo::kGemm1x1, pass, p)) return ConvAlgo::kGemm1x1;
  if (pass != ConvPass::kBackwardData && p.c / p.groups <= kDirectChannels)
    return ConvAlgo::kDirect;
  const bool gather_forward = pass == ConvPass::kForward && p.out_w() <= kGatherForwardWidth &&
                             sgemm_avx512_available();
  if (!gather_forward && conv_algo_supports(ConvAlgo::kIm2colNhwc, pass, p))
    return ConvAlgo::kIm2colNhwc;
  return ConvAlgo::kIm2colGemm;
}

}  // namespace ember::cpu
