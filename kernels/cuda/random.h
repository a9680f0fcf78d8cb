#pragma once
// The CUDA entry points of the random family
// (kernels/common/random_kernels.h says what each computes): Philox fills of
// CUDA tensors. Each reserves its blocks from the default generator of t's
// device and uses the per-block draws of kernels/common/philox.h that the CPU
// loops use, so after manual_seed(s) the CUDA tensor holds the values the CPU
// one would, and both generators advance by the same number of blocks. t:
// contiguous, on a CUDA device. CUDA builds only (random.cu); registered in
// kernels/cuda/register_kernels.cu.
#include <cstdint>

#include "ember/kernels/common/random_kernels.h"

namespace ember::cuda {

// float32 / float64.
decltype(RandomKernels::uniform)::Signature fill_uniform;
decltype(RandomKernels::normal)::Signature fill_normal;
// int64 / float32 / float64: integers in [low, high).
decltype(RandomKernels::randint)::Signature fill_randint;
// float32 / float64: 1 / (1 - p) where kept, 0 where dropped (0 <= p < 1).
decltype(RandomKernels::dropout_mask)::Signature fill_dropout_mask;

// Which per-block draw a fill runs, and the launch of one (kernels/cuda/random.cu).
enum class PhiloxDraw { kUniform, kNormal, kRandint, kDropoutMask };
struct PhiloxFill {
  PhiloxDraw draw = PhiloxDraw::kUniform;
  ScalarType dtype = kFloat;
  void* out = nullptr;
  int64_t n = 0;
  uint64_t seed = 0, base = 0;
  double a = 0, b = 0;  // uniform: from, span; normal: mean, std; dropout: keep, scale
  int64_t low = 0;      // randint
  uint64_t range = 1;   // randint
  int device = 0;
};

namespace detail {
void launch_philox_fill(const PhiloxFill& f);
}  // namespace detail

}  // namespace ember::cuda
