// cuBLAS and cuSOLVER from several host threads at once: each thread runs
// matmuls, LU solves and Cholesky factorizations on its own float64 tensors
// (other sizes per thread, so the handles see interleaved shapes), and every
// result equals the CPU's within 1e-10 of max(1, |value|). The handles are
// shared per device (docs/gpu.md); this is where a race on a handle's
// settings or workspace would show.
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "cuda_test_helpers.h"

using namespace ember;
using namespace cuda_test;

namespace {

// One thread's operands (CPU) and the CPU's answers.
struct Work {
  Tensor a, b, spd, rhs;
  Tensor want_mm, want_solve, want_chol;
};

Work make_work(int64_t i) {
  Work w;
  w.a = random_nonzero({33 + i, 47}, kDouble);
  w.b = random_nonzero({47, 29 + 2 * i}, kDouble);
  const int64_t n = 17 + 3 * i;
  const Tensor m = randn({n, n}, kDouble);
  w.spd = matmul(m, m.t()) + n * eye(n, kDouble);
  w.rhs = random_nonzero({n, 3}, kDouble);
  w.want_mm = matmul(w.a, w.b);
  w.want_solve = linalg_solve(w.spd, w.rhs);
  w.want_chol = linalg_cholesky(w.spd);
  return w;
}

// The device's results of every step of one thread.
struct Got {
  std::vector<Tensor> mm, solve, chol;
  std::string error;
};

}  // namespace

TEST_CASE("cuda cuBLAS and cuSOLVER called from 4 threads at once match the CPU",
          "[cuda][cuda_blas]") {
  manual_seed(101);
  constexpr int kThreads = 4, kSteps = 25;
  // Made here: the generator is shared state.
  std::vector<Work> work;
  for (int i = 0; i < kThreads; ++i) work.push_back(make_work(i));
  std::vector<Got> got(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      try {  // Catch2's assertions are not thread-safe: results are checked after join
        const Work& w = work[i];
        const Tensor a = w.a.to(kGpu), b = w.b.to(kGpu), s = w.spd.to(kGpu), r = w.rhs.to(kGpu);
        for (int step = 0; step < kSteps; ++step) {
          got[i].mm.push_back(matmul(a, b));
          got[i].solve.push_back(linalg_solve(s, r));
          got[i].chol.push_back(linalg_cholesky(s));
        }
      } catch (const std::exception& e) {
        got[i].error = e.what();
      }
    });
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < kThreads; ++i) {
    INFO("thread " << i);
    REQUIRE(got[i].error.empty());
    REQUIRE(got[i].mm.size() == static_cast<size_t>(kSteps));
    for (int step = 0; step < kSteps; ++step) {
      INFO("step " << step);
      check_same(got[i].mm[step], work[i].want_mm, 1e-10);
      check_same(got[i].solve[step], work[i].want_solve, 1e-10);
      check_same(got[i].chol[step], work[i].want_chol, 1e-10);
    }
  }
}
