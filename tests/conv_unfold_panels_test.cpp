// The bfloat16 forward's unfold into the GEMM's b panels (Note [Unfold into panels],
// kernels/cpu/conv_unfold.h) against the definition: every lane of every panel row the
// layout of PanelWriter (bf16gemm_avx512.h) gives to col (C*R*S, nb*OH*OW) element
// (c*R*S + r*S + s, img*OH*OW + oh*OW + ow) = x[img][c][oh*sh + r*dh - ph][ow*sw + s*dw - pw]
// (0 in the padding), zeros past the block's columns and for an odd block's last partner.
// The paired im2col (the same windows, two rows of col at a time) against the same definition.
// Then the GEMM on such panels, and on an operand in runs, against the GEMM on one in memory.
#include "test_helpers.h"

#include <ember/kernels/cpu/bf16gemm_avx512.h>
#include <ember/kernels/cpu/conv_unfold.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

using namespace ember;

namespace {

struct UnfoldCase {
  int64_t n, c, h, w, r, s, stride, pad, dilation;
};

ConvParams params_of(const UnfoldCase& u) {
  ConvParams p;
  p.n = u.n, p.c = u.c, p.h = u.h, p.w = u.w, p.k = 4, p.r = u.r, p.s = u.s;
  p.stride = {u.stride, u.stride};
  p.padding = {u.pad, u.pad};
  p.dilation = {u.dilation, u.dilation};
  p.dtype = kBFloat16;
  return p;
}

// col's element (row, column) by the definition, as raw bits.
uint16_t col_bits(const UnfoldCase& u, const ConvParams& p, const std::vector<BFloat16>& x,
                  int64_t row, int64_t column) {
  const int64_t ohw = p.out_h() * p.out_w(), img = column / ohw;
  const int64_t oh = column % ohw / p.out_w(), ow = column % p.out_w();
  const int64_t c = row / (u.r * u.s), r = row % (u.r * u.s) / u.s, s = row % u.s;
  const int64_t ih = oh * u.stride + r * u.dilation - u.pad;
  const int64_t iw = ow * u.stride + s * u.dilation - u.pad;
  if (ih < 0 || ih >= u.h || iw < 0 || iw >= u.w) return 0;
  return x[static_cast<size_t>(((img * u.c + c) * u.h + ih) * u.w + iw)].x;
}

// The panels of rows [p0, p0 + kc) x columns [j0, j0 + nc) lane by lane.
void check_block(const UnfoldCase& u, int64_t p0, int64_t kc, int64_t j0, int64_t nc) {
  const ConvParams p = params_of(u);
  const cpu::conv_detail::ConvShape g(p);
  INFO("C " << u.c << ", " << u.h << "x" << u.w << ", " << u.r << "x" << u.s << " stride "
            << u.stride << " pad " << u.pad << " dilation " << u.dilation << ", rows " << p0
            << " + " << kc << ", columns " << j0 << " + " << nc);
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<BFloat16> x(static_cast<size_t>(u.n * u.c * u.h * u.w));
  for (BFloat16& v : x) v = BFloat16(dist(gen));
  const cpu::conv_detail::PanelUnfold unfold(g);
  REQUIRE(unfold);
  const int64_t kc2 = (kc + 1) / 2, panels = (nc + 31) / 32;
  // 64-byte aligned, as the GEMM's packing buffer; 0xFFFF: every lane must be written
  const size_t lanes = static_cast<size_t>(panels * 64 * kc2);
  std::unique_ptr<uint16_t, decltype(&std::free)> buffer(
      static_cast<uint16_t*>(std::aligned_alloc(64, lanes * sizeof(uint16_t))), &std::free);
  uint16_t* dst = buffer.get();
  std::fill(dst, dst + lanes, uint16_t(0xFFFF));
  unfold.write(x.data(), p0, kc, j0, nc, dst);
  size_t wrong = 0;
  for (int64_t q = 0; q < panels; ++q)
    for (int64_t pr = 0; pr < kc2; ++pr)
      for (int64_t lane = 0; lane < 64; ++lane) {
        const int64_t row = p0 + 2 * pr + lane % 2, column = j0 + 32 * q + lane / 2;
        const bool exists = row < p0 + kc && column < j0 + nc;
        const uint16_t want = exists ? col_bits(u, p, x, row, column) : 0;
        wrong += dst[(q * kc2 + pr) * 64 + lane] != want;
      }
  REQUIRE(wrong == 0);
}

}  // namespace

TEST_CASE("conv unfold into panels: every lane is col's element or a zero", "[conv][dtype]") {
  if (!cpu::conv_detail::PanelUnfold::built()) {
    WARN("skipped: built without AVX-512 BW");
    return;
  }
  // The sample model's first layer: 27 rows (the last pair has no partner), pairs across
  // planes, 16 x 16 outputs.
  const UnfoldCase first{2, 3, 32, 32, 3, 3, 2, 1, 1};
  check_block(first, 0, 27, 0, 512);
  check_block(first, 0, 27, 32, 96);   // a later column block, its last panel half empty
  check_block(first, 0, 27, 0, 16);
  // 4 x 4 outputs: a block of 16 is one image; 3 images leave the last panel half empty.
  check_block({3, 8, 8, 8, 3, 3, 2, 1, 1}, 0, 72, 0, 48);
  // Rows of 64: a tap pair spans two input rows, beyond one window (one window per tap).
  check_block({1, 2, 64, 64, 3, 3, 2, 1, 1}, 0, 18, 0, 1024);
  // Stride 1, dilation 2, and a 1x1 convolution (every pair crosses planes).
  check_block({2, 3, 16, 16, 3, 3, 1, 2, 2}, 0, 27, 0, 512);
  check_block({2, 5, 8, 8, 1, 1, 1, 0, 1}, 0, 5, 0, 128);
  // A second k block (from row 768 of 864) and one of odd depth inside the reduction.
  const UnfoldCase deep{1, 96, 8, 8, 3, 3, 1, 1, 1};
  check_block(deep, 768, 96, 0, 64);
  check_block(deep, 100, 31, 32, 32);
}

TEST_CASE("im2col on bfloat16 by pair windows: every element of col by its definition",
          "[conv][dtype]") {
  if (!cpu::conv_detail::PanelUnfold::built()) {
    WARN("skipped: built without AVX-512 BW");
    return;
  }
  // Odd row counts (the last row alone), pairs across planes, one window per tap (rows of
  // 64), stride 1 with dilation, 1x1.
  for (const UnfoldCase& u : {UnfoldCase{2, 3, 32, 32, 3, 3, 2, 1, 1},
                              UnfoldCase{3, 5, 8, 8, 3, 3, 2, 1, 1},
                              UnfoldCase{1, 2, 64, 64, 3, 3, 2, 1, 1},
                              UnfoldCase{2, 3, 16, 16, 3, 3, 1, 2, 2},
                              UnfoldCase{2, 5, 8, 8, 1, 1, 1, 0, 1}}) {
    const ConvParams p = params_of(u);
    const cpu::conv_detail::ConvShape g(p);
    INFO("C " << u.c << ", " << u.h << "x" << u.w << ", " << u.r << "x" << u.s << " stride "
              << u.stride << " dilation " << u.dilation);
    std::mt19937 gen(5);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<BFloat16> x(static_cast<size_t>(u.n * u.c * u.h * u.w));
    for (BFloat16& v : x) v = BFloat16(dist(gen));
    const int64_t rows = u.c * u.r * u.s, cols = u.n * g.ohw;
    // One guard row past col: the last row alone must not write beyond its own.
    std::vector<BFloat16> col(static_cast<size_t>((rows + 1) * cols), BFloat16(7.0f));
    REQUIRE(cpu::conv_detail::im2col_pairs(g, x.data(), u.n, col.data()));
    size_t wrong = 0;
    for (int64_t row = 0; row <= rows; ++row)
      for (int64_t j = 0; j < cols; ++j) {
        const uint16_t want = row < rows ? col_bits(u, p, x, row, j) : BFloat16(7.0f).x;
        wrong += col[static_cast<size_t>(row * cols + j)].x != want;
      }
    REQUIRE(wrong == 0);
  }
}

TEST_CASE("conv unfold into panels: does not apply where its blocks or windows do not fit",
          "[conv][dtype]") {
  if (!cpu::conv_detail::PanelUnfold::built()) {
    WARN("skipped: built without AVX-512 BW");
    return;
  }
  const auto applies = [](const UnfoldCase& u, int64_t groups) {
    ConvParams p = params_of(u);
    p.c *= groups, p.k *= groups, p.groups = groups;
    return static_cast<bool>(cpu::conv_detail::PanelUnfold(cpu::conv_detail::ConvShape(p)));
  };
  CHECK(applies({2, 3, 32, 32, 3, 3, 2, 1, 1}, 1));
  CHECK_FALSE(applies({2, 3, 32, 32, 3, 3, 2, 1, 1}, 2));  // groups
  CHECK_FALSE(applies({2, 3, 10, 10, 3, 3, 2, 1, 1}, 1));  // 5 x 5 outputs
  CHECK_FALSE(applies({1, 1, 128, 128, 3, 3, 8, 1, 1}, 1));  // stride 8: a tap spans > 64
  CHECK_FALSE(applies({1, 1, 128, 128, 3, 3, 1, 1, 1}, 1));  // 128 x 128 outputs: table cap
}

TEST_CASE("bf16gemm_panels: the product of written panels is the product of b in memory",
          "[gemm][dtype]") {
  if (!cpu::bf16gemm_available()) {
    WARN("skipped: no AVX-512 BF16 kernel (the build's or the CPU's)");
    return;
  }
  const int threads_before = get_num_threads();
  for (const int threads : {1, 2}) {
    set_num_threads(threads);
    // k 1601: three k blocks, the last of odd depth; n 1000: several column blocks and panels.
    const int64_t m = 37, n = 1000, k = 1601;
    INFO(threads << " threads");
    std::mt19937 gen(11);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<BFloat16> a(static_cast<size_t>(m * k)), b(static_cast<size_t>(k * n));
    for (BFloat16& v : a) v = BFloat16(dist(gen));
    for (BFloat16& v : b) v = BFloat16(dist(gen));
    const auto write = [&](int64_t p0, int64_t kc, int64_t j0, int64_t nc, uint16_t* dst) {
      const int64_t kc2 = (kc + 1) / 2;
      for (int64_t q = 0; q * 32 < nc; ++q)
        for (int64_t pr = 0; pr < kc2; ++pr)
          for (int64_t lane = 0; lane < 64; ++lane) {
            const int64_t p = p0 + 2 * pr + lane % 2, j = j0 + 32 * q + lane / 2;
            const bool exists = p < p0 + kc && j < j0 + nc;
            dst[(q * kc2 + pr) * 64 + lane] = exists ? b[static_cast<size_t>(p * n + j)].x : 0;
          }
    };
    std::vector<float> from_panels(static_cast<size_t>(m * n), 3.0f), from_memory = from_panels;
    cpu::bf16gemm_panels(m, n, k, 0.5f, {a.data(), k, false}, write, 2.0f, from_panels.data(), n);
    cpu::bf16gemm(m, n, k, 0.5f, {a.data(), k, false}, {b.data(), n, false}, 2.0f,
                  from_memory.data(), n);
    REQUIRE(from_panels == from_memory);
  }
  set_num_threads(threads_before);
}

TEST_CASE("bf16gemm with an operand in runs: the product of the same matrix laid out in one piece",
          "[gemm][dtype]") {
  if (!cpu::bf16gemm_available()) {
    WARN("skipped: no AVX-512 BF16 kernel (the build's or the CPU's)");
    return;
  }
  // Runs of 80 columns, 11 of them, 96 elements apart per row (the matrix's rows interleave
  // with the runs): the first k block (768) ends inside a run; 37 and 29 rows leave partial
  // tiles; k = 37 leaves an odd k-pair.
  constexpr int64_t kRun = 80, kRuns = 11, kRowStride = 96;
  std::mt19937 gen(3);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  const auto random = [&](int64_t count) {
    std::vector<BFloat16> v(static_cast<size_t>(count));
    for (BFloat16& x : v) x = BFloat16(dist(gen));
    return v;
  };
  // rows x (kRuns * kRun) in runs: (run, row, column in run) -> and its one-piece copy.
  const auto in_runs = [&](int64_t rows, std::vector<BFloat16>& whole) {
    std::vector<BFloat16> runs = random(kRuns * rows * kRowStride);
    whole.resize(static_cast<size_t>(rows * kRuns * kRun));
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < kRuns * kRun; ++j)
        whole[static_cast<size_t>(i * kRuns * kRun + j)] =
            runs[static_cast<size_t>(j / kRun * rows * kRowStride + i * kRowStride + j % kRun)];
    return runs;
  };
  const int threads_before = get_num_threads();
  for (const int threads : {1, 2}) {
    set_num_threads(threads);
    INFO(threads << " threads");
    {
      const int64_t m = 37, n = 50, k = kRuns * kRun;
      std::vector<BFloat16> whole;
      const std::vector<BFloat16> a = in_runs(m, whole), b = random(k * n);
      std::vector<float> got(static_cast<size_t>(m * n), 1.0f), want = got;
      cpu::bf16gemm_a_runs(m, n, k, 0.5f, {a.data(), kRowStride, kRun, m * kRowStride},
                           {b.data(), n, false}, 2.0f, got.data(), n);
      cpu::bf16gemm(m, n, k, 0.5f, {whole.data(), k, false}, {b.data(), n, false}, 2.0f,
                    want.data(), n);
      REQUIRE(got == want);
    }
    {
      const int64_t m = 29, n = kRuns * kRun, k = 37;
      std::vector<BFloat16> whole;
      const std::vector<BFloat16> b = in_runs(k, whole), a = random(m * k);
      std::vector<float> got(static_cast<size_t>(m * n), 1.0f), want = got;
      cpu::bf16gemm_b_runs(m, n, k, 1.0f, {a.data(), k, false},
                           {b.data(), kRowStride, kRun, k * kRowStride}, 0.0f, got.data(), n);
      cpu::bf16gemm(m, n, k, 1.0f, {a.data(), k, false}, {whole.data(), n, false}, 0.0f,
                    want.data(), n);
      REQUIRE(got == want);
    }
  }
  set_num_threads(threads_before);
}
