// The CUDA elementwise ops (kernels/cuda/loops.cuh, elementwise_*.cu) against
// the same ops on the CPU: every routed op on random non-zero data of sizes
// 0, 1, 31, 1025 and 4100 (4097 + 3: a vector-path tail), on transposed,
// sliced and broadcast operands, for each dtype the op accepts. Tolerance,
// relative to max(1, |cpu value|): exact for integer and bool results and
// comparisons, 1e-6 (float32) for exactly rounded float32 arithmetic, 1e-5 for
// float32 transcendental functions (CUDA's and the host's libm may differ by
// an ulp or two), 1e-12 for float64. NaN and inf must match.
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "cuda_test_helpers.h"

using namespace ember;
using namespace cuda_test;

namespace {

using Binary = std::function<Tensor(const Tensor&, const Tensor&)>;
using Unary = std::function<Tensor(const Tensor&)>;

// The operand layouts each op runs on: dense of several sizes, transposed,
// sliced (every other element), and broadcast pairs. make_a builds dense CPU
// data and view_a takes the layout's view of it; the view is taken after the
// copy to the device too (a copy of a view would be contiguous).
struct Layout {
  std::string name;
  std::function<Tensor(ScalarType, bool)> make_a, make_b;
  std::function<Tensor(const Tensor&)> view_a = [](const Tensor& x) { return x; };
};

std::vector<Layout> layouts() {
  std::vector<Layout> out;
  for (int64_t n : {0, 1, 31, 1025, 4100}) {
    auto dense = [n](ScalarType t, bool pos) { return random_nonzero({n}, t, pos); };
    out.push_back({"dense " + std::to_string(n), dense, dense});
  }
  out.push_back({"transposed",
                 [](ScalarType t, bool pos) { return random_nonzero({33, 31}, t, pos); },
                 [](ScalarType t, bool pos) { return random_nonzero({31, 33}, t, pos); },
                 [](const Tensor& x) { return x.t(); }});
  out.push_back({"sliced",
                 [](ScalarType t, bool pos) { return random_nonzero({2 * 1025}, t, pos); },
                 [](ScalarType t, bool pos) { return random_nonzero({1025}, t, pos); },
                 [](const Tensor& x) { return x.slice(0, 1, 2 * 1025, 2); }});
  out.push_back({"broadcast",
                 [](ScalarType t, bool pos) {
                   return random_nonzero({31, 1}, t, pos);
                 },
                 [](ScalarType t, bool pos) {
                   return random_nonzero({1, 33}, t, pos);
                 }});
  out.push_back({"0-dim scalar",
                 [](ScalarType t, bool pos) {
                   return random_nonzero({7, 5}, t, pos);
                 },
                 [](ScalarType t, bool pos) { return random_nonzero({}, t, pos); }});
  return out;
}

struct BinaryCase {
  std::string name;
  Binary op;
  std::vector<ScalarType> dtypes;
  double f32_tol;
  bool positive;  // operands > 0 (pow's base)
};

struct UnaryCase {
  std::string name;
  Unary op;
  std::vector<ScalarType> dtypes;
  double f32_tol;
  bool positive;  // the op's domain is x > 0
};

void run_binary(const BinaryCase& c) {
  for (const Layout& layout : layouts()) {
    for (ScalarType t : c.dtypes) {
      INFO(c.name << " on " << layout.name << ", " << t);
      const Tensor a_data = layout.make_a(t, c.positive), b = layout.make_b(t, false);
      const Tensor a = layout.view_a(a_data), a_gpu = layout.view_a(a_data.to(kGpu));
      REQUIRE(a_gpu.strides() == a.strides());
      const Tensor want = c.op(a, b);
      check_same(c.op(a_gpu, b.to(kGpu)), want, tolerance(want.scalar_type(), c.f32_tol));
    }
  }
}

void run_unary(const UnaryCase& c) {
  for (const Layout& layout : layouts()) {
    for (ScalarType t : c.dtypes) {
      INFO(c.name << " on " << layout.name << ", " << t);
      const Tensor x_data = layout.make_a(t, c.positive);
      const Tensor x = layout.view_a(x_data), x_gpu = layout.view_a(x_data.to(kGpu));
      REQUIRE(x_gpu.strides() == x.strides());
      const Tensor want = c.op(x);
      check_same(c.op(x_gpu), want, tolerance(want.scalar_type(), c.f32_tol));
    }
  }
}

const std::vector<ScalarType> kFloats = {kFloat, kDouble};
const std::vector<ScalarType> kNumeric = {kLong, kFloat, kDouble};
const std::vector<ScalarType> kAll = {kBool, kLong, kFloat, kDouble};

}  // namespace

TEST_CASE("cuda elementwise: binary arithmetic matches the CPU on every layout and dtype",
          "[cuda][cuda_elementwise]") {
  manual_seed(7);
  const std::vector<BinaryCase> cases = {
      {"add", [](auto& a, auto& b) { return a + b; }, kAll, 1e-6, false},
      {"add alpha", [](auto& a, auto& b) { return add(a, b, 3); }, kNumeric, 1e-6, false},
      {"sub alpha", [](auto& a, auto& b) { return sub(a, b, 2); }, kNumeric, 1e-6, false},
      {"mul", [](auto& a, auto& b) { return a * b; }, kAll, 1e-6, false},
      {"div", [](auto& a, auto& b) { return a / b; }, kNumeric, 1e-6, false},
      {"pow", [](auto& a, auto& b) { return pow(a, b); }, kFloats, 1e-5, true},
      {"pow int", [](auto& a, auto& b) { return pow(a, b.abs()); }, {kLong}, 0, false},
      {"maximum", [](auto& a, auto& b) { return maximum(a, b); }, kAll, 0, false},
      {"minimum", [](auto& a, auto& b) { return minimum(a, b); }, kAll, 0, false},
      {"mixed int64 + float", [](auto& a, auto& b) { return a + b.to(kLong); }, kFloats, 1e-6,
       false},
      {"where", [](auto& a, auto& b) { return where(a > b, a, b * 2); }, kNumeric, 1e-6, false},
  };
  for (const BinaryCase& c : cases) run_binary(c);
}

TEST_CASE("cuda elementwise: comparisons match the CPU, equal elements included",
          "[cuda][cuda_elementwise]") {
  manual_seed(8);
  const std::vector<Binary> ops = {
      [](auto& a, auto& b) { return a == b; }, [](auto& a, auto& b) { return a != b; },
      [](auto& a, auto& b) { return a < b; },  [](auto& a, auto& b) { return a <= b; },
      [](auto& a, auto& b) { return a > b; },  [](auto& a, auto& b) { return a >= b; },
  };
  for (size_t k = 0; k < ops.size(); ++k) {
    // b equals a where a's element is positive, so ties are tested too.
    const Binary op = [&, k](const Tensor& a, const Tensor& b) {
      return ops[k](a, where(a.to(kDouble) > 0, a, b.to(a.scalar_type())));
    };
    run_binary({"comparison " + std::to_string(k), op, kAll, 0, false});
  }
  const Tensor a = randn({1025}), b = a + randn({1025}) * 1e-7;
  CHECK(allclose(a.to(kGpu), b.to(kGpu)) == allclose(a, b));
  CHECK(equal(a.to(kGpu), a.to(kGpu)));
}

TEST_CASE("cuda elementwise: unary ops and activations match the CPU on every layout and dtype",
          "[cuda][cuda_elementwise]") {
  manual_seed(9);
  const std::vector<UnaryCase> cases = {
      {"neg", [](auto& x) { return -x; }, kNumeric, 0, false},
      {"exp", [](auto& x) { return exp(x); }, {kLong, kFloat, kDouble}, 1e-5, false},
      {"log", [](auto& x) { return log(x); }, kNumeric, 1e-5, true},
      {"sqrt", [](auto& x) { return sqrt(x); }, kNumeric, 1e-6, true},
      {"rsqrt", [](auto& x) { return rsqrt(x); }, kFloats, 1e-5, true},
      {"abs", [](auto& x) { return abs(x); }, kNumeric, 0, false},
      {"sign", [](auto& x) { return sign(x); }, kAll, 0, false},
      {"square", [](auto& x) { return square(x); }, kAll, 1e-6, false},
      {"reciprocal", [](auto& x) { return reciprocal(x); }, kNumeric, 1e-6, false},
      {"relu", [](auto& x) { return relu(x); }, kNumeric, 0, false},
      {"leaky_relu", [](auto& x) { return leaky_relu(x, 0.1); }, kFloats, 1e-6, false},
      {"sigmoid", [](auto& x) { return sigmoid(x); }, kFloats, 1e-5, false},
      {"tanh", [](auto& x) { return tanh(x); }, kFloats, 1e-5, false},
      {"gelu", [](auto& x) { return gelu(x); }, kFloats, 1e-5, false},
      {"gelu tanh", [](auto& x) { return gelu(x, "tanh"); }, kFloats, 1e-5, false},
      {"clamp", [](auto& x) { return clamp(x, -0.5, 0.5); }, kFloats, 0, false},
      {"clamp int", [](auto& x) { return clamp(x, -3, 4); }, {kLong}, 0, false},
      {"clamp_min", [](auto& x) { return clamp_min(x, 0.25); }, kNumeric, 0, false},
      {"isnan", [](auto& x) { return isnan(x.to(kDouble).log()); }, kFloats, 0, false},
      {"logical_not", [](auto& x) { return logical_not(x); }, kAll, 0, false},
  };
  for (const UnaryCase& c : cases) run_unary(c);
}

TEST_CASE(
    "cuda elementwise: in-place forms write through views, match the CPU and bump the "
    "version",
    "[cuda][cuda_elementwise]") {
  manual_seed(10);
  using InPlace = std::function<void(Tensor&, const Tensor&)>;
  const std::vector<InPlace> ops = {
      [](Tensor& s, const Tensor& o) { s.add_(o, 2); },
      [](Tensor& s, const Tensor& o) { s.sub_(o); },
      [](Tensor& s, const Tensor& o) { s.mul_(o); },
      [](Tensor& s, const Tensor& o) { s.div_(o); },
      [](Tensor& s, const Tensor&) { s.neg_(); },
      [](Tensor& s, const Tensor&) { s.relu_(); },
      [](Tensor& s, const Tensor&) { s.clamp_(-0.5, 0.5); },
      [](Tensor& s, const Tensor&) { s.fill_(1.5); },
  };
  for (size_t k = 0; k < ops.size(); ++k) {
    for (ScalarType t : kFloats) {
      INFO("in-place op " << k << ", " << t);
      const Tensor base = random_nonzero({31, 33}, t), other = random_nonzero({33}, t);
      Tensor cpu_base = base.clone(), gpu_base = base.to(kGpu);
      Tensor cpu_view = cpu_base.t(), gpu_view = gpu_base.t();  // (33, 31), strided
      Tensor cpu_dense = cpu_base, gpu_dense = gpu_base;
      const uint32_t version = gpu_base._version();
      ops[k](cpu_view, other.unsqueeze(1));
      ops[k](gpu_view, other.unsqueeze(1).to(kGpu));
      CHECK(gpu_base._version() == version + 1);
      ops[k](cpu_dense, other);
      ops[k](gpu_dense, other.to(kGpu));
      CHECK(gpu_base._version() == version + 2);
      check_same(gpu_base, cpu_base, tolerance(t, 1e-6));
    }
  }
}

TEST_CASE(
    "cuda elementwise: the gradient of an elementwise expression on CUDA equals the CPU "
    "gradient, and lives on CUDA",
    "[cuda][cuda_elementwise]") {
  manual_seed(11);
  const Tensor x0 = random_nonzero({31, 33}, kDouble), y0 = random_nonzero({31, 33}, kDouble);
  const Tensor g0 = random_nonzero({31, 33}, kDouble);
  auto f = [](const Tensor& x, const Tensor& y) {
    return (x * y).tanh() + x.relu() * 2 - y / (x.abs() + 1) + x.sigmoid() * y.exp() + gelu(x) -
           pow(y, 2) + clamp(x, -0.5, 0.5) + leaky_relu(y, 0.2);
  };
  std::vector<Tensor> grads;
  for (Device d : {Device(kCPU), kGpu}) {
    const Tensor x = x0.to(d).detach().requires_grad_();
    const Tensor y = y0.to(d).detach().requires_grad_();
    f(x, y).backward(g0.to(d));
    REQUIRE(x.grad().device() == d);
    REQUIRE(y.grad().device() == d);
    grads.push_back(x.grad());
    grads.push_back(y.grad());
  }
  check_same(grads[2], grads[0], 1e-12);
  check_same(grads[3], grads[1], 1e-12);
}

TEST_CASE(
    "cuda elementwise: a 0-dim CPU tensor and a Scalar join CUDA operands by value, with no "
    "device allocation for the scalar",
    "[cuda][cuda_elementwise]") {
  for (ScalarType t : {kFloat, kDouble, kLong}) {
    const Tensor x = random_nonzero({1025}, t), s = random_nonzero({}, t);
    const Tensor gx = x.to(kGpu);
    const double tol = tolerance(t, 1e-6);
    check_same(gx * s, x * s, tol);        // CUDA tensor, CPU scalar
    check_same(s - gx, s - x, tol);        // CPU scalar first
    check_same(gx.t() + 3, x + 3, tol);    // a Scalar
    check_same(where(gx > 0, gx, s), where(x > 0, x, s), tol);
    check_same(gt(gx, s), gt(x, s), 0);
    Tensor in_place = gx.clone();
    in_place.mul_(s);
    check_same(in_place, x * s, tol);
    REQUIRE((gx * s).device() == gx.device());
  }
  // A steady loop of scalar ops reuses cached blocks: no cudaMalloc.
  const Tensor gx = random_nonzero({4096}, kFloat).to(kGpu);
  Tensor y = gx * 2.0 + 1.0;
  const int64_t mallocs = cuda::memory_stats().num_system_allocs;
  for (int i = 0; i < 10; ++i) y = (y * 0.5 + gx / 3.0).clamp(-4, 4);
  CHECK(cuda::memory_stats().num_system_allocs == mallocs);
}

TEST_CASE(
    "cuda elementwise: the gradient of a CPU scalar used with CUDA tensors comes back on the "
    "CPU; a CPU tensor with dims next to a CUDA tensor is an error naming both",
    "[cuda][cuda_elementwise]") {
  const Tensor x0 = random_nonzero({31}, kDouble);
  const Tensor s = tensor({1.5}, kDouble).reshape({}).requires_grad_();
  const Tensor x = x0.to(kGpu).requires_grad_();
  (x * s).sum().backward();
  REQUIRE(s.grad().is_cpu());
  CHECK(s.grad().item<double>() == Approx(x0.sum().item<double>()).epsilon(1e-12));
  check_same(x.grad(), full({31}, 1.5, kDouble), 1e-15);

  const Tensor cpu_vector = random_nonzero({31}, kFloat);
  const Tensor gpu_vector = cpu_vector.to(kGpu);
  REQUIRE_THROWS_WITH(gpu_vector + cpu_vector,
                      Catch::Contains("add") && Catch::Contains("same device") &&
                          Catch::Contains("cuda") && Catch::Contains("cpu"));
  REQUIRE_THROWS_WITH(lt(cpu_vector, gpu_vector), Catch::Contains("lt"));
  Tensor cpu_scalar = zeros({}, kFloat);
  REQUIRE_THROWS_WITH(cpu_scalar.add_(gpu_vector.sum()), Catch::Contains("add_"));
}

// On the device an overlapping in-place op would be a data race (threads
// read elements others have written): it is refused before any launch.
TEST_CASE("cuda in-place ops refuse overlapping operands and write nothing", "[cuda_elementwise]") {
  Tensor a = tensor({1.0f, 2.0f, 3.0f, 4.0f}).to(kGpu);
  REQUIRE_THROWS_WITH(a.sub_(a.select(0, 0)), Catch::Contains("refer to a single memory location"));
  REQUIRE_THROWS_WITH(a.slice(0, 1, 4).add_(a.slice(0, 0, 3)),
                      Catch::Contains("refer to a single memory location"));
  REQUIRE_THROWS_WITH(zeros({1}).to(kGpu).expand({3}).neg_(),
                      Catch::Contains("more than one element of the written-to tensor"));
  CHECK(equal(a.cpu(), tensor({1.0f, 2.0f, 3.0f, 4.0f})));
  a.slice(0, 0, 2).add_(a.slice(0, 2, 4));  // disjoint halves are fine
  CHECK(equal(a.cpu(), tensor({4.0f, 6.0f, 3.0f, 4.0f})));
}

namespace {

// The elementary functions and activations added with unary_math.cpp and
// activation.cpp, each as a function of one tensor; domain: inputs in (0, 1)
// (asin, acos: |x| < 1 after the scaling below), or > 0 (the logs).
struct MathCase {
  std::string name;
  Unary op;
  std::vector<ScalarType> dtypes;
  bool positive;
};

std::vector<MathCase> math_cases() {
  namespace F = nn::functional;
  return {
      {"sin", [](auto& x) { return sin(x); }, kNumeric, false},
      {"cos", [](auto& x) { return cos(x); }, kNumeric, false},
      {"tan", [](auto& x) { return tan(x); }, kFloats, false},
      {"asin", [](auto& x) { return asin(x * 0.2); }, kFloats, false},
      {"acos", [](auto& x) { return acos(x * 0.2); }, kFloats, false},
      {"atan", [](auto& x) { return atan(x); }, kNumeric, false},
      {"sinh", [](auto& x) { return sinh(x); }, kFloats, false},
      {"cosh", [](auto& x) { return cosh(x); }, kFloats, false},
      {"log1p", [](auto& x) { return log1p(x); }, kNumeric, true},
      {"expm1", [](auto& x) { return expm1(x); }, kNumeric, false},
      {"log2", [](auto& x) { return log2(x); }, kNumeric, true},
      {"log10", [](auto& x) { return log10(x); }, kNumeric, true},
      {"floor", [](auto& x) { return floor(x * 3.0); }, kFloats, false},
      {"ceil", [](auto& x) { return ceil(x * 3.0); }, kFloats, false},
      {"round", [](auto& x) { return round(x * 3.0); }, kFloats, false},
      {"trunc", [](auto& x) { return trunc(x * 3.0); }, kFloats, false},
      {"frac", [](auto& x) { return frac(x * 3.0); }, kFloats, false},
      {"silu", [](auto& x) { return silu(x); }, kFloats, false},
      {"mish", [](auto& x) { return mish(x); }, kFloats, false},
      {"elu", [](auto& x) { return elu(x, 0.7); }, kFloats, false},
      {"selu", [](auto& x) { return selu(x); }, kFloats, false},
      {"celu", [](auto& x) { return celu(x, 1.5); }, kFloats, false},
      {"softplus", [](auto& x) { return softplus(x * 10.0, 2, 15); }, kFloats, false},
      {"hardtanh", [](auto& x) { return hardtanh(x, -0.7, 0.8); }, kFloats, false},
      {"relu6", [](auto& x) { return relu6(x * 5.0); }, kFloats, false},
      {"hardsigmoid", [](auto& x) { return hardsigmoid(x * 3.0); }, kFloats, false},
      {"hardswish", [](auto& x) { return hardswish(x * 3.0); }, kFloats, false},
      {"log_sigmoid", [](auto& x) { return log_sigmoid(x); }, kFloats, false},
      {"softsign", [](auto& x) { return F::softsign(x); }, kFloats, false},
      {"tanhshrink", [](auto& x) { return F::tanhshrink(x); }, kFloats, false},
      {"softshrink", [](auto& x) { return softshrink(x, 0.6); }, kFloats, false},
      {"hardshrink", [](auto& x) { return hardshrink(x, 0.6); }, kFloats, false},
  };
}

}  // namespace

TEST_CASE("cuda elementwise: elementary functions and activations match the CPU, forward",
          "[cuda][cuda_elementwise]") {
  manual_seed(21);
  for (const MathCase& c : math_cases()) run_unary({c.name, c.op, c.dtypes, 1e-5, c.positive});
}

TEST_CASE(
    "cuda elementwise: gradients of the elementary functions and activations match the CPU",
    "[cuda][cuda_elementwise]") {
  manual_seed(22);
  const std::vector<ViewedInput> inputs = {
      {"dense", [](ScalarType t) { return random_nonzero({1025}, t); }},
      {"transposed", [](ScalarType t) { return random_nonzero({33, 31}, t); },
       [](const Tensor& b) { return b.t(); }},
  };
  for (const MathCase& c : math_cases()) {
    if (c.name == "floor" || c.name == "ceil" || c.name == "round" || c.name == "trunc") continue;
    for (const ViewedInput& in : inputs) {
      for (ScalarType t : kFloats) {
        INFO(c.name << " on " << in.name << ", " << t);
        // The logs' domain: the magnitude of random data, kept > 0.
        auto op = [&c](const Tensor& x) { return c.op(c.positive ? x.abs() : x); };
        compare_input_grad(in, t, op, tolerance(t, 1e-5));
      }
    }
  }
}

TEST_CASE("cuda elementwise: in-place elementary functions match the CPU and bump the version",
          "[cuda][cuda_elementwise]") {
  manual_seed(23);
  using InPlace = std::function<void(const Tensor&)>;
  const std::vector<std::pair<std::string, InPlace>> ops = {
      {"exp_", [](const Tensor& s) { s.exp_(); }},     {"sigmoid_", [](const Tensor& s) { s.sigmoid_(); }},
      {"tanh_", [](const Tensor& s) { s.tanh_(); }},   {"abs_", [](const Tensor& s) { s.abs_(); }},
      {"sin_", [](const Tensor& s) { s.sin_(); }},     {"atan_", [](const Tensor& s) { s.atan_(); }},
      {"expm1_", [](const Tensor& s) { s.expm1_(); }}, {"floor_", [](const Tensor& s) { s.floor_(); }},
      {"round_", [](const Tensor& s) { s.round_(); }}, {"frac_", [](const Tensor& s) { s.frac_(); }},
  };
  for (const auto& [name, op] : ops) {
    for (ScalarType t : kFloats) {
      INFO(name << ", " << t);
      const Tensor base = random_nonzero({31, 33}, t) * 3.0;
      Tensor cpu_base = base.clone(), gpu_base = base.to(kGpu);
      const uint32_t version = gpu_base._version();
      op(cpu_base.t());
      op(gpu_base.t());
      CHECK(gpu_base._version() == version + 1);
      check_same(gpu_base, cpu_base, tolerance(t, 1e-5));
    }
  }
}

TEST_CASE("cuda elementwise: remainder, fmod, floor_divide, atan2 match the CPU on every layout",
          "[cuda][cuda_elementwise]") {
  manual_seed(11);
  const std::vector<BinaryCase> cases = {
      {"remainder", [](auto& a, auto& b) { return a % b; }, kNumeric, 1e-6, false},
      {"fmod", [](auto& a, auto& b) { return fmod(a, b); }, kNumeric, 1e-6, false},
      {"floor_divide", [](auto& a, auto& b) { return floor_divide(a, b); }, kNumeric, 0, false},
      {"atan2", [](auto& a, auto& b) { return atan2(a, b); }, kFloats, 1e-5, false},
      {"remainder by a CPU scalar", [](auto& a, auto&) { return remainder(a, -3); }, kNumeric, 1e-6,
       false},
  };
  for (const BinaryCase& c : cases) run_binary(c);
}

TEST_CASE("cuda elementwise: logical and bitwise ops match the CPU on every layout",
          "[cuda][cuda_elementwise]") {
  manual_seed(12);
  const std::vector<BinaryCase> cases = {
      {"logical_and", [](auto& a, auto& b) { return logical_and(a, b); }, kAll, 0, false},
      {"logical_or", [](auto& a, auto& b) { return logical_or(a, b); }, kAll, 0, false},
      {"logical_xor", [](auto& a, auto& b) { return logical_xor(a, b); }, kAll, 0, false},
      {"bitwise_and", [](auto& a, auto& b) { return a & b; }, {kBool, kLong}, 0, false},
      {"bitwise_or", [](auto& a, auto& b) { return a | b; }, {kBool, kLong}, 0, false},
      {"bitwise_xor", [](auto& a, auto& b) { return a ^ b; }, {kBool, kLong}, 0, false},
  };
  for (const BinaryCase& c : cases) run_binary(c);
  run_unary({"bitwise_not", [](auto& x) { return ~x; }, {kBool, kLong}, 0, false});
}

TEST_CASE("cuda elementwise: remainder, fmod, atan2 gradients and in-place forms match the CPU",
          "[cuda][cuda_elementwise]") {
  manual_seed(13);
  const Tensor a = random_nonzero({257}, kDouble), b = random_nonzero({257}, kDouble);
  const std::vector<Binary> ops = {
      [](auto& x, auto& y) { return remainder(x, y); }, [](auto& x, auto& y) { return fmod(x, y); },
      [](auto& x, auto& y) { return atan2(x, y); },
      [](auto& x, auto& y) { return x.clone().remainder_(y); },
      [](auto& x, auto& y) { return x.clone().atan2_(y); }};
  for (size_t k = 0; k < ops.size(); ++k) {
    INFO("op " << k);
    const Tensor ac = cpu_leaf(a), bc = cpu_leaf(b), ag = gpu_leaf(a), bg = gpu_leaf(b);
    const Tensor w = random_nonzero({257}, kDouble);
    const Tensor yc = ops[k](ac, bc), yg = ops[k](ag, bg);
    check_same(yg, yc, 1e-12);
    (yc * w).sum().backward();
    (yg * w.to(kGpu)).sum().backward();
    check_same(ag.grad(), ac.grad(), 1e-12);
    check_same(bg.grad(), bc.grad(), 1e-12);
  }
  Tensor x = random_nonzero({100}, kLong).to(kGpu);
  const Tensor want = x.cpu() & 5;
  x &= 5;
  check_same(x, want);
}
