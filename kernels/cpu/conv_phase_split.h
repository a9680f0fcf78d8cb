#pragma once
// The zero-padded, column-phase-split copy of a conv input that the direct
// passes read (Note [Phase-split input]).
#include <algorithm>
#include <vector>

#include "ember/kernels/cpu/conv_util.h"

namespace ember::cpu::conv_detail {

// Note [Phase-split input]
// The direct forward and backward-weight passes read a copy of the input that
// is zero-padded and split by column phase: padded column iwp = iw + pw goes
// to phase iwp % sw, element iwp / sw. Output column ow under tap s reads
// padded column ow*sw + s*dw, which is element ow + (s*dw) / sw of phase
// (s*dw) % sw: contiguous in ow for any stride, and never out of bounds, so
// inner loops are plain vector loads. Rows: (N, C, H + 2 ph, sw phases, len).
// Its sizes: rows of `len` elements, `phases` rows per padded input row, a
// plane of (H + 2 ph) * phases * len elements per (image, channel).
template <typename T>
struct PhaseSplitLayout {
  static constexpr int64_t kVec = 64 / sizeof(T);  // outputs per block: one AVX-512 vector
  int64_t hp, phases, len, plane;

  explicit PhaseSplitLayout(const ConvShape& g)
      : hp(g.h + 2 * g.ph), phases(g.sw),
        len((g.ow + kVec - 1) / kVec * kVec + g.dw * (g.s - 1) / g.sw + 1),
        plane(hp * phases * len) {}

  // `count` consecutive (H, W) planes of x -> `count` planes at dst.
  void split(const ConvShape& g, const T* x, int64_t count, T* dst) const {
    for (int64_t i = 0; i < count; ++i, dst += plane) {
      std::fill(dst, dst + plane, T(0));
      for (int64_t q = 0; q < phases; ++q) {
        // element j of phase q is input column j * sw + q - pw; the same elements of every
        // row are inside it, found once per phase (once per row, the divisions cost the
        // first layer's direct forward 8-9%: 0.55-0.59 against 0.51 ms, batch 64, 1 thread)
        const auto [lo, hi] = valid_range(len, g.w, g.sw, q - g.pw);
        for (int64_t ih = 0; ih < g.h; ++ih)
          copy_strided(dst + ((ih + g.ph) * phases + q) * len + lo,
                       x + i * g.hw + ih * g.w + lo * g.sw + q - g.pw, hi - lo, g.sw);
      }
    }
  }
};

// The offset of each tap (c, r, s) of a group in the phase-split input, so the
// block loops do no division. A thread_local table: no allocation in steady
// state; worker threads read it through the returned pointer (inside a
// parallel lambda the name would refer to their own, empty, copy).
template <typename T>
const int64_t* tap_offset_table(const ConvShape& g, const PhaseSplitLayout<T>& in) {
  thread_local std::vector<int64_t> taps;
  taps.resize(g.crs_g);
  for (int64_t c = 0; c < g.cg; ++c)
    for (int64_t r = 0; r < g.r; ++r)
      for (int64_t s = 0; s < g.s; ++s)
        taps[(c * g.r + r) * g.s + s] = c * in.plane + r * g.dh * in.phases * in.len +
                                        s * g.dw % g.sw * in.len + s * g.dw / g.sw;
  return taps.data();
}

}  // namespace ember::cpu::conv_detail
