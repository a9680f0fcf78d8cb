// remainder, fmod, floor_divide, atan2 (core/ops/elementwise/binary_math.cpp): values
// against float64 references from their definitions, the signs on negative
// operands, integer division by zero, in-place forms, and gradients.
#include "test_helpers.h"

#include <cmath>

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using ember_test::require_values;
using ember_test::values;

namespace {
// Every sign combination, a fractional divisor and an exact multiple.
const std::vector<double> kA = {7.0, -7.0, 7.0, -7.0, 5.5, -6.0};
const std::vector<double> kB = {2.0, 2.0, -2.0, -2.0, 1.5, 3.0};

template <typename F>
std::vector<double> reference(F f) {
  std::vector<double> out;
  for (size_t i = 0; i < kA.size(); ++i) out.push_back(f(kA[i], kB[i]));
  return out;
}
Tensor a_tensor() { return tensor(kA, kDouble); }
Tensor b_tensor() { return tensor(kB, kDouble); }
}  // namespace

TEST_CASE("remainder has the divisor's sign: a - b floor(a / b)", "[binary_math]") {
  require_values(remainder(a_tensor(), b_tensor()),
                 reference([](double a, double b) { return a - b * std::floor(a / b); }));
  require_values(a_tensor() % b_tensor(), values(remainder(a_tensor(), b_tensor())));
  // torch 1.13.1: torch.remainder(torch.tensor([7., -7., 7., -7.]), torch.tensor([2., 2., -2., -2.]))
  require_values(remainder(tensor({7.0, -7.0, 7.0, -7.0}), tensor({2.0, 2.0, -2.0, -2.0})),
                 {1, 1, -1, -1});
}

TEST_CASE("fmod has the dividend's sign: a - b trunc(a / b)", "[binary_math]") {
  require_values(fmod(a_tensor(), b_tensor()),
                 reference([](double a, double b) { return a - b * std::trunc(a / b); }));
}

TEST_CASE("floor_divide rounds down, as PyTorch 1.13", "[binary_math]") {
  require_values(floor_divide(a_tensor(), b_tensor()),
                 reference([](double a, double b) { return std::floor(a / b); }));
  // torch 1.13.1: torch.floor_divide(torch.tensor([7, -7]), torch.tensor([2, 2])) == [3, -4]
  const Tensor q = floor_divide(tensor({7, -7, 7, -7}, kLong), tensor({2, 2, -2, -2}, kLong));
  REQUIRE(q.scalar_type() == kLong);
  require_values(q, {3, -4, -4, 3});
  REQUIRE(floor_divide(a_tensor(), 2).scalar_type() == kDouble);
  require_values(a_tensor().floor_divide(2), {3, -4, 3, -4, 2, -3});
}

TEST_CASE("remainder and fmod on int64 match the float64 references, with Scalar forms",
          "[binary_math]") {
  const Tensor a = tensor({7, -7, 7, -7, 6}, kLong), b = tensor({2, 2, -2, -2, 3}, kLong);
  REQUIRE(remainder(a, b).scalar_type() == kLong);
  require_values(remainder(a, b), {1, 1, -1, -1, 0});
  require_values(fmod(a, b), {1, -1, 1, -1, 0});
  require_values(remainder(a, 3), {1, 2, 1, 2, 0});
  require_values(a % 3, {1, 2, 1, 2, 0});
  require_values(remainder(10, b), {0, 0, 0, 0, 1});
  require_values(a.fmod(-3), {1, -1, 1, -1, 0});
  REQUIRE(remainder(a, 2.5).scalar_type() == kFloat);
}

TEST_CASE("remainder, fmod and floor_divide of int64 by zero raise ZeroDivisionError",
          "[binary_math]") {
  const Tensor a = tensor({1, 2}, kLong), b = tensor({1, 0}, kLong);
  REQUIRE_THROWS_WITH(remainder(a, b), Catch::Contains("remainder") && Catch::Contains("ZeroDivisionError"));
  REQUIRE_THROWS_WITH(fmod(a, 0), Catch::Contains("fmod") && Catch::Contains("ZeroDivisionError"));
  REQUIRE_THROWS_WITH(floor_divide(a, b), Catch::Contains("floor_divide"));
  REQUIRE_THROWS_WITH(a.clone().remainder_(b), Catch::Contains("remainder_"));
}

TEST_CASE("remainder and fmod of floats by zero are NaN; remainder by inf moves to inf",
          "[binary_math]") {
  const double nan = std::nan("");
  // torch 1.13.1: remainder(-3., 0.) = nan, fmod(-3., 0.) = nan, remainder(-3., inf) = inf
  require_values(remainder(tensor({-3.0, 3.0}, kDouble), 0.0), {nan, nan});
  require_values(fmod(tensor({-3.0}, kDouble), 0.0), {nan});
  require_values(remainder(tensor({-3.0}, kDouble), INFINITY), {INFINITY});
}

TEST_CASE("remainder, fmod, floor_divide refuse bool tensors", "[binary_math]") {
  const Tensor t = tensor({true, false});
  REQUIRE_THROWS_WITH(remainder(t, t), Catch::Contains("remainder") && Catch::Contains("bool"));
  REQUIRE_THROWS_WITH(fmod(t, t), Catch::Contains("fmod"));
  REQUIRE_THROWS_WITH(floor_divide(t, t), Catch::Contains("floor_divide"));
}

TEST_CASE("atan2 matches std::atan2 in every quadrant; int64 computes in float32",
          "[binary_math]") {
  require_values(atan2(a_tensor(), b_tensor()), reference([](double a, double b) { return std::atan2(a, b); }));
  const Tensor i = atan2(tensor({1, -1}, kLong), tensor({2, -2}, kLong));
  REQUIRE(i.scalar_type() == kFloat);
  require_values(i, {std::atan2(1.0, 2.0), std::atan2(-1.0, -2.0)}, 1e-6);
}

TEST_CASE("binary maths broadcast and keep empty shapes", "[binary_math]") {
  const Tensor a = tensor({{7.0, -7.0}, {5.0, -5.0}}, kDouble), b = tensor({3.0, -3.0}, kDouble);
  require_values(remainder(a, b), {1, -1, 2, -2});
  REQUIRE(fmod(zeros({0, 3}, kDouble), ones({3}, kDouble)).sizes() == IntArrayRef{0, 3});
  REQUIRE(atan2(zeros({0}, kDouble), ones({0}, kDouble)).numel() == 0);
  REQUIRE(remainder(zeros({0}, kLong), zeros({0}, kLong)).numel() == 0);
}

TEST_CASE("in-place remainder_, fmod_, floor_divide_, atan2_ match the out-of-place ops and bump the version",
          "[binary_math]") {
  const Tensor a = a_tensor(), b = b_tensor();
  const auto check = [&](const std::function<Tensor&(Tensor&)>& inplace, const Tensor& want) {
    Tensor x = a.clone();
    const auto v = x._version();
    inplace(x);
    REQUIRE(x._version() == v + 1);
    require_values(x, values(want));
  };
  check([&](Tensor& x) -> Tensor& { return x.remainder_(b); }, remainder(a, b));
  check([&](Tensor& x) -> Tensor& { return x.remainder_(2); }, remainder(a, 2));
  check([&](Tensor& x) -> Tensor& { return x.fmod_(b); }, fmod(a, b));
  check([&](Tensor& x) -> Tensor& { return x.fmod_(-2); }, fmod(a, -2));
  check([&](Tensor& x) -> Tensor& { return x.floor_divide_(b); }, floor_divide(a, b));
  check([&](Tensor& x) -> Tensor& { return x.atan2_(b); }, atan2(a, b));
  REQUIRE_THROWS_WITH(tensor({1, 2}, kLong).remainder_(tensor({1.5, 2.0})),
                      Catch::Contains("remainder_") && Catch::Contains("can't be cast"));
}

TEST_CASE("remainder and fmod gradients: 1 for a, -floor(a/b) / -trunc(a/b) for b (torch 1.13)",
          "[binary_math]") {
  // torch 1.13.1: a = [7., -7.], b = [2., 2.5]: remainder b.grad = [-3., 3.], fmod b.grad = [-3., 2.]
  Tensor a = tensor({7.0, -7.0}, kDouble).requires_grad_(), b = tensor({2.0, 2.5}, kDouble).requires_grad_();
  remainder(a, b).sum().backward();
  require_values(a.grad(), {1, 1});
  require_values(b.grad(), {-3, 3});
  Tensor c = tensor({7.0, -7.0}, kDouble).requires_grad_(), d = tensor({2.0, 2.5}, kDouble).requires_grad_();
  fmod(c, d).sum().backward();
  require_values(d.grad(), {-3, 2});
}

TEST_CASE("remainder, fmod, atan2 pass gradcheck and gradgradcheck away from the jumps (broadcast, transposed)",
          "[binary_math]") {
  // a / b stays away from integers, where remainder and fmod jump.
  Tensor a = tensor({{2.3, -1.7}, {0.6, -3.1}}, kDouble).t().requires_grad_();
  Tensor b = tensor({0.9, -1.3}, kDouble).requires_grad_();
  for (auto fn : {std::function<Tensor(const tensor_list&)>([](const tensor_list& in) { return remainder(in[0], in[1]); }),
                  std::function<Tensor(const tensor_list&)>([](const tensor_list& in) { return fmod(in[0], in[1]); }),
                  std::function<Tensor(const tensor_list&)>([](const tensor_list& in) { return atan2(in[0], in[1]); })}) {
    REQUIRE_GRADCHECK(gradcheck(fn, {a, b}));
    REQUIRE_GRADCHECK(gradgradcheck(fn, {a, b}));
  }
}

TEST_CASE("in-place remainder_ and atan2_ record gradients that pass gradcheck", "[binary_math]") {
  Tensor a = tensor({2.3, -1.7, 0.6}, kDouble).requires_grad_();
  Tensor b = tensor({0.9, -1.3, 0.4}, kDouble).requires_grad_();
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return in[0].clone().remainder_(in[1]); }, {a, b}));
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return in[0].clone().atan2_(in[1]); }, {a, b}));
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return in[0].clone().fmod_(in[1]); }, {a, b}));
}

TEST_CASE("floor_divide's result does not require grad; floor_divide_ refuses operands that do",
          "[binary_math]") {
  Tensor a = tensor({2.5, -1.5}, kDouble).requires_grad_();
  REQUIRE_FALSE(floor_divide(a, 2.0).requires_grad());
  REQUIRE_THROWS_WITH((a * 1.0).floor_divide_(2.0), Catch::Contains("floor_divide_"));
}
