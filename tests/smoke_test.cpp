#include <catch2/catch.hpp>

#include <ember/ember.h>

TEST_CASE("smoke: add and mul backward") {
  auto a = ember::tensor({1.0, 2.0, 3.0}, ember::kDouble).requires_grad_();
  auto b = ember::tensor({4.0, 5.0, 6.0}, ember::kDouble).requires_grad_();
  auto c = a * b + a;
  ember::autograd::backward({c}, {ember::ones({3}, ember::kDouble)});
  REQUIRE(a.grad().data_ptr<double>()[0] == 5.0);
  REQUIRE(b.grad().data_ptr<double>()[2] == 3.0);
}
