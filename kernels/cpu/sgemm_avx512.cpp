#include "ember/kernels/cpu/sgemm_avx512.h"

#include "ember/core/error.h"

#if defined(__AVX512F__)
// GCC 12's AVX-512 headers make their "undefined" vectors by self-initialisation, which
// -Wuninitialized reports in every inlined shuffle.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <algorithm>
#include <tuple>
#include <utility>

#include "ember/core/parallel.h"
#include "ember/kernels/cpu/sgemm_avx512_tile.h"

#endif

namespace ember::cpu {

#if defined(__AVX512F__)
namespace sgemm_detail {
namespace {

// Cache blocking: a kc x kNR panel of b (48 KiB) stays in L1/L2 while the micro-kernel walks
// down the mc x kc block of a (420 KiB, L2); the kc x nc block of b sits in L3. Deep kc
// amortises the load and store of the c tile (1024^3 on one thread: kc 128 gave 81 GFLOP/s,
// 192 gave 90, 384 gave 98-101).
constexpr int64_t kKC = 384;
constexpr int64_t kMC = kMR * 20;
constexpr int64_t kNC = 2048;

// Packing writes x(p, j) (p < kc: the k index; j < width: the rows of a or columns of b) as
// panels of pw consecutive j: panel q holds j in [q * pw, q * pw + w), w = min(pw, width -
// q * pw), at dst + q * pw * kc, element (p, j) at p * stride + j % pw. stride is pw when
// zero_fill (lanes past w hold zeros: b's padded columns), else w (a's last panel is tight).

// x(p, j) = src[p * ps + j]: each row p is contiguous, so read it from start to end (one
// sequential stream), scattering its pieces to the panels. Walking one panel down all kc rows
// instead touches a new cache line and page ps floats apart at every step, which the
// hardware prefetchers do not follow: that order made packing 8% of a 1024^3 product.
void pack_rows(int64_t kc, int64_t width, const float* src, int64_t ps, int64_t pw, float* dst,
               bool zero_fill) {
  for (int64_t p = 0; p < kc; ++p) {
    const float* row = src + p * ps;
    for (int64_t j0 = 0; j0 < width; j0 += pw) {
      const int64_t w = std::min(pw, width - j0), stride = zero_fill ? pw : w;
      float* out = dst + j0 * kc + p * stride;
      for (int64_t v = 0; v < stride; v += 16) {
        const __m512 x = _mm512_maskz_loadu_ps(low_mask(w - v), row + j0 + v);
        _mm512_mask_storeu_ps(out + v, low_mask(stride - v), x);
      }
    }
  }
}

// x(p, j) = src[p + j * js]: each j is contiguous along p. Per panel, 16 j at a time, 16 x 16
// blocks are read along p (16 sequential streams) and transposed in registers.
void pack_columns(int64_t kc, int64_t width, const float* src, int64_t js, int64_t pw,
                  float* dst, bool zero_fill) {
  for (int64_t j0 = 0; j0 < width; j0 += pw) {
    const int64_t w = std::min(pw, width - j0), stride = zero_fill ? pw : w;
    for (int64_t jj = 0; jj < stride; jj += 16) {  // j0 + jj: the strip's first j
      const int64_t rows = std::clamp<int64_t>(w - jj, 0, 16);
      const __mmask16 store_mask = low_mask(std::min<int64_t>(16, stride - jj));
      float* out = dst + j0 * kc + jj;
      for (int64_t p0 = 0; p0 < kc; p0 += 16) {
        const int64_t len = std::min<int64_t>(16, kc - p0);
        const __mmask16 p_mask = low_mask(len);
        __m512 r[16];
        for (int i = 0; i < 16; ++i)
          r[i] = i < rows ? _mm512_maskz_loadu_ps(p_mask, src + p0 + (j0 + jj + i) * js)
                          : _mm512_setzero_ps();
        transpose16(r);
        for (int64_t q = 0; q < len; ++q)
          _mm512_mask_storeu_ps(out + (p0 + q) * stride, store_mask, r[q]);
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
  // a(i, p): row-major at data[i * ld + p], column-major at data[i + p * ld]
  const int64_t is = a.col_major ? 1 : a.ld, ps = a.col_major ? a.ld : 1;
  pack(kc, mc, a.data + i0 * is + p0 * ps, ps, is, kMR, dst, false);
}

void pack_b(const MatrixRef<float>& b, int64_t p0, int64_t kc, int64_t j0, int64_t nc,
            float* dst) {
  // b(p, j): row-major at data[p * ld + j], column-major at data[p + j * ld]
  const int64_t ps = b.col_major ? 1 : b.ld, js = b.col_major ? b.ld : 1;
  pack(kc, nc, b.data + p0 * ps + j0 * js, ps, js, kNR, dst, true);
}

}  // namespace sgemm_detail

namespace {

using namespace sgemm_detail;

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
        TileOut out{{}, {}, ldc, nullptr};
        for (int v = 0; v < kNV; ++v) {
          out.col[v] = c + t.i * ldc + t.j + 16 * v;
          out.mask[v] = low_mask(t.cols - 16 * v);
        }
        kKernels[t.mr - 1](t.kc, a_pack + t.ir * t.kc, b_pack + t.jr * t.kc, out, alpha,
                           t.first ? beta : 1.0f);
      });
}

}  // namespace

bool sgemm_avx512_available() { return true; }

// Measured against Eigen at 2 threads (docs/benchmarks.md): the kernel loses when a quarter
// or more of its 32-column tiles is padding (n = 16, 24, 40: 0.45-0.9x Eigen's speed) and on
// small products (24 x 256 x 256: 0.93x; 32^3: 0.8-1.07x); it wins from 48^3 up otherwise.
bool sgemm_avx512_pays(int64_t m, int64_t n, int64_t k) {
  const int64_t padded_n = (n + kNR - 1) / kNR * kNR;
  const int64_t work = m * n * k;
  return n >= kNR && 4 * n >= 3 * padded_n && work >= (int64_t(1) << 16) &&
         (m >= 32 || work >= (int64_t(1) << 22));
}

bool sgemm_avx512_pays_transposed(int64_t m, int64_t n, int64_t k) {
  const int64_t padded_m = (m + kNR - 1) / kNR * kNR, padded_n = (n + kMR - 1) / kMR * kMR;
  return !sgemm_avx512_pays(m, n, k) && m >= kNR && 4 * m >= 3 * padded_m &&
         10 * n >= 7 * padded_n && m * n * k >= (int64_t(1) << 16);
}

void sgemm_avx512(int64_t m, int64_t n, int64_t k, float alpha, MatrixRef<float> a,
                  MatrixRef<float> b, float beta, float* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) return gemm_blocking::empty_product(m, n, beta, c, ldc);
  run_blocks(m, n, k, [&](int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
    gemm_block(m0, m1, n0, n1, k, alpha, a, b, beta, c, ldc);
  });
}

void sgemm_avx512_transposed(int64_t m, int64_t n, int64_t k, float alpha, MatrixRef<float> a,
                             MatrixRef<float> b, float beta, float* c, int64_t ldc) {
  const MatrixRef<float> bt{b.data, b.ld, !b.col_major};
  const __m512 vb = _mm512_set1_ps(beta);
  transposed_product(
      m, n, a,
      [&](int64_t rows, const MatrixRef<float>& a_rows, float* t) {
        sgemm_avx512(n, rows, k, alpha, bt, {a_rows.data, a_rows.ld, !a_rows.col_major}, 0.0f, t,
                     rows);
      },
      [&](int64_t i, int64_t j0, __m512 x, __mmask16 lanes) {
        float* row = c + i * ldc + j0;
        if (beta != 0.0f) x = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(lanes, row), x);
        _mm512_mask_storeu_ps(row, lanes, x);
      });
}

#else  // no AVX-512 in this build: cpu::gemm keeps Eigen

bool sgemm_avx512_available() { return false; }

bool sgemm_avx512_pays(int64_t, int64_t, int64_t) { return false; }
bool sgemm_avx512_pays_transposed(int64_t, int64_t, int64_t) { return false; }

void sgemm_avx512(int64_t, int64_t, int64_t, float, MatrixRef<float>, MatrixRef<float>, float,
                  float*, int64_t) {
  EMBER_ERROR("matmul: this build has no AVX-512 float GEMM (compile with -mavx512f)");
}
void sgemm_avx512_transposed(int64_t, int64_t, int64_t, float, MatrixRef<float>,
                             MatrixRef<float>, float, float*, int64_t) {
  EMBER_ERROR("matmul: this build has no AVX-512 float GEMM (compile with -mavx512f)");
}

#endif

}  // namespace ember::cpu
