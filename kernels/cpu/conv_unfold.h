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
// For each tap (r, s), the offset of every output position's input in a plane
// (-1 in the padding): (R*S, OH*OW). A thread_local table, so no allocation in
// steady state; worker threads read it through the returned pointer (inside a
// parallel lambda the name would refer to their own, empty, copy).
const int32_t* tap_plane_offsets(const ConvShape& g);

// col2im into bfloat16 x, rounded once, for stride-2 problems whose input is twice their
// output (Note [Stride-2 fold by phase], conv_fold_phases.cpp): where applies(g).
bool fold_by_phase_applies(const ConvShape& g);
void fold_by_phase(const ConvShape& g, const float* col, int64_t nb, const float* bias,
                   BFloat16* x);
#endif

// Note [Unfold into panels]
// The bfloat16 forward needs col (C*R*S, nb*OH*OW) only as the b of its GEMM, which packs
// it into panels of k-pairs: rows 2i and 2i + 1 interleaved, 32 columns at a time. Where a
// tap's 16 consecutive output positions read within 64 elements of their plane (3x3 taps
// over rows of up to 32: the sample model's layers), so do two neighbouring taps' in most
// cases, and one vpermt2w of a 64-element window gives a panel row's 32 lanes: the unfold
// writes the panels itself (bf16gemm_panels), one aligned store per 32 lanes, where im2col
// stored them to col in two 16-lane pieces and the packing read, interleaved and stored them
// again. A pair whose taps lie further apart (the last tap of a plane with the first of the
// next, or rows far apart in wide images) takes one window per tap.
class PanelUnfold {
 public:
  struct Half;
  struct PairWindow;
  static constexpr int64_t kMaxPositions = 4096;  // output positions per image: table size

  // Whether the library was built with the unfold (AVX-512 BW and VL); without, no shape
  // applies.
  static bool built();

  // The windows of g's tap pairs, from a thread_local cache by geometry (built on the
  // calling thread at a shape's first call): false (operator bool) where the unfold does not
  // apply: groups, output planes that are not whole blocks of 16, taps spread wider.
  explicit PanelUnfold(const ConvShape& g);
  explicit operator bool() const { return windows_ != nullptr; }

  // Rows [p0, p0 + kc) x columns [j0, j0 + nc) of the col of the images from x in the layout
  // of PanelWriter (bf16gemm_avx512.h): any thread, once the constructor has returned.
  void write(const BFloat16* x, int64_t p0, int64_t kc, int64_t j0, int64_t nc,
             uint16_t* dst) const;

  static bool shape_applies(const ConvShape& g);

 private:
  ConvShape g_;
  const PairWindow* windows_ = nullptr;  // (R*S + 1, OH*OW / 16)
};

// im2col for bfloat16 by the same pair windows: one vpermt2w gives 16 positions of two
// neighbouring rows of col. False (nothing written) where PanelUnfold does not apply.
bool im2col_pairs(const ConvShape& g, const BFloat16* x, int64_t nb, BFloat16* col);

}  // namespace ember::cpu::conv_detail
