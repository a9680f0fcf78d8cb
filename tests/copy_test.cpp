// copy_, fill_, zero_, clone, contiguous and to(): values, versions, gradients.
#include "test_helpers.h"

using namespace ember;
using autograd::gradcheck;
using ember_test::values;

TEST_CASE("copy_ broadcasts the source and converts its dtype", "[copy]") {
  Tensor dst = zeros({2, 3});
  dst.copy_(tensor({1, 2, 3}));  // int64 row -> float32 rows
  REQUIRE(values(dst) == std::vector<double>{1, 2, 3, 1, 2, 3});
  Tensor t = zeros({3, 2});
  t.t().copy_(arange(6, kDouble).reshape({2, 3}));  // write through a transposed view
  REQUIRE(values(t) == std::vector<double>{0, 3, 1, 4, 2, 5});
  REQUIRE_THROWS_WITH(dst.copy_(zeros({4})), Catch::Contains("source of shape [4] cannot be broadcast to destination of shape [2, 3]"));
}

TEST_CASE("copy_, fill_ and zero_ bump the version counter", "[copy]") {
  Tensor t = ones({4});
  uint32_t v = t._version();
  t.copy_(zeros({4}));
  REQUIRE(t._version() == ++v);
  t.fill_(3);
  REQUIRE(t._version() == ++v);
  REQUIRE(values(t) == std::vector<double>(4, 3));
  t.zero_();
  REQUIRE(t._version() == ++v);
  REQUIRE(values(t) == std::vector<double>(4, 0));
}

TEST_CASE("fill_ writes through non-contiguous views only", "[copy]") {
  Tensor t = zeros({3, 4});
  t.select(1, 2).fill_(5);
  REQUIRE(values(t) == std::vector<double>{0, 0, 5, 0, 0, 0, 5, 0, 0, 0, 5, 0});
  Tensor b = zeros({3}, kBool);
  b.fill_(true);
  REQUIRE(values(b) == std::vector<double>{1, 1, 1});
}

TEST_CASE("fill_ and copy_ on a leaf that requires grad are refused outside NoGradGuard", "[copy]") {
  Tensor w = zeros({3}, TensorOptions().dtype(kDouble).requires_grad(true));
  REQUIRE_THROWS_WITH(w.fill_(1), Catch::Contains("leaf tensor that requires grad"));
  {
    NoGradGuard guard;
    w.fill_(1);
  }
  REQUIRE(values(w) == std::vector<double>{1, 1, 1});
  REQUIRE(w.is_leaf());
}

TEST_CASE("copy_ into a non-leaf sends the gradient to the source only", "[copy]") {
  Tensor a = tensor({1.0, 2.0}, kDouble).requires_grad_();
  Tensor b = tensor({5.0, 7.0}, kDouble).requires_grad_();
  Tensor y = a * 3.0;
  y.copy_(b);
  REQUIRE(y.grad_fn()->name() == "CopyBackward");
  (y * y).backward(ones({2}, kDouble));
  REQUIRE(values(b.grad()) == std::vector<double>{10, 14});
  REQUIRE_FALSE(a.grad().defined());
}

// fill_ on a non-leaf replaces its values, so nothing of x flows through y:
// d(y * x + y)/dx = 0.5 (y is 0.5 everywhere).
TEST_CASE("fill_ on a non-leaf passes gradcheck: the old history is cut", "[copy]") {
  auto fn = [](const tensor_list& in) {
    Tensor y = in[0] * 2.0;
    y.fill_(0.5);
    return y * in[0] + y;
  };
  const Tensor x = tensor({{0.3, -1.2, 2.0}, {0.7, 1.5, -0.4}}, kDouble);
  REQUIRE_GRADCHECK(gradcheck(fn, {x.clone().requires_grad_()}));
  REQUIRE_GRADCHECK(gradcheck(fn, {x.t().contiguous().t().requires_grad_()}));  // column-major
  REQUIRE_GRADCHECK(autograd::gradgradcheck(fn, {x.clone().requires_grad_()}));
}

TEST_CASE("gradcheck: clone, contiguous and to(dtype)", "[copy]") {
  Tensor x = randn({3, 4}, kDouble).requires_grad_();
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return in[0].clone(); }, {x}));
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return in[0].t().contiguous(); }, {x}));
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return in[0].to(kFloat).to(kDouble) * in[0]; }, {x}, 1e-3, 1e-2, 1e-2));  // float32 round trip: coarse eps
}

TEST_CASE("a float32 gradient reaching a float64 leaf is cast back", "[copy]") {
  Tensor x = ones({2}, kDouble).requires_grad_();
  Tensor y = x.to(kFloat) * 2.0;
  y.backward(ones({2}));
  REQUIRE(x.grad().scalar_type() == kDouble);
  REQUIRE(values(x.grad()) == std::vector<double>{2, 2});
  // An integer copy leaves the graph, as PyTorch: no gradient can have its dtype.
  const Tensor i = x.to(kInt64);
  REQUIRE_FALSE(i.requires_grad());
  REQUIRE(values(i) == std::vector<double>{1, 1});
}

TEST_CASE("to(DeviceType) and to(options without a device) keep the tensor's device", "[copy]") {
  const ember::Tensor x = ember::ones({2, 3});
  REQUIRE(x.to(ember::kCPU).is_same(x));  // no copy when nothing changes
  REQUIRE_FALSE(ember::TensorOptions().has_device());
  REQUIRE(ember::TensorOptions().device(ember::Device(ember::kCPU)).has_device());
  REQUIRE(ember::TensorOptions(ember::kCPU).has_device());
  const ember::Tensor d = x.to(ember::TensorOptions().dtype(ember::kDouble));
  REQUIRE(d.dtype() == ember::kDouble);
  REQUIRE(d.device() == x.device());
}

TEST_CASE("fill values that overflow the dtype are an Error, as PyTorch", "[copy]") {
  // The conversion would be undefined behaviour in C++.
  const double inf = std::numeric_limits<double>::infinity();
  Tensor i = zeros({2}, kLong);
  REQUIRE_THROWS_WITH(i.fill_(inf),
                      Catch::Contains("fill_: value inf cannot be converted to type int64 "
                                      "without overflow"));
  REQUIRE_THROWS_WITH(i.fill_(std::numeric_limits<double>::quiet_NaN()),
                      Catch::Contains("cannot be converted to type int64"));
  REQUIRE_THROWS_WITH(i.fill_(1e20), Catch::Contains("cannot be converted"));
  REQUIRE_THROWS_WITH(full({2}, 9223372036854775808.0, kLong),
                      Catch::Contains("full: value"));
  REQUIRE_THROWS_WITH(masked_fill(i, ones({2}, kBool), -inf),
                      Catch::Contains("masked_fill: value -inf cannot be converted"));
  REQUIRE_THROWS_WITH(zeros({2}).fill_(1e300), Catch::Contains("to type float32"));
  // What fits is filled: floats' infinities and NaN, integral values in range.
  CHECK(values(zeros({1}).fill_(inf)) == std::vector<double>{inf});
  CHECK(values(i.fill_(-9223372036854775808.0))[0] == -9223372036854775808.0);
  CHECK(values(full({1}, 3.0, kLong)) == std::vector<double>{3});
}
