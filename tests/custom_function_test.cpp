// Custom autograd functions (autograd/custom_function.h), written as a
// libtorch user writes them.
#include <catch2/catch.hpp>

#include <ember/ember.h>

#include "test_helpers.h"

using namespace ember;
using autograd::AutogradContext;
using autograd::variable_list;
using Catch::Contains;
using ember_test::values;

namespace {

struct MulConstant : autograd::Function<MulConstant> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x, double k) {
    ctx->saved_data["k"] = k;
    return x * k;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    return {grads[0] * ctx->saved_data["k"].toDouble(), Tensor()};
  }
};

// exp, differentiated from its saved output (so its backward is itself differentiable).
struct Exp : autograd::Function<Exp> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x) {
    Tensor y = x.exp();
    ctx->save_for_backward({y});
    return y;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    return {grads[0] * ctx->get_saved_variables()[0]};
  }
};

// Two tensor inputs around a non-tensor one, two outputs: a*b and the argmax of a
// (non-differentiable).
struct ProductAndArgmax : autograd::Function<ProductAndArgmax> {
  static variable_list forward(AutogradContext* ctx, const Tensor& a, int64_t unused,
                               const Tensor& b) {
    (void)unused;
    ctx->save_for_backward({a, b});
    Tensor index = a.argmax();
    ctx->mark_non_differentiable({index});
    return {a * b, index};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list s = ctx->get_saved_variables();
    REQUIRE(grads.size() == 2);
    REQUIRE(grads[1].defined());  // materialized as zeros
    return {ctx->needs_input_grad(0) ? grads[0] * s[1] : Tensor(), Tensor(),
            ctx->needs_input_grad(2) ? grads[0] * s[0] : Tensor()};
  }
};

struct WrongCount : autograd::Function<WrongCount> {
  static Tensor forward(AutogradContext*, const Tensor& x, double) { return x * 2.0; }
  static variable_list backward(AutogradContext*, variable_list grads) { return {grads[0]}; }
};

// x <- x * k in place (PyTorch's mark_dirty example): d out/d x = k.
struct MulInPlace : autograd::Function<MulInPlace> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x, double k) {
    ctx->saved_data["k"] = k;
    x.mul_(k);
    ctx->mark_dirty({x});
    return x;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    return {grads[0] * ctx->saved_data["k"].toDouble(), Tensor()};
  }
};

// Changes x in place but forgets mark_dirty's promise: x is not returned.
struct DirtyNotReturned : autograd::Function<DirtyNotReturned> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x) {
    x.add_(1.0);
    ctx->mark_dirty({x});
    return x * 2.0;
  }
  static variable_list backward(AutogradContext*, variable_list grads) { return {grads[0] * 2.0}; }
};

// Returns its input unchanged, with gradient 3 (as if it were 3x seen locally).
struct IdentityTimesThreeGrad : autograd::Function<IdentityTimesThreeGrad> {
  static Tensor forward(AutogradContext*, const Tensor& x) { return x; }
  static variable_list backward(AutogradContext*, variable_list grads) { return {grads[0] * 3.0}; }
};

}  // namespace

TEST_CASE("a custom function records one node named after it, with saved_data", "[custom_function]") {
  const Tensor x = tensor({1.0, 2.0}, kDouble).requires_grad_();
  const Tensor y = MulConstant::apply(x, 3.0);
  REQUIRE(y.grad_fn()->name() == "MulConstantBackward");
  y.sum().backward();
  REQUIRE(values(x.grad()) == std::vector<double>{3, 3});
  NoGradGuard guard;
  REQUIRE_FALSE(MulConstant::apply(x, 3.0).requires_grad());
}

TEST_CASE("gradcheck and gradgradcheck through a custom function that saves its output",
          "[custom_function]") {
  const Tensor x = randn({3, 2}, kDouble).requires_grad_();
  const autograd::GradcheckFn fn = [](const tensor_list& in) { return Exp::apply(in[0] * 0.5); };
  REQUIRE_GRADCHECK(autograd::gradcheck(fn, {x}));
  REQUIRE_GRADCHECK(autograd::gradgradcheck(fn, {x}));
}

TEST_CASE("a custom function gets one gradient per argument; non-differentiable outputs stay out",
          "[custom_function]") {
  const Tensor a = tensor({1.0, 5.0, 2.0}, kDouble).requires_grad_();
  const Tensor b = tensor({3.0, 4.0, 6.0}, kDouble);
  const variable_list out = ProductAndArgmax::apply(a, int64_t{7}, b);
  REQUIRE(out[1].item<int64_t>() == 1);
  REQUIRE_FALSE(out[1].requires_grad());
  out[0].sum().backward();
  REQUIRE(values(a.grad()) == std::vector<double>{3, 4, 6});
}

TEST_CASE("a saved tensor changed in place before backward is caught", "[custom_function]") {
  const Tensor x = tensor({1.0, 2.0}, kDouble).requires_grad_();
  Tensor y = Exp::apply(x);
  Tensor z = y * 1.0;
  {
    NoGradGuard guard;
    y.add_(1.0);
  }
  REQUIRE_THROWS_WITH(z.sum().backward(), Contains("ExpBackward") && Contains("version"));
}

TEST_CASE("a backward with the wrong number of gradients is an error",
          "[custom_function]") {
  const Tensor x = ones({2}).requires_grad_();
  REQUIRE_THROWS_WITH(WrongCount::apply(x, 1.0).sum().backward(),
                      Contains("WrongCountBackward: backward returned 1 gradients but forward took 2"));
}

TEST_CASE("mark_dirty: an input changed in place by forward takes the custom node's history",
          "[custom_function]") {
  const Tensor x = tensor({1.0, 2.0}, kDouble).requires_grad_();
  Tensor y = x * 1.0;  // a non-leaf, so it may be changed in place
  const int64_t version = y._version();
  const Tensor out = MulInPlace::apply(y, 3.0);
  REQUIRE(out.is_same(y));
  REQUIRE(y._version() > version);
  REQUIRE(y.grad_fn()->name() == "MulInPlaceBackward");
  REQUIRE(values(y) == std::vector<double>{3, 6});
  (y * y).sum().backward();  // d/dx of sum((3x)^2) = 18x
  REQUIRE(values(x.grad()) == std::vector<double>{18, 36});
}

TEST_CASE("mark_dirty refuses a leaf that requires grad and a dirty tensor not returned",
          "[custom_function]") {
  const Tensor leaf = tensor({1.0, 2.0}, kDouble).requires_grad_();
  REQUIRE_THROWS_WITH(MulInPlace::apply(leaf, 2.0),
                      Contains("MulInPlaceBackward") && Contains("leaf"));
  const Tensor y = tensor({1.0, 2.0}, kDouble).requires_grad_() * 1.0;
  REQUIRE_THROWS_WITH(DirtyNotReturned::apply(y), Contains("mark_dirty") &&
                                                      Contains("not returned"));
}

TEST_CASE("an input returned unchanged comes back as a new tensor sharing its storage",
          "[custom_function]") {
  const Tensor x = tensor({1.0, 2.0}, kDouble).requires_grad_();
  const Tensor y = IdentityTimesThreeGrad::apply(x);
  REQUIRE_FALSE(y.is_same(x));
  REQUIRE(y.data_ptr<double>() == x.data_ptr<double>());
  REQUIRE(x.is_leaf());  // x keeps its own (leaf) history
  REQUIRE(y.grad_fn()->name() == "IdentityTimesThreeGradBackward");
  y.sum().backward();
  REQUIRE(values(x.grad()) == std::vector<double>{3, 3});
}
