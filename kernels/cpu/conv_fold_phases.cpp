// Note [Stride-2 fold by phase]
// The bfloat16 backward-data's fold (col2im) where the convolution has stride 2 and its input
// is twice its output (H = 2 OH, W = 2 OW: 3x3 taps, pad 1, even planes, as the sample
// model's layers). Input position (2a + ph, 2b + pw) receives the taps (r, s) with
// ph + pad_h - r and pw + pad_w - s even, tap (r, s) from its col plane at (a + dr, b + ds),
// dr = (ph + pad_h - r) / 2, ds likewise. So each phase plane (OH x OW, indexed by a, b) is a
// sum of shifted col planes, laid out as they are: 16 positions at a time, one masked load per
// tap (lanes whose shifted position leaves the plane read nothing, a zero). The four phase
// planes are then interleaved into the input plane, which rounds to bfloat16 once. col2im
// instead adds each tap into the input plane in place, a read-modify-write per tap of rows 4
// or 8 long (or a gather and a scatter): 10% of the autocast training step.
#include <algorithm>
#include <vector>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "ember/core/parallel.h"
#include "ember/kernels/cpu/convert_16bit.h"
#include "ember/kernels/cpu/conv_unfold.h"

namespace ember::cpu::conv_detail {

#if defined(__AVX512F__)
namespace {

constexpr int64_t kMaxTaps = 3;         // per axis: R, S <= 3
constexpr int64_t kMaxPositions = 256;  // OH * OW: the phase planes live on the stack

// One phase (ph, pw) of the fold: its taps' col rows (r * S + s), their shifts in the plane
// (dr * OW + ds), and for each tap and block of 16 positions the lanes whose source is inside.
struct PhaseTerms {
  int64_t count = 0;
  int64_t tap[kMaxTaps * kMaxTaps], shift[kMaxTaps * kMaxTaps];
  const __mmask16* valid;  // (count, blocks)
};

// The four phases' terms; `masks` holds their valid lanes.
void plan_phases(const ConvShape& g, std::vector<__mmask16>& masks, PhaseTerms* phases) {
  const int64_t blocks = (g.ohw + 15) / 16;
  masks.assign(static_cast<size_t>(4 * kMaxTaps * kMaxTaps * blocks), 0);
  for (int64_t q = 0; q < 4; ++q) {
    PhaseTerms& t = phases[q];
    t.valid = masks.data() + q * kMaxTaps * kMaxTaps * blocks;
    for (int64_t r = 0; r < g.r; ++r)
      for (int64_t s = 0; s < g.s; ++s) {
        const int64_t mr = q / 2 + g.ph - r, ms = q % 2 + g.pw - s;
        if (mr % 2 != 0 || ms % 2 != 0) continue;
        const int64_t dr = mr / 2, ds = ms / 2;
        __mmask16* valid = masks.data() + (q * kMaxTaps * kMaxTaps + t.count) * blocks;
        for (int64_t pos = 0; pos < g.ohw; ++pos) {
          const int64_t a = pos / g.ow + dr, b = pos % g.ow + ds;
          if (a >= 0 && a < g.oh && b >= 0 && b < g.ow)
            valid[pos / 16] |= static_cast<__mmask16>(1u << (pos % 16));
        }
        t.tap[t.count] = r * g.s + s;
        t.shift[t.count] = dr * g.ow + ds;
        ++t.count;
      }
  }
}

}  // namespace

bool fold_by_phase_applies(const ConvShape& g) {
  return g.groups == 1 && g.sh == 2 && g.sw == 2 && g.dh == 1 && g.dw == 1 && g.h == 2 * g.oh &&
         g.w == 2 * g.ow && g.ow <= 8 && g.ohw <= kMaxPositions && g.r <= kMaxTaps &&
         g.s <= kMaxTaps;
}

void fold_by_phase(const ConvShape& g, const float* col, int64_t nb, const float* bias,
                   BFloat16* x) {
  thread_local std::vector<__mmask16> masks;
  PhaseTerms phases[4];
  plan_phases(g, masks, phases);
  const int64_t rs = g.r * g.s, cols = nb * g.ohw, blocks = (g.ohw + 15) / 16;
  // Lane i of the row's first 16: phase (ph, 0)'s element i / 2 for even i, (ph, 1)'s for odd.
  const __m512i interleave = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1,
                                              16, 0);
  const __mmask16 half_row = low_lanes(static_cast<int>(g.ow));
  const __mmask16 row = low_lanes(static_cast<int>(g.w));
  parallel_for(0, nb * g.c, row_grain(g.hw * rs), [&](int64_t begin, int64_t end) {
    alignas(64) float phase[4][kMaxPositions];
    alignas(64) float plane[4 * kMaxPositions];
    for (int64_t i = begin; i < end; ++i) {
      const int64_t img = i / g.c, c = i % g.c;
      const __m512 b = _mm512_set1_ps(bias ? bias[c] : 0.0f);
      const float* taps = col + c * rs * cols + img * g.ohw;  // tap t's plane at t * cols
      for (int64_t q = 0; q < 4; ++q) {
        const PhaseTerms& t = phases[q];
        for (int64_t blk = 0; blk < blocks; ++blk) {
          __m512 sum = b;
          for (int64_t k = 0; k < t.count; ++k) {
            const float* src = taps + t.tap[k] * cols + 16 * blk + t.shift[k];
            sum = _mm512_add_ps(sum, _mm512_maskz_loadu_ps(t.valid[k * blocks + blk], src));
          }
          _mm512_store_ps(phase[q] + 16 * blk, sum);
        }
      }
      for (int64_t a = 0; a < g.oh; ++a)
        for (int64_t ph = 0; ph < 2; ++ph) {
          const __m512 even = _mm512_maskz_loadu_ps(half_row, phase[2 * ph] + a * g.ow);
          const __m512 odd = _mm512_maskz_loadu_ps(half_row, phase[2 * ph + 1] + a * g.ow);
          _mm512_mask_storeu_ps(plane + (2 * a + ph) * g.w, row,
                                _mm512_permutex2var_ps(even, interleave, odd));
        }
      narrow(plane, x + i * g.hw, g.hw);
    }
  });
}

#endif

}  // namespace ember::cpu::conv_detail
