#pragma once
// A packed bfloat16 GEMM on AVX-512 BF16 (vdpbf16ps): the operands are packed
// once per cache block into panels of k-pairs, each multiply-add takes two
// bfloat16 products per float32 lane, and the float32 accumulators round to
// bfloat16 once, when the tile is stored (alpha and beta applied in float32).
// The blocking, the thread grid and the 14 x 32 register tile are the float
// kernel's (sgemm_avx512.h); a k-pair step does twice its work per instruction.
#include <cstdint>

#include "ember/core/reduced_float.h"
#include "ember/kernels/cpu/gemm.h"

namespace ember::cpu {

// Whether this build has the kernel (compiled with AVX-512 BF16) and the CPU
// it runs on has the instructions (cpuid). Without them bf16gemm still works, by widening
// both operands to float32 (exactly) for the float GEMM: the same sums, at float32's speed.
bool bf16gemm_available();

// c (m, n, row-major, leading dimension ldc) = alpha * a (m, k) @ b (k, n) + beta * c, every
// matrix bfloat16, accumulated in float32 and rounded to nearest even once. With beta == 0
// c is not read. Threads as sgemm_avx512.
void bf16gemm(int64_t m, int64_t n, int64_t k, float alpha, MatrixRef<BFloat16> a,
              MatrixRef<BFloat16> b, float beta, BFloat16* c, int64_t ldc);
// The same product into a float32 c, stored without rounding: for sums that go on across
// calls (a convolution's weight gradient over chunks of a batch, with beta 1) or that take
// more terms before they round (a bias, the overlapping taps of a col2im).
void bf16gemm(int64_t m, int64_t n, int64_t k, float alpha, MatrixRef<BFloat16> a,
              MatrixRef<BFloat16> b, float beta, float* c, int64_t ldc);

// A bfloat16 matrix whose columns come in runs side by side (a convolution's gy, (images, K,
// OH*OW), read as (K, images * OH*OW)): element (i, j) at
// data + (j / run) * run_stride + i * ld + j % run.
struct MatrixRuns {
  const BFloat16* data;
  int64_t ld, run, run_stride;
};

// bf16gemm into a float32 c with a (bf16gemm_a_runs) or b (bf16gemm_b_runs) in runs of a
// multiple of 16 columns, packed from there (no reordered copy). Only where
// bf16gemm_available().
void bf16gemm_a_runs(int64_t m, int64_t n, int64_t k, float alpha, MatrixRuns a,
                     MatrixRef<BFloat16> b, float beta, float* c, int64_t ldc);
void bf16gemm_b_runs(int64_t m, int64_t n, int64_t k, float alpha, MatrixRef<BFloat16> a,
                     MatrixRuns b, float beta, float* c, int64_t ldc);

// b of bf16gemm_panels, written panel by panel as the kernel packs it (an implicit GEMM's b,
// made from other data: a convolution's input, conv_unfold.h). write(p0, kc, j0, nc, dst)
// writes rows [p0, p0 + kc) x columns [j0, j0 + nc) of b: panel q (columns j0 + 32 q on) at
// dst + 64 q ceil(kc / 2), its k-pair r at + 64 r, element (p, j) at 2 (j % 32) + (p - p0) % 2;
// zeros past nc and for an odd kc's last partner. p0 is even and j0 a multiple of 32; dst is
// 64-byte aligned. Threads call write at once, on their own columns. A non-owning reference
// to the callable (it must outlive the call), as detail::ChunkFn.
class PanelWriter {
 public:
  static constexpr int64_t kColumns = 32;  // per panel
  template <typename F>
  PanelWriter(const F& f)  // NOLINT: implicit, as a function_ref
      : object_(&f),
        call_([](const void* o, int64_t p0, int64_t kc, int64_t j0, int64_t nc, uint16_t* dst) {
          (*static_cast<const F*>(o))(p0, kc, j0, nc, dst);
        }) {}
  void operator()(int64_t p0, int64_t kc, int64_t j0, int64_t nc, uint16_t* dst) const {
    call_(object_, p0, kc, j0, nc, dst);
  }

 private:
  const void* object_;
  void (*call_)(const void*, int64_t, int64_t, int64_t, int64_t, uint16_t*);
};

// c (float32) = alpha * a (m, k) @ b (k, n) + beta * c, b given by its panels: the bfloat16
// kernel's product without a b in memory. Only where bf16gemm_available().
void bf16gemm_panels(int64_t m, int64_t n, int64_t k, float alpha, MatrixRef<BFloat16> a,
                     const PanelWriter& b, float beta, float* c, int64_t ldc);

// A bfloat16 c stored as the kernel leaves each tile (a convolution's output, NCHW): element
// (i, j) at data + (j / run) * run_stride + i * ldc + j % run, runs of `run` columns (a
// multiple of 16) side by side, run_stride apart; bias[i] (if any) added and, with relu,
// max(0, x) taken (NaN kept) before the one rounding.
struct PanelOutput {
  BFloat16* data;
  int64_t ldc, run, run_stride;
  const float* bias = nullptr;
  bool relu = false;
};
// The deepest k whose float32 sums round once into a PanelOutput (one cache block of k).
inline constexpr int64_t kPanelOutputDepth = 768;

// c = a (m, k) @ b (k, n) [+ bias, relu] into a bfloat16 PanelOutput, k <= kPanelOutputDepth.
void bf16gemm_panels(int64_t m, int64_t n, int64_t k, MatrixRef<BFloat16> a, const PanelWriter& b,
                     const PanelOutput& c);

}  // namespace ember::cpu
