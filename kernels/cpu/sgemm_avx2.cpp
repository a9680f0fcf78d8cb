#include "ember/kernels/cpu/sgemm_avx2.h"

#include "ember/core/error.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

#include <algorithm>

#include "ember/kernels/cpu/gemm_blocking.h"
#include "ember/kernels/cpu/sgemm_avx2_tile.h"
#endif

namespace ember::cpu {

#if defined(__AVX2__) && defined(__FMA__)
namespace sgemm_avx2_detail {
namespace {

using avx2::load_lanes;
using avx2::store_lanes;
using avx2::transpose8;

// Cache blocking: a kc x kNR panel of b (16 KiB) stays in L1 while the micro-kernel walks
// down the mc x kc block of a (96 KiB, L2); the kc x nc block of b (2 MiB) sits in L3. Other
// depths and heights (kc 192-384, mc 96-168) measured the same within this host's noise.
constexpr int64_t kKC = 256;
constexpr int64_t kMC = kMR * 16;
constexpr int64_t kNC = 2048;

// Packing writes x(p, j) (p < kc: the k index; j < width: the rows of a or columns of b) as
// panels of pw consecutive j: panel q holds j in [q * pw, q * pw + w), w = min(pw, width -
// q * pw), at dst + q * pw * kc, element (p, j) at p * stride + j % pw. stride is pw when
// zero_fill (lanes past w hold zeros: b's padded columns), else w (a's last panel is tight).

// x(p, j) = src[p * ps + j]: each row p is contiguous. Rows are taken a few at a time and
// each panel's piece of them written before the next panel's: the reads stay a few sequential
// streams and each panel gets a contiguous run of writes. (Row by row, the 64-byte writes of
// one row went to a hundred panels 16 KiB apart: pack_rows took 5% of the training step.)
void pack_rows(int64_t kc, int64_t width, const float* src, int64_t ps, int64_t pw, float* dst,
               bool zero_fill) {
  constexpr int64_t kRowsAtOnce = 8;
  for (int64_t p0 = 0; p0 < kc; p0 += kRowsAtOnce) {
    const int64_t p1 = std::min(kc, p0 + kRowsAtOnce);
    for (int64_t j0 = 0; j0 < width; j0 += pw) {
      const int64_t w = std::min(pw, width - j0), stride = zero_fill ? pw : w;
      for (int64_t p = p0; p < p1; ++p) {
        const float* row = src + p * ps + j0;
        float* out = dst + j0 * kc + p * stride;
        for (int64_t v = 0; v < stride; v += 8) store_lanes(out + v, stride - v, load_lanes(row + v, w - v));
      }
    }
  }
}

// x(p, j) = src[p + j * js]: each j is contiguous along p. Per panel, 8 j at a time, 8 x 8
// blocks are read along p (8 sequential streams) and transposed in registers.
void pack_columns(int64_t kc, int64_t width, const float* src, int64_t js, int64_t pw,
                  float* dst, bool zero_fill) {
  for (int64_t j0 = 0; j0 < width; j0 += pw) {
    const int64_t w = std::min(pw, width - j0), stride = zero_fill ? pw : w;
    for (int64_t jj = 0; jj < stride; jj += 8) {  // j0 + jj: the strip's first j
      const int64_t rows = std::clamp<int64_t>(w - jj, 0, 8), lanes = stride - jj;
      float* out = dst + j0 * kc + jj;
      for (int64_t p0 = 0; p0 < kc; p0 += 8) {
        const int64_t len = std::min<int64_t>(8, kc - p0);
        __m256 r[8];
        for (int i = 0; i < 8; ++i)
          r[i] = i < rows ? load_lanes(src + p0 + (j0 + jj + i) * js, len) : _mm256_setzero_ps();
        transpose8(r);
        for (int64_t q = 0; q < len; ++q) store_lanes(out + (p0 + q) * stride, lanes, r[q]);
      }
    }
  }
}

// Packs x(p, j) = data[p * ps + j * js] (one of ps, js is 1) as described above.
void pack(int64_t kc, int64_t width, const float* data, int64_t ps, int64_t js, int64_t pw,
          float* dst, bool zero_fill) {
  if (js == 1) return pack_rows(kc, width, data, ps, pw, dst, zero_fill);
  pack_columns(kc, width, data, js, pw, dst, zero_fill);
}

}  // namespace

void pack_a(const MatrixRef<float>& a, int64_t i0, int64_t mc, int64_t p0, int64_t kc,
            float* dst) {
  const int64_t is = a.col_major ? 1 : a.ld, ps = a.col_major ? a.ld : 1;
  pack(kc, mc, a.data + i0 * is + p0 * ps, ps, is, kMR, dst, false);
}

namespace {

// k [p0, p0 + kc) x columns [j0, j0 + nc) of b as panels of kNR columns (b_panel[p * kNR +
// j]), the columns past nc zero.
void pack_b(const MatrixRef<float>& b, int64_t p0, int64_t kc, int64_t j0, int64_t nc,
            float* dst) {
  const int64_t ps = b.col_major ? 1 : b.ld, js = b.col_major ? b.ld : 1;
  pack(kc, nc, b.data + p0 * ps + j0 * js, ps, js, kNR, dst, true);
}

// Rows [m0, m1) x columns [n0, n1) of c: the whole blocked product on one thread.
void gemm_block(int64_t m0, int64_t m1, int64_t n0, int64_t n1, int64_t k, float alpha,
                const MatrixRef<float>& a, const MatrixRef<float>& b, float beta, float* c,
                int64_t ldc) {
  constexpr gemm_blocking::Blocks kBlocks{kKC, kMC, kNC};
  const gemm_blocking::PackBuffers buffers =
      gemm_blocking::pack_buffers<kNR>(m1 - m0, n1 - n0, std::min(k, kKC), kBlocks);
  float *a_pack = buffers.a, *b_pack = buffers.b;
  gemm_blocking::blocked_product<kMR, kNR>(
      m0, m1, n0, n1, k, kBlocks,
      [&](int64_t pc, int64_t kc, int64_t jc, int64_t nc) { pack_b(b, pc, kc, jc, nc, b_pack); },
      [&](int64_t ic, int64_t mc, int64_t pc, int64_t kc) { pack_a(a, ic, mc, pc, kc, a_pack); },
      [&](const gemm_blocking::TileJob& t) {
        float* tile = c + t.i * ldc + t.j;
        const TileOut out{{tile, tile + 8}, {t.cols, t.cols - 8}, ldc, nullptr};
        kKernels[t.mr - 1](t.kc, a_pack + t.ir * t.kc, b_pack + t.jr * t.kc, out, alpha,
                           t.first ? beta : 1.0f);
      });
}

}  // namespace
}  // namespace sgemm_avx2_detail

bool sgemm_avx2_available() { return true; }

// Measured against Eigen on one thread (docs/benchmarks.md): the kernel wins from 96^3 up
// (1.15-1.5x) and on the sample model's conv products (1.2-1.35x); it loses or ties on small
// ones (32^3-64^3: 0.88-1.09x), on short reductions (k = 10 and 27 behind 2048 and 9472
// columns: 0.84x and 0.94x, packing outweighs the arithmetic) and where a quarter or more of
// its 16-column tiles is padding. Taken the other way round (c^T = b^T a^T), products of
// 10-20 columns lost too (0.77-0.88x).
bool sgemm_avx2_pays(int64_t m, int64_t n, int64_t k) {
  using sgemm_avx2_detail::kNR;
  const int64_t padded_n = (n + kNR - 1) / kNR * kNR;
  const int64_t work = m * n * k;
  return n >= kNR && 4 * n >= 3 * padded_n && k >= 32 && work >= (int64_t(1) << 19) &&
         (m >= 24 || work >= (int64_t(1) << 22));
}

void sgemm_avx2(int64_t m, int64_t n, int64_t k, float alpha, MatrixRef<float> a,
                MatrixRef<float> b, float beta, float* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) return gemm_blocking::empty_product(m, n, beta, c, ldc);
  using namespace sgemm_avx2_detail;
  gemm_blocking::run_blocks<kMR, kNR, 8>(m, n, k, [&](int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
    gemm_block(m0, m1, n0, n1, k, alpha, a, b, beta, c, ldc);
  });
}

#else  // no AVX2 and FMA in this build: cpu::gemm keeps Eigen

bool sgemm_avx2_available() { return false; }
bool sgemm_avx2_pays(int64_t, int64_t, int64_t) { return false; }

void sgemm_avx2(int64_t, int64_t, int64_t, float, MatrixRef<float>, MatrixRef<float>, float,
                float*, int64_t) {
  EMBER_ERROR("matmul: this build has no AVX2 float GEMM (compile with -mavx2 -mfma)");
}

#endif

}  // namespace ember::cpu
