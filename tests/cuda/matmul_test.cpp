// The matrix products on CUDA (cuBLAS, kernels/cuda/blas.cu): mm, bmm, addmm
// and the ops built on them (matmul, linear, dot, outer), forward and backward,
// against the same computation in float64 on the CPU. Operands: sizes 0, 1,
// 31, 1025; transposed, sliced (in place) and strided (copied) views; expanded
// batches. The views are taken on each device from the same leaves, so the
// gradients of the leaves are compared too.
//
// Tolerance, per element, from the rigorous bound on a sum of K products in
// precision u, |computed - exact| <= gamma_K * M with gamma_K = K u / (1 - K u)
// and M the same computation on |inputs| (for these multilinear ops, the sum of
// |terms|; computed here on the CPU), whatever order or blocking cuBLAS sums in.
// The inputs are float32 values, so the float64 CPU reference is exact to
// ~1e-16 M. K: the longest sum behind any output or gradient element, stated
// per case (the engine's sums over broadcast dims included), plus 2 for alpha
// and beta. Bounds used (twice the rigorous one, for margin):
//   float32, TF32 off: 2 gamma_K(2^-24)  (~1.2e-4 M for K = 1025)
//   float32, TF32 on:  2 (2^-9 + gamma_K(2^-24)): each input loses all but 10
//                      mantissa bits (truncated: 2^-10 each, 2^-9 per product)
//   float64:           2 (gamma_K(2^-53) of cuBLAS + the same of the CPU's reference)
// M = 0 (an empty sum) demands an exact 0.
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

using namespace ember;

namespace {

const Device kGpu(kCUDA);

using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

struct Case {
  std::string name;
  std::vector<std::vector<int64_t>> leaves;  // shapes of the leaf tensors
  Fn fn;                                     // views + op: the same code on both devices
  int64_t terms;                             // K: the longest sum in forward or backward
};

// Random non-zero float32 values (|x| >= 0.1, random sign) on the CPU.
Tensor random_nonzero(IntArrayRef shape) {
  const Tensor r = randn(shape, kDouble);
  const Tensor sign = where(randn(shape, kDouble) > 0, ones(shape, kDouble), -1.0);
  return ((r.abs() + 0.1) * sign).to(kFloat);
}

double gamma(int64_t k, double u) { return double(k) * u / (1 - double(k) * u); }

double tolerance(const Case& c, ScalarType dtype, bool tf32) {
  const int64_t k = c.terms + 2;
  if (dtype == kDouble) return 2 * 2 * gamma(k, std::ldexp(1.0, -53));
  const double g = gamma(k, std::ldexp(1.0, -24));
  return tf32 ? 2 * (std::ldexp(1.0, -9) + g) : 2 * g;
}

// got (CUDA) vs want (CPU float64): |got - want| <= tol * magnitude elementwise.
void check_close(const std::string& what, const Tensor& got, const Tensor& want,
                 const Tensor& magnitude, ScalarType dtype, double tol) {
  INFO(what);
  REQUIRE(got.defined());
  REQUIRE(got.is_cuda());
  REQUIRE(got.scalar_type() == dtype);
  REQUIRE(got.sizes() == want.sizes());
  const Tensor g = got.cpu().to(kDouble).contiguous(), w = want.contiguous(),
               m = magnitude.contiguous();
  const double *pg = g.data_ptr<double>(), *pw = w.data_ptr<double>(), *pm = m.data_ptr<double>();
  for (int64_t i = 0; i < g.numel(); ++i) {
    if (std::abs(pg[i] - pw[i]) <= tol * pm[i]) continue;
    INFO("element " << i << ": cuda " << pg[i] << ", cpu " << pw[i] << ", bound " << tol * pm[i]);
    REQUIRE(std::abs(pg[i] - pw[i]) <= tol * pm[i]);
  }
}

// Runs c.fn forward and backward (upstream gradient random) on CUDA in dtype
// and on the CPU in float64, and compares output and leaf gradients.
void run_case(const Case& c, ScalarType dtype, bool tf32) {
  INFO(c.name << ", " << dtype << (tf32 ? ", TF32 on" : ""));
  std::vector<Tensor> leaves;
  for (const auto& shape : c.leaves) leaves.push_back(random_nonzero(shape));

  // The float64 reference, and the same on |inputs| with |upstream|: the magnitudes.
  auto cpu_run = [&](bool absolute, const Tensor& upstream) {
    std::vector<Tensor> xs;
    for (const Tensor& l : leaves)
      xs.push_back((absolute ? l.abs() : l).to(kDouble).requires_grad_());
    const Tensor out = c.fn(xs);
    if (upstream.defined()) out.backward(absolute ? upstream.abs() : upstream);
    std::vector<Tensor> grads;
    for (const Tensor& x : xs) grads.push_back(x.grad());
    return std::make_pair(out.detach(), grads);
  };
  const Tensor shape_probe = cpu_run(false, Tensor()).first;
  const Tensor upstream = random_nonzero(shape_probe.sizes());
  const auto [want, want_grads] = cpu_run(false, upstream.to(kDouble));
  const auto [magnitude, magnitude_grads] = cpu_run(true, upstream.to(kDouble));

  std::vector<Tensor> xs;
  for (const Tensor& l : leaves) xs.push_back(l.to(kGpu, dtype).requires_grad_());
  const Tensor out = c.fn(xs);
  out.backward(upstream.to(kGpu, dtype));

  const double tol = tolerance(c, dtype, tf32);
  check_close("output", out, want, magnitude, dtype, tol);
  for (size_t i = 0; i < xs.size(); ++i) {
    // An empty leaf may get an empty gradient or none, on either device.
    if (xs[i].numel() == 0 && (!xs[i].grad().defined() || !want_grads[i].defined())) continue;
    check_close("gradient of leaf " + std::to_string(i), xs[i].grad(), want_grads[i],
                magnitude_grads[i], dtype, tol);
  }
}

// TF32 on for a scope, restored after (also when a REQUIRE throws).
struct AllowTf32 {
  explicit AllowTf32(bool on) : before(backends::cuda::allow_tf32()) {
    backends::cuda::set_allow_tf32(on);
  }
  ~AllowTf32() { backends::cuda::set_allow_tf32(before); }
  bool before;
};

void run_all(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    {
      AllowTf32 off(false);
      run_case(c, kFloat, false);
      run_case(c, kDouble, false);
    }
    AllowTf32 on(true);
    run_case(c, kFloat, true);
    run_case(c, kDouble, true);  // float64 ignores the switch: same bound
  }
}

Tensor t2(const Tensor& x) { return x.transpose(-2, -1); }

}  // namespace

TEST_CASE("cuda mm matches the CPU on every size and layout, forward and backward",
          "[cuda][cuda_blas]") {
  manual_seed(21);
  auto mm2 = [](const std::vector<Tensor>& x) { return mm(x[0], x[1]); };
  run_all({
      {"31x1025 @ 1025x33", {{31, 1025}, {1025, 33}}, mm2, 1025},
      {"1x1 @ 1x1", {{1, 1}, {1, 1}}, mm2, 1},
      {"1x31 @ 31x1 (a dot as a GEMM)", {{1, 31}, {31, 1}}, mm2, 31},
      {"31x1 @ 1x33 (k = 1)", {{31, 1}, {1, 33}}, mm2, 33},
      {"k = 0 gives zeros", {{3, 0}, {0, 4}}, mm2, 4},
      {"n = 0 gives an empty result", {{0, 5}, {5, 3}}, mm2, 5},
      {"m = 0 gives an empty result", {{4, 5}, {5, 0}}, mm2, 5},
      {"odd 1025x31 @ 31x1025", {{1025, 31}, {31, 1025}}, mm2, 1025},
      {"a transposed",
       {{1025, 31}, {1025, 7}},
       [](const std::vector<Tensor>& x) { return mm(x[0].t(), x[1]); },
       1025},
      {"b transposed",
       {{31, 64}, {33, 64}},
       [](const std::vector<Tensor>& x) { return mm(x[0], x[1].t()); },
       64},
      {"both transposed",
       {{64, 31}, {33, 64}},
       [](const std::vector<Tensor>& x) { return mm(x[0].t(), x[1].t()); },
       64},
      {"column slice of a and row-strided b (read in place)",
       {{31, 70}, {128, 33}},
       [](const std::vector<Tensor>& x) {
         return mm(x[0].narrow(1, 3, 64), x[1].slice(0, 0, 128, 2));
       },
       64},
      {"sliced a, sliced transposed b (col-major, ld 70)",
       {{40, 70}, {33, 70}},
       [](const std::vector<Tensor>& x) {
         return mm(x[0].narrow(0, 2, 31).narrow(1, 0, 64), x[1].narrow(1, 3, 64).t());
       },
       64},
      {"every other column (copied first)",
       {{31, 128}, {64, 17}},
       [](const std::vector<Tensor>& x) { return mm(x[0].slice(1, 0, 128, 2), x[1]); },
       64},
      {"a single strided column",
       {{31, 9}, {1, 5}},
       [](const std::vector<Tensor>& x) { return mm(x[0].narrow(1, 4, 1), x[1]); },
       31},
  });
}

TEST_CASE("cuda bmm matches the CPU, expanded and transposed batches included",
          "[cuda][cuda_blas]") {
  manual_seed(22);
  auto bmm2 = [](const std::vector<Tensor>& x) { return bmm(x[0], x[1]); };
  run_all({
      {"3 x (31x33 @ 33x17)", {{3, 31, 33}, {3, 33, 17}}, bmm2, 33},
      {"batch 1", {{1, 31, 1025}, {1, 1025, 5}}, bmm2, 1025},
      {"batch 0", {{0, 4, 5}, {0, 5, 6}}, bmm2, 6},
      {"k = 0", {{2, 3, 0}, {2, 0, 4}}, bmm2, 4},
      {"both transposed",
       {{4, 33, 31}, {4, 17, 33}},
       [](const std::vector<Tensor>& x) { return bmm(t2(x[0]), t2(x[1])); },
       33},
      {"expanded a (batch stride 0; its gradient sums the batch)",
       {{1, 31, 33}, {5, 33, 7}},
       [](const std::vector<Tensor>& x) { return bmm(x[0].expand({5, 31, 33}), x[1]); },
       5 * 7},
      {"expanded transposed b",
       {{3, 31, 33}, {1, 17, 33}},
       [](const std::vector<Tensor>& x) { return bmm(x[0], t2(x[1]).expand({3, 33, 17})); },
       3 * 31},
      {"batch slice (every other matrix)",
       {{6, 31, 33}, {3, 33, 17}},
       [](const std::vector<Tensor>& x) { return bmm(x[0].slice(0, 0, 6, 2), x[1]); },
       33},
  });
}

TEST_CASE("cuda addmm matches the CPU with alpha, beta and a broadcast self",
          "[cuda][cuda_blas]") {
  manual_seed(23);
  run_all({
      {"broadcast row bias, alpha 1.5, beta 0.5",
       {{33}, {31, 1025}, {1025, 33}},
       [](const std::vector<Tensor>& x) { return addmm(x[0], x[1], x[2], 0.5, 1.5); },
       1025},
      {"full self, transposed mat1",
       {{31, 33}, {64, 31}, {64, 33}},
       [](const std::vector<Tensor>& x) { return addmm(x[0], x[1].t(), x[2]); },
       64},
      {"column self (31, 1)",
       {{31, 1}, {31, 16}, {16, 5}},
       [](const std::vector<Tensor>& x) { return addmm(x[0], x[1], x[2]); },
       16},
      {"k = 0: beta * self",
       {{4}, {3, 0}, {0, 4}},
       [](const std::vector<Tensor>& x) { return addmm(x[0], x[1], x[2], 0.5, 2.0); },
       4},
      {"1x1",
       {{1}, {1, 1}, {1, 1}},
       [](const std::vector<Tensor>& x) { return addmm(x[0], x[1], x[2]); },
       1},
  });
}

TEST_CASE("cuda matmul, linear, dot and outer match the CPU on their shape rules",
          "[cuda][cuda_blas]") {
  manual_seed(24);
  auto mat = [](const std::vector<Tensor>& x) { return matmul(x[0], x[1]); };
  run_all({
      {"matmul 1-d @ 1-d", {{1025}, {1025}}, mat, 1025},
      {"matmul 1-d @ 2-d", {{31}, {31, 33}}, mat, 33},
      {"matmul 2-d @ 1-d", {{33, 1025}, {1025}}, mat, 1025},
      {"matmul 3-d @ 2-d (batch folded into rows)", {{2, 31, 64}, {64, 17}}, mat, 64},
      {"matmul 3-d @ 1-d", {{2, 31, 16}, {16}}, mat, 2 * 31},
      {"matmul transposed 3-d @ 2-d (batched)",
       {{2, 64, 31}, {64, 17}},
       [](const std::vector<Tensor>& x) { return matmul(t2(x[0]), x[1]); },
       64},
      {"matmul broadcast batches (2, 1) and (3)", {{2, 1, 31, 16}, {3, 16, 7}}, mat, 2 * 31},
      {"matmul empty batch", {{0, 3, 4}, {4, 5}}, mat, 5},
      {"linear 2-d with bias",
       {{31, 1025}, {33, 1025}, {33}},
       [](const std::vector<Tensor>& x) { return linear(x[0], x[1], x[2]); },
       1025},
      {"linear 3-d with bias",
       {{2, 5, 31}, {17, 31}, {17}},
       [](const std::vector<Tensor>& x) { return linear(x[0], x[1], x[2]); },
       31},
      {"linear 1-d without bias",
       {{31}, {17, 31}},
       [](const std::vector<Tensor>& x) { return linear(x[0], x[1]); },
       31},
      {"dot", {{1025}, {1025}}, [](const std::vector<Tensor>& x) { return dot(x[0], x[1]); }, 1025},
      {"dot of strided vectors",
       {{2050}, {3075}},
       [](const std::vector<Tensor>& x) {
         return dot(x[0].slice(0, 0, 2050, 2), x[1].slice(0, 1, 3075, 3));
       },
       1025},
      {"dot of empty vectors",
       {{0}, {0}},
       [](const std::vector<Tensor>& x) { return dot(x[0], x[1]); },
       1},
      {"outer", {{31}, {1025}}, [](const std::vector<Tensor>& x) { return outer(x[0], x[1]); },
       1025},
      {"outer of a sliced vector",
       {{62}, {1}},
       [](const std::vector<Tensor>& x) { return outer(x[0].slice(0, 0, 62, 2), x[1]); },
       31},
  });
}

TEST_CASE("cuda addmm with beta = 0 ignores nan and inf in self", "[cuda][cuda_blas]") {
  const Tensor self = tensor({NAN, INFINITY}).to(kGpu);
  const Tensor a = ones({2, 3}).to(kGpu), b = ones({3, 2}).to(kGpu);
  const Tensor out = addmm(self, a, b, 0, 1).cpu();
  CHECK(out[0][0].item<float>() == 3.0f);
  CHECK(out[1][1].item<float>() == 3.0f);
}

TEST_CASE("cuda matrix products make no host synchronization", "[cuda][cuda_blas]") {
  const Tensor a = randn({64, 32}).to(kGpu).requires_grad_(), b = randn({32, 16}).to(kGpu);
  const Tensor v = randn({32}).to(kGpu);
  cuda::synchronize();
  const uint64_t before = cuda::sync_count();
  Tensor y = mm(a, b) + matmul(a, v).unsqueeze(1);
  Tensor d = dot(v, v);
  (void)d;
  y.backward(ones({64, 16}).to(kGpu));
  CHECK(cuda::sync_count() == before);
}

TEST_CASE("cuda matrix products refuse int64 naming the op, dtype and device",
          "[cuda][cuda_blas]") {
  const Tensor a = ones({2, 3}, kLong).to(kGpu), b = ones({3, 2}, kLong).to(kGpu);
  REQUIRE_THROWS_WITH(mm(a, b), Catch::Contains("mm: int64 is not supported on cuda"));
  REQUIRE_THROWS_WITH(bmm(a.unsqueeze(0), b.unsqueeze(0)),
                      Catch::Contains("bmm: int64 is not supported on cuda"));
  REQUIRE_THROWS_WITH(matmul(a, b), Catch::Contains("matmul: int64 is not supported on cuda"));
  REQUIRE_THROWS_WITH(dot(a[0], a[1]), Catch::Contains("dot: int64 is not supported on cuda"));
  REQUIRE_THROWS_WITH(addmm(ones({2}, kLong).to(kGpu), a, b),
                      Catch::Contains("addmm: int64 is not supported on cuda"));
}

TEST_CASE("cuda matrix products refuse operands on different devices", "[cuda][cuda_blas]") {
  REQUIRE_THROWS_WITH(mm(ones({2, 2}).to(kGpu), ones({2, 2})),
                      Catch::Contains("mm: expected all tensors on the same device"));
  REQUIRE_THROWS_WITH(linear(ones({2, 2}).to(kGpu), ones({2, 2}).to(kGpu), ones({2})),
                      Catch::Contains("linear: expected all tensors on the same device"));
}
