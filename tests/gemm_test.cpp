// The packed float GEMMs (AVX-512: kernels/cpu/sgemm_avx512.h; AVX2: sgemm_avx2.h) and
// cpu::gemm's dispatch to them: against a float64 triple loop written here, over odd shapes
// that leave partial tiles and cross the cache blocks, every storage order of a and b, padded
// leading dimensions, alpha/beta (beta = 0 never reads c), k = 0, and one or two threads.
// Each packed kernel the build has is tested, whichever one cpu::gemm picks.
#include <ember/ember.h>
#include <ember/kernels/cpu/gemm.h>
#include <ember/kernels/cpu/sgemm_avx2.h>
#include <ember/kernels/cpu/sgemm_avx512.h>

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace ember;

namespace {

// A (rows, cols) float matrix in row- or column-major storage with `pad` unused elements at
// the end of each row (column), filled with uniform values in [-1, 1).
struct Operand {
  int64_t rows, cols, ld;
  bool col_major;
  std::vector<float> data;

  Operand(int64_t r, int64_t c, bool cm, int64_t pad, std::mt19937& gen)
      : rows(r), cols(c), ld((cm ? r : c) + pad), col_major(cm) {
    data.resize(static_cast<size_t>(std::max<int64_t>(1, ld * (cm ? c : r))));
    // 24 random bits per value, on float's grid in [-1, 1) (std::uniform_real_distribution
    // takes a long-double logarithm per value, slow in the sanitizer build).
    for (float& x : data) x = static_cast<float>(gen() >> 8) * (2.0f / 16777216.0f) - 1.0f;
  }
  double at(int64_t i, int64_t j) const { return data[col_major ? i + j * ld : i * ld + j]; }
  cpu::MatrixRef<float> ref() const { return {data.data(), ld, col_major}; }
};

// One product checked against float64: c (m, n, ldc = n + 3) starts as `c0`, then
// c = alpha * a @ b + beta * c through `gemm`. The columns past n must stay untouched.
// Bound: values in [-1, 1] make each product term at most 1 in size; float32 rounding
// (u = 6e-8) in a k-term sum grows like a random walk, about k * u in the worst realistic
// case for blocked sums, so 1e-5 * k leaves a margin of 150x.
template <typename Gemm>
void check_product(const Gemm& gemm, int64_t m, int64_t n, int64_t k, bool a_cm, bool b_cm,
                   int64_t pad, float alpha, float beta, float c0, std::mt19937& gen) {
  const Operand a(m, k, a_cm, pad, gen), b(k, n, b_cm, pad, gen);
  const int64_t ldc = n + 3;
  constexpr float kSentinel = 12345.0f;
  std::vector<float> c(static_cast<size_t>(m * ldc), kSentinel);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = c0;
  gemm(m, n, k, alpha, a.ref(), b.ref(), beta, c.data(), ldc);
  const double tol = 1e-5 * (std::abs(alpha) * std::max<int64_t>(k, 1) + 1.0);
  // The float64 product, row by row (the sanitizer build runs these loops too): b dense in
  // float64 first, then each row of c as the sum over p of a(i, p) times row p of b.
  std::vector<double> b64(static_cast<size_t>(k * n)), row(static_cast<size_t>(n));
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < n; ++j) b64[p * n + j] = b.at(p, j);
  int64_t bad = 0;
  for (int64_t i = 0; i < m; ++i) {
    std::fill(row.begin(), row.end(), 0.0);
    double* r = row.data();
    for (int64_t p = 0; p < k; ++p) {
      const double aip = a.at(i, p);
      const double* bp = b64.data() + p * n;
      for (int64_t j = 0; j < n; ++j) r[j] += aip * bp[j];
    }
    for (int64_t j = 0; j < n; ++j) {
      const double expected = alpha * row[j] + (beta == 0.0f ? 0.0 : double(beta) * c0);
      const double got = c[i * ldc + j];
      if (!(std::abs(got - expected) <= tol)) {
        if (bad++ == 0) {
          INFO(m << "x" << n << "x" << k << " a_col_major " << a_cm << " b_col_major " << b_cm
                  << " pad " << pad << ": c(" << i << ", " << j << ") = " << got << ", expected "
                  << expected);
          CHECK(std::abs(got - expected) <= tol);
        }
      }
    }
    for (int64_t j = n; j < ldc; ++j) REQUIRE(c[i * ldc + j] == kSentinel);
  }
  REQUIRE(bad == 0);
}

// Every storage order of a and b, with and without padded leading dimensions.
template <typename Gemm>
void check_all_layouts(const Gemm& gemm, int64_t m, int64_t n, int64_t k, float alpha,
                       float beta, float c0, std::mt19937& gen) {
  for (bool a_cm : {false, true})
    for (bool b_cm : {false, true})
      for (int64_t pad : {0, 5})
        check_product(gemm, m, n, k, a_cm, b_cm, pad, alpha, beta, c0, gen);
}

// Shapes with partial tiles in m (14-row tiles for AVX-512, 6 for AVX2) and n (32 and 16
// columns), k past one k block (384 and 256 deep), m past a row block (280 and 168 rows) and n
// past a 2048-column block.
const std::vector<std::array<int64_t, 3>> kShapes = {
    {1, 1, 1},    {2, 3, 4},     {14, 32, 16},   {15, 33, 17},   {17, 33, 65},
    {13, 31, 193}, {127, 129, 131}, {29, 16, 400}, {3, 100, 7}, {430, 40, 20},
    {5, 2100, 3}, {64, 48, 385}, {7, 17, 257}, {170, 20, 10}};

using GemmFn = void (*)(int64_t, int64_t, int64_t, float, cpu::MatrixRef<float>,
                        cpu::MatrixRef<float>, float, float*, int64_t);

// A packed kernel, whether this build has it, and the words of its refusal when it does not.
struct PackedKernel {
  const char* name;
  bool (*available)();
  GemmFn run;
  const char* missing;
};
const PackedKernel kPackedKernels[] = {
    {"sgemm_avx512", cpu::sgemm_avx512_available, cpu::sgemm_avx512, "no AVX-512 float GEMM"},
    {"sgemm_avx2", cpu::sgemm_avx2_available, cpu::sgemm_avx2, "no AVX2 float GEMM"}};

// cpu::gemm<float> as a callable for check_all_layouts.
void cpu_gemm(int64_t m, int64_t n, int64_t k, float alpha, cpu::MatrixRef<float> a,
              cpu::MatrixRef<float> b, float beta, float* c, int64_t ldc) {
  cpu::gemm<float>(m, n, k, alpha, a, b, beta, c, ldc);
}

}  // namespace

TEST_CASE("the packed kernels equal a float64 triple loop for odd shapes and every layout",
          "[gemm]") {
  for (const PackedKernel& kernel : kPackedKernels) {
    DYNAMIC_SECTION(kernel.name) {
      if (!kernel.available()) {  // refused where the build lacks it (cpu::gemm never calls it)
        float x = 1.0f;
        REQUIRE_THROWS_WITH(kernel.run(1, 1, 1, 1.0f, {&x, 1, false}, {&x, 1, false}, 0.0f, &x, 1),
                            Catch::Contains(kernel.missing));
        continue;
      }
      std::mt19937 gen(1);
      set_num_threads(2);
      for (auto [m, n, k] : kShapes) check_all_layouts(kernel.run, m, n, k, 1.0f, 0.0f, 0.0f, gen);
    }
  }
}

TEST_CASE("the packed kernels apply alpha and beta, and beta = 0 never reads c", "[gemm]") {
  for (const PackedKernel& kernel : kPackedKernels) {
    if (!kernel.available()) continue;
    DYNAMIC_SECTION(kernel.name) {
      std::mt19937 gen(2);
      set_num_threads(2);
      const float nan = std::numeric_limits<float>::quiet_NaN();
      for (auto [m, n, k] : {std::array<int64_t, 3>{17, 33, 65}, {127, 129, 300}}) {
        check_all_layouts(kernel.run, m, n, k, 0.5f, -2.0f, 0.75f, gen);
        check_all_layouts(kernel.run, m, n, k, -1.5f, 1.0f, 0.25f, gen);
        check_all_layouts(kernel.run, m, n, k, 2.0f, 0.0f, nan, gen);  // c full of NaN: ignored
      }
    }
  }
}

TEST_CASE("the packed kernels with k = 0 give beta * c, or zeros over NaN when beta = 0",
          "[gemm]") {
  for (const PackedKernel& kernel : kPackedKernels) {
    if (!kernel.available()) continue;
    DYNAMIC_SECTION(kernel.name) {
      std::mt19937 gen(3);
      check_all_layouts(kernel.run, 5, 40, 0, 1.0f, 0.0f, std::numeric_limits<float>::quiet_NaN(),
                        gen);
      check_all_layouts(kernel.run, 5, 40, 0, 1.0f, 3.0f, 2.0f, gen);
    }
  }
}

TEST_CASE("the packed kernels on large products: both threads, row and column splits",
          "[gemm]") {
  for (const PackedKernel& kernel : kPackedKernels) {
    if (!kernel.available()) continue;
    DYNAMIC_SECTION(kernel.name) {
      std::mt19937 gen(4);
      set_num_threads(2);
      // Tall (split by rows), wide (split by columns), square with partial tiles and k blocks.
      for (auto [m, n, k] : {std::array<int64_t, 3>{600, 70, 90}, {30, 700, 90}, {301, 259, 401}})
        for (bool a_cm : {false, true})
          for (bool b_cm : {false, true})
            check_product(kernel.run, m, n, k, a_cm, b_cm, 3, 1.0f, 0.5f, 1.0f, gen);
    }
  }
}

TEST_CASE("the packed kernels give the same bits on one thread, two, and inside a parallel "
          "region",
          "[gemm]") {
  for (const PackedKernel& kernel : kPackedKernels) {
    if (!kernel.available()) continue;
    DYNAMIC_SECTION(kernel.name) {
      std::mt19937 gen(5);
      const int64_t m = 301, n = 259, k = 401;
      const Operand a(m, k, false, 0, gen), b(k, n, true, 0, gen);
      auto run = [&](int threads, bool nested) {
        set_num_threads(threads);
        std::vector<float> c(static_cast<size_t>(m * n));
        if (nested) {
          parallel_for(0, 2, 1, [&](int64_t begin, int64_t) {
            if (begin == 0) kernel.run(m, n, k, 1.0f, a.ref(), b.ref(), 0.0f, c.data(), n);
          });
        } else {
          kernel.run(m, n, k, 1.0f, a.ref(), b.ref(), 0.0f, c.data(), n);
        }
        return c;
      };
      const std::vector<float> one = run(1, false), two = run(2, false), nested = run(2, true);
      set_num_threads(2);
      REQUIRE(one == two);
      REQUIRE(one == nested);
    }
  }
}

TEST_CASE("cpu::gemm equals a float64 triple loop for float on both sides of the kernel switch",
          "[gemm]") {
  std::mt19937 gen(6);
  set_num_threads(2);
  // Tiny (Eigen), thin (Eigen) and large (a packed kernel when the build has AVX-512 or AVX2).
  for (auto [m, n, k] : {std::array<int64_t, 3>{3, 5, 7}, {4, 300, 50}, {150, 140, 130}})
    check_all_layouts(cpu_gemm, m, n, k, 1.5f, 0.5f, 1.0f, gen);
  REQUIRE(cpu::sgemm_avx512_pays(150, 140, 130) == cpu::sgemm_avx512_available());
  REQUIRE(cpu::sgemm_avx2_pays(150, 140, 130) == cpu::sgemm_avx2_available());
  REQUIRE_FALSE(cpu::sgemm_avx512_pays(3, 5, 7));
  REQUIRE_FALSE(cpu::sgemm_avx2_pays(3, 5, 7));
  REQUIRE_FALSE(cpu::sgemm_avx2_pays(64, 2048, 10));  // a short reduction: Eigen
}

TEST_CASE("cpu::gemm's Eigen path split over the pool's threads equals a float64 triple loop",
          "[gemm]") {
  std::mt19937 gen(7);
  set_num_threads(2);
  // 13 columns and 21 rows: too few for any packed kernel either way round (and one column
  // too many for the narrow one), and past 4 MFLOP, so c's rows are split in two; an odd row
  // count leaves the halves unequal.
  const int64_t m = 21, n = 13, k = 20000;
  REQUIRE_FALSE(cpu::sgemm_avx512_pays(m, n, k));
  REQUIRE_FALSE(cpu::sgemm_avx512_pays_transposed(m, n, k));
  REQUIRE_FALSE(cpu::sgemm_avx2_pays(m, n, k));
  check_all_layouts(cpu_gemm, m, n, k, 1.5f, 0.5f, 1.0f, gen);
  check_all_layouts(cpu_gemm, m, n, k, 1.0f, 0.0f, std::nanf(""), gen);
}

TEST_CASE("cpu::gemm computes products of 10-31 columns as c^T = b^T a^T and equals a float64 "
          "triple loop",
          "[gemm]") {
  std::mt19937 gen(8);
  set_num_threads(2);
  // A first conv layer's weight gradient (32 x 27, a long reduction), an odd one, 20
  // columns with 301 rows (one thread's rows and the other's), and a Linear layer's weight
  // gradient for 10 outputs (x^T @ gy, 130 inputs: 16-row blocks of c and a partial one),
  // and 4100 rows: two passes of the transposed product's buffer (4096 rows each).
  // The AVX2 kernel takes none of them transposed: its 16-column tiles take the first as it
  // is, Eigen the others.
  for (auto [m, n, k] :
       {std::array<int64_t, 3>{32, 27, 3000}, {50, 23, 700}, {301, 20, 800}, {130, 10, 64},
        {4100, 10, 8}}) {
    REQUIRE(cpu::sgemm_avx512_pays_transposed(m, n, k) == cpu::sgemm_avx512_available());
    REQUIRE(cpu::sgemm_avx2_pays(m, n, k) == (n == 27 && cpu::sgemm_avx2_available()));
    check_all_layouts(cpu_gemm, m, n, k, 1.5f, 0.5f, 1.0f, gen);
    check_all_layouts(cpu_gemm, m, n, k, -1.0f, 0.0f, std::nanf(""), gen);  // c not read
  }
}

TEST_CASE("sgemm_avx512_narrow equals a float64 triple loop for few columns", "[gemm]") {
  float x = 1.0f;
  const cpu::MatrixRef<float> rows{&x, 64, false}, cols{&x, 64, true};
  if (!cpu::sgemm_avx512_available()) {
    REQUIRE_FALSE(cpu::sgemm_avx512_narrow_applies(4, 10, 64, rows, cols));
    REQUIRE_THROWS_WITH(cpu::sgemm_avx512_narrow(4, 10, 64, 1.0f, rows, cols, 0.0f, &x, 10),
                        Catch::Contains("no AVX-512 float GEMM"));
    return;
  }
  // What it takes: up to 12 columns, k >= 64, a read along rows and b along columns.
  CHECK(cpu::sgemm_avx512_narrow_applies(64, 10, 2048, rows, cols));
  CHECK_FALSE(cpu::sgemm_avx512_narrow_applies(64, 13, 2048, rows, cols));
  CHECK_FALSE(cpu::sgemm_avx512_narrow_applies(64, 10, 63, rows, cols));
  CHECK_FALSE(cpu::sgemm_avx512_narrow_applies(64, 10, 2048, cols, cols));
  CHECK_FALSE(cpu::sgemm_avx512_narrow_applies(64, 10, 2048, rows, rows));
  REQUIRE_THROWS_WITH(cpu::sgemm_avx512_narrow(4, 13, 64, 1.0f, rows, cols, 0.0f, &x, 13),
                      Catch::Contains("narrow"));

  std::mt19937 gen(7);
  set_num_threads(2);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto narrow = [](int64_t m, int64_t n, int64_t k, float alpha, cpu::MatrixRef<float> a,
                   cpu::MatrixRef<float> b, float beta, float* c, int64_t ldc) {
    cpu::sgemm_avx512_narrow(m, n, k, alpha, a, b, beta, c, ldc);
  };
  // Odd row counts (a lone last row), every column count, k with and without a partial
  // 16-lane step, and one large enough for both threads.
  for (int64_t m : {1, 2, 3, 64})
    for (int64_t n = 1; n <= cpu::kNarrowMaxColumns; ++n)
      for (int64_t k : {64, 100, 2048})
        for (int64_t pad : {0, 5}) {
          check_product(narrow, m, n, k, false, true, pad, 1.0f, 0.0f, nan, gen);
          check_product(narrow, m, n, k, false, true, pad, -0.5f, 2.0f, 0.75f, gen);
        }
  // cpu::gemm sends the sample model's classifier (64 x 2048 @ 2048 x 10) here; other
  // layouts of the same shape go elsewhere and agree too.
  check_all_layouts(cpu_gemm, 64, 10, 2048, 1.0f, 1.0f, 0.5f, gen);
}
