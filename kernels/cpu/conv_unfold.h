#pragma once
// The NCHW unfold of im2col + GEMM (conv_im2col.cpp) and its adjoint, shared
// with the bfloat16 passes (conv_im2col_bf16.cpp).
#include <cstdint>

#include "ember/core/reduced_float.h"
#include "ember/kernels/cpu/conv_util.h"

namespace ember::cpu::conv_detail {

// x: (nb, C, H, W) -> col: (C*R*S, nb*OH*OW); row (c, r, s), column (image, oh, ow).
// Instantiated for float, double and BFloat16.
template <typename T>
void im2col(const ConvShape& g, const T* x, int64_t nb, T* col);

// x: (nb, C, H, W) = bias (or 0) + the sum of col's entries at each input position.
// Instantiated for float and double.
template <typename T>
void col2im(const ConvShape& g, const T* col, int64_t nb, const T* bias, T* x);

#if defined(__AVX512F__)
// col2im into bfloat16 x, rounded once, for stride-2 problems whose input is twice their
// output (Note [Stride-2 fold by phase], conv_fold_phases.cpp): where applies(g).
bool fold_by_phase_applies(const ConvShape& g);
void fold_by_phase(const ConvShape& g, const float* col, int64_t nb, const float* bias,
                   BFloat16* x);
#endif

}  // namespace ember::cpu::conv_detail
