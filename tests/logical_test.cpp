// logical_and/or/xor and bitwise_and/or/xor/not with the &, |, ^, ~ operators
// (core/ops/elementwise/logical.cpp): truth tables, any dtypes for the logical ops, bool
// and int64 only for the bitwise ones, broadcasting and in-place forms.
#include "test_helpers.h"

using namespace ember;
using ember_test::require_values;
using ember_test::values;

TEST_CASE("logical_and/or/xor follow the truth tables on any dtypes, nonzero being true",
          "[logical]") {
  const Tensor a = tensor({0.0, 0.0, 2.5, -1.0}, kDouble), b = tensor({0, 3, 0, 7}, kLong);
  const Tensor r = logical_and(a, b);
  REQUIRE(r.scalar_type() == kBool);
  require_values(r, {0, 0, 0, 1});
  require_values(logical_or(a, b), {0, 1, 1, 1});
  require_values(a.logical_xor(b), {0, 1, 1, 0});
  require_values(logical_and(tensor({true, false}), tensor({true, true})), {1, 0});
  REQUIRE(logical_or(a, tensor(std::nan(""), kDouble)).all().item<bool>());  // NaN is nonzero
}

TEST_CASE("logical ops broadcast and keep empty shapes", "[logical]") {
  const Tensor a = tensor({{1, 0}, {0, 1}}, kLong), b = tensor({true, false});
  require_values(logical_or(a, b), {1, 0, 1, 1});
  REQUIRE(logical_and(zeros({0, 2}), ones({2})).sizes() == IntArrayRef{0, 2});
}

TEST_CASE("in-place logical ops keep self's dtype and bump the version", "[logical]") {
  Tensor x = tensor({0.0, 2.0, 3.0}, kDouble);
  const auto v = x._version();
  x.logical_and_(tensor({1, 1, 0}, kLong));
  REQUIRE(x._version() > v);
  REQUIRE(x.scalar_type() == kDouble);
  require_values(x, {0, 1, 0});
  Tensor m = tensor({true, false});
  m.logical_xor_(tensor({true, true}));
  require_values(m, {0, 1});
  m.logical_or_(tensor({false, true}));
  require_values(m, {0, 1});
}

TEST_CASE("bitwise and/or/xor/not on int64 match the C++ operators", "[logical]") {
  const std::vector<int64_t> av = {12, -7, 0, 255}, bv = {10, 3, -1, 256};
  const Tensor a = tensor(av, kLong), b = tensor(bv, kLong);
  std::vector<double> want_and, want_or, want_xor, want_not;
  for (size_t i = 0; i < av.size(); ++i) {
    want_and.push_back(static_cast<double>(av[i] & bv[i]));
    want_or.push_back(static_cast<double>(av[i] | bv[i]));
    want_xor.push_back(static_cast<double>(av[i] ^ bv[i]));
    want_not.push_back(static_cast<double>(~av[i]));
  }
  REQUIRE((a & b).scalar_type() == kLong);
  require_values(a & b, want_and);
  require_values(a | b, want_or);
  require_values(a ^ b, want_xor);
  require_values(~a, want_not);
  require_values(bitwise_and(a, 6), {4, 0, 0, 6});
  require_values(6 | a, values(a | 6));
  require_values(a.bitwise_xor(1), {13, -8, 1, 254});
}

TEST_CASE("bitwise ops on bool are the logical ones; ~true is false", "[logical]") {
  const Tensor a = tensor({true, true, false, false}), b = tensor({true, false, true, false});
  REQUIRE((a & b).scalar_type() == kBool);
  require_values(a & b, {1, 0, 0, 0});
  require_values(a | b, {1, 1, 1, 0});
  require_values(a ^ b, {0, 1, 1, 0});
  REQUIRE((~a).scalar_type() == kBool);
  require_values(~a, {0, 0, 1, 1});
  REQUIRE((a & true).scalar_type() == kBool);
  REQUIRE((a & 1).scalar_type() == kLong);  // an int Scalar raises bool to int64, as PyTorch
}

TEST_CASE("bitwise ops refuse floating tensors and scalars, naming the op and dtype", "[logical]") {
  const Tensor f = tensor({1.0, 2.0}), i = tensor({1, 2}, kLong);
  REQUIRE_THROWS_WITH(f & i, Catch::Contains("bitwise_and") && Catch::Contains("float32"));
  REQUIRE_THROWS_WITH(i | 1.5, Catch::Contains("bitwise_or") && Catch::Contains("float32"));
  REQUIRE_THROWS_WITH(bitwise_xor(f, f), Catch::Contains("bitwise_xor"));
  REQUIRE_THROWS_WITH(~f, Catch::Contains("bitwise_not") && Catch::Contains("float32"));
}

TEST_CASE("in-place bitwise forms and &=, |=, ^= write self and bump the version", "[logical]") {
  Tensor x = tensor({12, 5}, kLong);
  const auto v = x._version();
  x &= tensor({10, 4}, kLong);
  REQUIRE(x._version() == v + 1);
  require_values(x, {8, 4});
  x |= 1;
  require_values(x, {9, 5});
  x ^= tensor({1, 1}, kLong);
  require_values(x, {8, 4});
  x.bitwise_not_();
  require_values(x, {-9, -5});
  Tensor m = tensor({true, false});
  m ^= true;
  require_values(m, {0, 1});
  REQUIRE_THROWS_WITH(m &= tensor({1, 2}, kLong), Catch::Contains("bitwise_and_") &&
                                                       Catch::Contains("can't be cast"));
}
