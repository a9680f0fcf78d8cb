// The bfloat16 forward's unfold written straight into the bfloat16 GEMM's b panels
// (Note [Unfold into panels], conv_unfold.h).
#include <algorithm>
#include <array>
#include <climits>
#include <map>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/parallel.h"
#include "ember/kernels/cpu/conv_unfold.h"

#if defined(__AVX512BW__) && defined(__AVX512VL__)
// GCC 12's AVX-512 headers make their "undefined" vectors by self-initialisation.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

namespace ember::cpu::conv_detail {

// Where one vpermt2w finds 32 lanes of a panel row (16 positions x 2 taps, or the lanes of one
// of the taps) in a 64-element window of x that starts `base` elements into the first tap's
// plane: the window's halves that may be read (not past `limit`), each lane's place in it and
// the lanes that read x (the others are zeros: padding, or the other tap's lanes).
struct PanelUnfold::Half {
  int32_t base = 0;
  __mmask32 read_lo = 0, read_hi = 0, inside = 0;
  uint16_t place[32] = {};
};

// One k-pair's 16 positions: one window, or one per tap (split) where together they span
// more than 64 elements.
struct PanelUnfold::PairWindow {
  Half half[2];
  bool split = false;
};

namespace {

__mmask32 readable(int64_t n) {
  return n <= 0 ? __mmask32(0) : n >= 32 ? ~__mmask32(0) : __mmask32((uint32_t(1) << n) - 1);
}

// h reads offsets[i] (-1: none) into lane i; false where they span 64 elements or more.
bool fill_half(const int32_t (&offsets)[32], int64_t limit, PanelUnfold::Half& h) {
  int32_t lo = INT32_MAX, hi = -1;
  for (int32_t o : offsets)
    if (o >= 0) lo = std::min(lo, o), hi = std::max(hi, o);
  if (hi < 0) return true;  // all padding: zeros, nothing read
  if (hi - lo >= 64) return false;
  h.base = lo;
  h.read_lo = readable(limit - lo);
  h.read_hi = readable(limit - lo - 32);
  for (int lane = 0; lane < 32; ++lane)
    if (offsets[lane] >= 0) {
      h.inside |= __mmask32(1) << lane;
      h.place[lane] = static_cast<uint16_t>(offsets[lane] - lo);
    }
  return true;
}

}  // namespace

bool PanelUnfold::built() { return true; }

bool PanelUnfold::shape_applies(const ConvShape& g) {
  return g.groups == 1 && g.ohw % 16 == 0 && g.ohw <= kMaxPositions && g.hw < (INT32_MAX / 2);
}

namespace {

// The windows of g's tap pairs, (R*S + 1, OH*OW / 16), into `table`: entry t < R*S holds
// taps t and t + 1 (tap 0 of the next plane after the last), entry R*S the last tap alone
// (the last row of an odd reduction). The first tap's position i goes to lane 2i and the
// second's to 2i + 1 when `interleaved` (a panel row), else to lanes i and 16 + i (two col
// rows). False where a tap's 16 positions span 64 elements or more.
bool build_pair_windows(const ConvShape& g, bool interleaved,
                        std::vector<PanelUnfold::PairWindow>& table) {
  const int64_t rs = g.r * g.s, blocks = g.ohw / 16;
  const int32_t* taps = tap_plane_offsets(g);
  table.assign(static_cast<size_t>((rs + 1) * blocks), PanelUnfold::PairWindow{});
  for (int64_t t = 0; t <= rs; ++t) {
    const int64_t tap = t < rs ? t : rs - 1;
    const bool partner = t < rs, crosses = tap == rs - 1;
    const int64_t next = crosses ? 0 : tap + 1, shift = crosses ? g.hw : 0;
    const int64_t limit = partner && crosses ? 2 * g.hw : g.hw;
    for (int64_t b = 0; b < blocks; ++b) {
      const int32_t* first = taps + tap * g.ohw + 16 * b;
      const int32_t* second = taps + next * g.ohw + 16 * b;
      int32_t both[32], only_first[32], only_second[32];
      std::fill(only_first, only_first + 32, -1);
      std::fill(only_second, only_second + 32, -1);
      for (int i = 0; i < 16; ++i) {
        const int32_t o = !partner || second[i] < 0 ? -1 : static_cast<int32_t>(second[i] + shift);
        const int lane0 = interleaved ? 2 * i : i, lane1 = interleaved ? 2 * i + 1 : 16 + i;
        both[lane0] = only_first[lane0] = first[i];
        both[lane1] = only_second[lane1] = o;
      }
      PanelUnfold::PairWindow& w = table[t * blocks + b];
      if (fill_half(both, limit, w.half[0])) continue;
      w = PanelUnfold::PairWindow{};
      w.split = true;
      if (!fill_half(only_first, g.hw, w.half[0]) || !fill_half(only_second, limit, w.half[1]))
        return false;
    }
  }
  return true;
}

// build_pair_windows' tables by geometry, this thread's: a model's layers meet the same
// few shapes at every step, in both layouts. Null where the windows do not fit. The pointers
// stay valid until the cache is emptied, which happens only on a miss with 64 shapes in it
// (inside the one call that then uses the new table).
const PanelUnfold::PairWindow* pair_windows(const ConvShape& g, bool interleaved) {
  using Key = std::array<int64_t, 13>;
  struct Entry {
    bool fits = false;
    std::vector<PanelUnfold::PairWindow> table;
  };
  thread_local std::map<Key, Entry> cache;
  const Key key{g.h,  g.w,  g.r,  g.s,  g.oh, g.ow,           g.sh,
                g.sw, g.ph, g.pw, g.dh, g.dw, interleaved ? 1 : 0};
  auto it = cache.find(key);
  if (it == cache.end()) {
    if (cache.size() >= 64) cache.clear();
    it = cache.emplace(key, Entry{}).first;
    it->second.fits = build_pair_windows(g, interleaved, it->second.table);
  }
  return it->second.fits ? it->second.table.data() : nullptr;
}

}  // namespace

PanelUnfold::PanelUnfold(const ConvShape& g) : g_(g) {
  if (shape_applies(g)) windows_ = pair_windows(g, true);
}

namespace {

// The lanes of a half's window, of those in `lanes`.
inline __m512i read_half(const PanelUnfold::Half& h, const BFloat16* plane, __mmask32 lanes) {
  const BFloat16* at = plane + h.base;
  const __m512i lo = _mm512_maskz_loadu_epi16(h.read_lo, at);
  const __m512i hi = _mm512_maskz_loadu_epi16(h.read_hi, at + 32);
  return _mm512_maskz_permutex2var_epi16(h.inside & lanes, lo, _mm512_loadu_si512(h.place), hi);
}

}  // namespace

void PanelUnfold::write(const BFloat16* x, int64_t p0, int64_t kc, int64_t j0, int64_t nc,
                        uint16_t* dst) const {
  const int64_t rs = g_.r * g_.s, blocks = g_.ohw / 16, kc2 = (kc + 1) / 2;
  for (int64_t q = 0; q * 32 < nc; ++q) {
    uint16_t* panel = dst + q * 64 * kc2;
    // The panel's two blocks of 16 positions: their image's first plane and their windows.
    const BFloat16* image[2] = {};
    int64_t block[2] = {};
    for (int h = 0; h < 2; ++h) {
      const int64_t j = j0 + 32 * q + 16 * h;
      if (32 * q + 16 * h >= nc) continue;
      image[h] = x + j / g_.ohw * g_.c * g_.hw;
      block[h] = j % g_.ohw / 16;
    }
    int64_t c = p0 / rs, tap = p0 % rs;
    for (int64_t r = 0; r < kc2; ++r) {
      // A row without its partner takes the even lanes of its pair's window, which read only
      // its own plane, but for the last tap, whose partner's plane may not exist.
      const bool alone = 2 * r + 1 >= kc;
      const int64_t entry = alone && tap == rs - 1 ? rs : tap;
      const __mmask32 lanes = alone ? __mmask32(0x55555555) : ~__mmask32(0);
      for (int h = 0; h < 2; ++h) {
        __m512i v = _mm512_setzero_si512();
        if (image[h]) {
          const PairWindow& w = windows_[entry * blocks + block[h]];
          const BFloat16* plane = image[h] + c * g_.hw;
          v = read_half(w.half[0], plane, lanes);
          if (w.split && !alone) v = _mm512_or_si512(v, read_half(w.half[1], plane, lanes));
        }
        _mm512_store_si512(panel + 64 * r + 32 * h, v);
      }
      for (tap += 2; tap >= rs; tap -= rs) ++c;
    }
  }
}

bool im2col_pairs(const ConvShape& g, const BFloat16* x, int64_t nb, BFloat16* col) {
  if (!PanelUnfold::shape_applies(g)) return false;
  const PanelUnfold::PairWindow* windows = pair_windows(g, false);
  if (!windows) return false;
  const int64_t rs = g.r * g.s, rows = g.c * rs, cols = nb * g.ohw, blocks = g.ohw / 16;
  parallel_for(0, (rows + 1) / 2, row_grain(2 * cols), [&](int64_t begin, int64_t end) {
    for (int64_t pair = begin; pair < end; ++pair) {
      const int64_t row = 2 * pair, c = row / rs, tap = row % rs;
      const bool alone = row + 1 == rows;
      const PanelUnfold::PairWindow* entry = windows + (alone ? rs : tap) * blocks;
      const __mmask32 lanes = alone ? __mmask32(0xFFFF) : ~__mmask32(0);
      BFloat16* out = col + row * cols;
      for (int64_t img = 0; img < nb; ++img) {
        const BFloat16* plane = x + (img * g.c + c) * g.hw;
        for (int64_t b = 0; b < blocks; ++b, out += 16) {
          const PanelUnfold::PairWindow& w = entry[b];
          __m512i v = read_half(w.half[0], plane, lanes);
          if (w.split && !alone) v = _mm512_or_si512(v, read_half(w.half[1], plane, lanes));
          _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm512_castsi512_si256(v));
          if (!alone)
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + cols),
                                _mm512_extracti64x4_epi64(v, 1));
        }
      }
    }
  });
  return true;
}

}  // namespace ember::cpu::conv_detail

#else  // built without AVX-512 BW and VL: no shape applies

namespace ember::cpu::conv_detail {

bool PanelUnfold::built() { return false; }
bool PanelUnfold::shape_applies(const ConvShape&) { return false; }
PanelUnfold::PanelUnfold(const ConvShape& g) : g_(g) {}
void PanelUnfold::write(const BFloat16*, int64_t, int64_t, int64_t, int64_t, uint16_t*) const {
  EMBER_CHECK(false, "conv unfold into panels: built without AVX-512 BW");
}
bool im2col_pairs(const ConvShape&, const BFloat16*, int64_t, BFloat16*) { return false; }

}  // namespace ember::cpu::conv_detail

#endif
