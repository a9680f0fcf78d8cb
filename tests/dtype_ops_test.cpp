// The elementwise and reduce op tables on bfloat16, float16 and the narrow
// integers: every row computes as its compute type does and rounds once
// (Note [Reduced-precision floats are storage types]), so a bfloat16 result is
// bit for bit the float32 result of the same row on the bfloat16 inputs,
// rounded; an int8 result is the int64 result wrapped to 8 bits (two's
// complement arithmetic is exact modulo 2^n). Then the ops: promotion, the
// scalar rules, reductions that accumulate in float, autograd in bfloat16.
#include "test_helpers.h"

#include <ember/core/ops/nn_ops/fused_optim.h>
#include <ember/kernels/common/kernel_registry.h>

#include <cmath>
#include <vector>

using namespace ember;

namespace {

const ScalarType kReducedFloats[] = {kBFloat16, kHalf};
const ScalarType kNarrowIntegers[] = {kByte, kChar, kShort, kInt};

// Values of t as doubles, NaN kept.
std::vector<double> as_doubles(const Tensor& t) { return ember_test::values(t.to(kDouble)); }

// Equal element for element, NaN equal to NaN.
bool same_values(const Tensor& a, const Tensor& b) {
  if (a.scalar_type() != b.scalar_type() || a.sizes() != b.sizes()) return false;
  const std::vector<double> x = as_doubles(a), y = as_doubles(b);
  for (size_t i = 0; i < x.size(); ++i)
    if (!(x[i] == y[i] || (std::isnan(x[i]) && std::isnan(y[i])))) return false;
  return true;
}

// (7, 5) values of dtype t: floats in (-2, 2), integers in [1, 30] (no zero
// divisors), strided (a transposed view) so the conversion tiles see strides.
Tensor sample(ScalarType t, uint64_t seed) {
  manual_seed(seed);
  if (is_floating_point(t)) return (rand({5, 7}, kFloat) * 4 - 2).to(t).t();
  return randint(1, 31, {5, 7}, kLong).to(t).t();
}

// Runs every binary, unary, compare and ternary row that takes t on (a, b, c)
// of dtype t and on their copies in `reference` (the compute dtype), and
// checks that each result is the reference's converted to the result's dtype.
// p: the unary and ternary parameter, alpha the binary one; compare rows
// compare a with `near` under rtol = atol = tol.
void check_rows(ScalarType t, ScalarType reference, const Tensor& a, const Tensor& b,
                const Tensor& c, const Tensor& near, const Scalar& p, double alpha, double tol) {
  const ElementwiseKernels& k = kernels().elementwise;
  const Device cpu(kCPU);
  const Tensor ar = a.to(reference), br = b.to(reference), cr = c.to(reference), nr = near.to(reference);
  for (int i = 0; i < kNumBinaryOps; ++i) {
    if (!accepts(kBinaryOpDtypes[i], t)) continue;
    const char* name = kBinaryOpNames[i];
    INFO("binary " << name << ", " << t);
    const Tensor out = empty({7, 5}, t), ref = empty({7, 5}, reference);
    k.binary.on(cpu, name)(name, BinaryOp(i), out, a, b, alpha);
    k.binary.on(cpu, name)(name, BinaryOp(i), ref, ar, br, alpha);
    CHECK(same_values(out, ref.to(t)));
  }
  for (int i = 0; i < kNumUnaryOps; ++i) {
    if (!accepts(kUnaryOpDtypes[i], t)) continue;
    const char* name = kUnaryOpNames[i];
    INFO("unary " << name << ", " << t);
    const bool to_bool = kUnaryOpOut[i] == UnaryOut::Bool;
    const Tensor out = empty({7, 5}, to_bool ? kBool : t), ref = empty({7, 5}, to_bool ? kBool : reference);
    k.unary.on(cpu, name)(name, UnaryOp(i), out, a, p, p, p);
    k.unary.on(cpu, name)(name, UnaryOp(i), ref, ar, p, p, p);
    CHECK(same_values(out, ref.to(out.scalar_type())));
  }
  for (int i = 0; i < kNumCompareOps; ++i) {
    if (!accepts(kCompareOpDtypes[i], t)) continue;
    const char* name = kCompareOpNames[i];
    INFO("compare " << name << ", " << t);
    const Tensor out = empty({7, 5}, kBool), ref = empty({7, 5}, kBool);
    k.compare.on(cpu, name)(name, CompareOp(i), out, a, near, tol, tol, false);
    k.compare.on(cpu, name)(name, CompareOp(i), ref, ar, nr, tol, tol, false);
    CHECK(same_values(out, ref));
  }
  for (int i = 0; i < kNumTernaryOps; ++i) {
    if (!accepts(kTernaryOpDtypes[i], t)) continue;
    const char* name = kTernaryOpNames[i];
    INFO("ternary " << name << ", " << t);
    const Tensor out = empty({7, 5}, t), ref = empty({7, 5}, reference);
    k.ternary.on(cpu, name)(name, TernaryOp(i), out, a, b, c, p);
    k.ternary.on(cpu, name)(name, TernaryOp(i), ref, ar, br, cr, p);
    CHECK(same_values(out, ref.to(t)));
  }
}

}  // namespace

TEST_CASE("every floating row on bfloat16/float16 is its float32 result rounded once", "[dtype]") {
  const ElementwiseKernels& k = kernels().elementwise;
  const Device cpu(kCPU);
  for (ScalarType t : kReducedFloats) {
    const Tensor a = sample(t, 1), b = sample(t, 2), c = sample(t, 3);
    check_rows(t, kFloat, a, b, c, (a * 0.5 + b * 0.5).to(t), 0.5, 0.5, 0.1);
    const Tensor cf = c.to(kFloat);
    for (int i = 0; i < kNumLossOps; ++i) {
      const char* name = kLossOpNames[i];
      INFO("loss " << name << ", " << t);
      // Probabilities in (0, 1) for the cross-entropies' inputs and targets.
      const Tensor pa = (a.abs() * 0.4 + 0.05).to(t), pb = (b.abs() * 0.4 + 0.05).to(t);
      const Tensor out = empty({7, 5}, t), ref = empty({7, 5}, kFloat);
      const Tensor paf = pa.to(kFloat), pbf = pb.to(kFloat);
      const int arity = kLossOpArity[i];
      const auto kernel = k.loss.on(cpu, name);
      if (arity == 1) kernel(name, LossOp(i), out, {&pa}), kernel(name, LossOp(i), ref, {&paf});
      if (arity == 2) kernel(name, LossOp(i), out, {&pa, &pb}), kernel(name, LossOp(i), ref, {&paf, &pbf});
      if (arity == 3) kernel(name, LossOp(i), out, {&pa, &pb, &c}), kernel(name, LossOp(i), ref, {&paf, &pbf, &cf});
      CHECK(same_values(out, ref.to(t)));
    }
  }
}

TEST_CASE("every integer row on uint8/int8/int16/int32 is its int64 result wrapped", "[dtype]") {
  for (ScalarType t : kNarrowIntegers) {
    const Tensor a = sample(t, 4), b = sample(t, 5), c = sample(t, 6);
    check_rows(t, kLong, a, b, c, b, 3, 3.0, 0.0);
  }
}

TEST_CASE("ops on the new dtypes promote as PyTorch and keep the narrow type", "[dtype]") {
  const Tensor u8 = tensor({250, 3}, kLong).to(kByte), i8 = tensor({-5, 7}, kLong).to(kChar);
  const Tensor i32 = tensor({100000, -3}, kLong).to(kInt);
  const Tensor bf = tensor({1.5, -2.0}, kDouble).to(kBFloat16), f16 = tensor({0.25, 3.0}, kDouble).to(kHalf);

  const Tensor wrapped = u8 + u8;  // uint8 arithmetic wraps
  CHECK(wrapped.scalar_type() == kByte);
  CHECK(as_doubles(wrapped) == std::vector<double>{244, 6});
  CHECK((u8 + i8).scalar_type() == kShort);
  CHECK(as_doubles(u8 + i8) == std::vector<double>{245, 10});
  CHECK((i32 * i32).scalar_type() == kInt);
  CHECK(as_doubles(i32 * i32) == std::vector<double>{1410065408, 9});  // 10^10 mod 2^32
  CHECK((i32 + tensor({1}, kLong)).scalar_type() == kLong);
  CHECK((bf + f16).scalar_type() == kFloat);
  CHECK(as_doubles(bf + f16) == std::vector<double>{1.75, 1.0});
  CHECK((bf * 2.5).scalar_type() == kBFloat16);
  CHECK((i32 * 1.5).scalar_type() == kFloat);
  CHECK((u8 + 300).scalar_type() == kByte);  // the scalar wraps to 44, as in PyTorch
  CHECK(as_doubles(u8 + 300) == std::vector<double>{38, 47});
  CHECK(std::isinf(as_doubles(f16 + 1e6)[0]));  // beyond float16: +inf
  CHECK((u8 / u8).scalar_type() == kFloat);     // true division
  CHECK((bf / bf).scalar_type() == kBFloat16);
  CHECK((u8 > 100).scalar_type() == kBool);
  CHECK(as_doubles(u8 > 100) == std::vector<double>{1, 0});
  CHECK(as_doubles(i8.abs()) == std::vector<double>{5, 7});
  CHECK(bf.exp().scalar_type() == kBFloat16);
  CHECK(i32.sqrt().scalar_type() == kFloat);
  CHECK(as_doubles(where(i8 > 0, i8, u8.to(kChar))) == std::vector<double>{-6, 7});

  Tensor acc = zeros({2}, kBFloat16);
  acc += bf;
  acc.mul_(2);
  CHECK(as_doubles(acc) == std::vector<double>{3.0, -4.0});
}

TEST_CASE("reductions of bfloat16 and float16 accumulate in float, of narrow integers in int64", "[dtype]") {
  // 3000 ones: a bfloat16 accumulator would stop at 256 (256 + 1 rounds to 256).
  const Tensor ones_bf = ones({3000}, kBFloat16);
  CHECK(ones_bf.sum().scalar_type() == kBFloat16);
  CHECK(ones_bf.sum().item<double>() == 3008);  // 3000 rounded to bfloat16 (8 significant bits)
  CHECK(ones({3000}, kHalf).sum().item<double>() == 3000);
  CHECK(ones_bf.mean().item<double>() == 1.0);
  const Tensor bf = tensor({{1.5, -2.0, 4.0}, {0.5, 8.0, -1.0}}, kDouble).to(kBFloat16);
  CHECK(as_doubles(bf.sum(0)) == std::vector<double>{2.0, 6.0, 3.0});
  CHECK(as_doubles(bf.amax(1)) == std::vector<double>{4.0, 8.0});
  CHECK(bf.max().item<double>() == 8.0);
  CHECK(bf.prod().item<double>() == static_cast<float>(BFloat16(1.5f * -2 * 4 * 0.5f * 8 * -1)));
  CHECK(std::abs(bf.to(kFloat).std().item<double>() - bf.std().item<double>()) < 0.05);

  const Tensor u8 = full({1000}, 200, kByte);
  CHECK(u8.sum().scalar_type() == kLong);  // integer sums widen to int64, as PyTorch
  CHECK(u8.sum().item<int64_t>() == 200000);
  CHECK(full({70000}, 100000, kInt).sum().item<int64_t>() == int64_t(7000000000));
  CHECK(as_doubles(tensor({{-5, 7}, {3, -9}}, kLong).to(kChar).amin(0)) == std::vector<double>{-5, -9});
  CHECK(tensor({-5, 7}, kLong).to(kChar).amin(0).scalar_type() == kChar);
  CHECK(u8.to(kBool).all().item<bool>());
}

TEST_CASE("autograd runs in bfloat16: gradients of the leaf's dtype", "[dtype]") {
  const Tensor x = tensor({1.0, -2.0, 3.0}, kDouble).to(kBFloat16).requires_grad_();
  const Tensor y = (x * x + x.exp()).sum();
  CHECK(y.scalar_type() == kBFloat16);
  y.backward();
  REQUIRE(x.grad().defined());
  CHECK(x.grad().scalar_type() == kBFloat16);
  // d/dx (x^2 + e^x) = 2x + e^x, each term rounded to bfloat16 as the ops store it.
  const std::vector<double> g = as_doubles(x.grad());
  const double xs[] = {1.0, -2.0, 3.0};
  for (size_t i = 0; i < 3; ++i) {
    const double want = 2 * xs[i] + std::exp(xs[i]);
    CHECK(std::abs(g[i] - want) <= std::abs(want) * 0.01);
  }
  // A float32 leaf cast to bfloat16 gets a float32 gradient.
  const Tensor w = tensor({0.5f, 0.25f}).requires_grad_();
  (w.to(kBFloat16) * 4).sum().backward();
  CHECK(w.grad().scalar_type() == kFloat);
  CHECK(as_doubles(w.grad()) == std::vector<double>{4, 4});
}

TEST_CASE("index ops move and accumulate the new dtypes", "[dtype]") {
  for (ScalarType t : {kByte, kChar, kShort, kInt, kHalf, kBFloat16}) {
    INFO(t);
    const Tensor self = tensor({{1, 2, 3}, {4, 5, 6}}, kLong).to(t);
    const Tensor index = tensor({{2, 0}, {1, 1}}, kLong);
    CHECK(as_doubles(self.gather(1, index)) == std::vector<double>{3, 1, 5, 5});
    CHECK(self.gather(1, index).scalar_type() == t);
    CHECK(as_doubles(self.index_select(1, tensor({2, 0}, kLong))) == std::vector<double>{3, 1, 6, 4});
    CHECK(as_doubles(self.t().index_select(0, tensor({2}, kLong))) == std::vector<double>{3, 6});
    const Tensor src = tensor({{10, 20}, {30, 40}}, kLong).to(t);
    CHECK(as_doubles(zeros({2, 3}, t).scatter(1, index, src)) == std::vector<double>{20, 0, 10, 0, 40, 0});
    // Repeated positions accumulate: row 1 gets 30 + 40 at column 1.
    CHECK(as_doubles(zeros({2, 3}, t).scatter_add(1, index, src)) ==
          std::vector<double>{20, 0, 10, 0, 70, 0});
    CHECK(as_doubles(self.scatter_reduce(1, index, src, "amax", /*include_self=*/false)) ==
          std::vector<double>{20, 2, 10, 4, 40, 6});
    CHECK(as_doubles(self.scatter_reduce(1, index, src, "amin", /*include_self=*/false)) ==
          std::vector<double>{20, 2, 10, 4, 30, 6});
    CHECK(as_doubles(cat({self, self.narrow(1, 0, 1)}, 1)) ==
          std::vector<double>{1, 2, 3, 1, 4, 5, 6, 4});
    CHECK(as_doubles(self.masked_fill(self > 3, 0)) == std::vector<double>{1, 2, 3, 0, 0, 0});
  }
  // bfloat16 scatter_add rounds after each add, as its += does: 256 + 1 stays 256.
  const Tensor acc = full({1}, 256, kBFloat16).scatter_add(0, zeros({2}, kLong), ones({2}, kBFloat16));
  CHECK(acc.item<double>() == 256);
}

TEST_CASE("families through compute-dtype copies: the float32 result rounded once", "[dtype]") {
  manual_seed(21);
  namespace F = nn::functional;
  const Tensor x = randn({2, 3, 8, 8}), w = randn({4, 3, 3, 3}) * 0.2;
  for (ScalarType t : kReducedFloats) {
    INFO(t);
    const Tensor xt = x.to(t), wt = w.to(t), xf = xt.to(kFloat), wf = wt.to(kFloat);
    auto rounded = [&](const Tensor& f) { return f.to(t); };
    CHECK(same_values(xt.softmax(1), rounded(xf.softmax(1))));
    CHECK(same_values(xt.log_softmax(-1), rounded(xf.log_softmax(-1))));
    CHECK(same_values(F::max_pool2d(xt, F::MaxPool2dFuncOptions(2)), rounded(F::max_pool2d(xf, F::MaxPool2dFuncOptions(2)))));
    CHECK(same_values(F::avg_pool2d(xt, F::AvgPool2dFuncOptions(2)), rounded(F::avg_pool2d(xf, F::AvgPool2dFuncOptions(2)))));
    if (t == kHalf) {  // bfloat16 has its own conv passes (conv_test.cpp)
      CHECK(same_values(F::conv2d(xt, wt, F::Conv2dFuncOptions().padding(1)),
                        rounded(F::conv2d(xf, wf, F::Conv2dFuncOptions().padding(1)))));
    }
    CHECK(same_values(F::layer_norm(xt, F::LayerNormFuncOptions({8})), rounded(F::layer_norm(xf, F::LayerNormFuncOptions({8})))));
    CHECK(same_values(xt.cumsum(-1), rounded(xf.cumsum(-1))));
    CHECK(same_values(std::get<0>(xt.sort(-1)), rounded(std::get<0>(xf.sort(-1)))));
    CHECK(equal(xt.argmax(1), xf.argmax(1)));
    // Batch norm in training: the output and the running statistics (float32, as PyTorch
    // keeps them next to a bfloat16 input) from the float32 computation.
    const Tensor mean_t = zeros({3}), var_t = ones({3}), mean_f = zeros({3}), var_f = ones({3});
    const Tensor y = F::batch_norm(xt, mean_t, var_t, F::BatchNormFuncOptions().training(true));
    const Tensor yf = F::batch_norm(xf, mean_f, var_f, F::BatchNormFuncOptions().training(true));
    CHECK(y.scalar_type() == t);
    CHECK(same_values(y, rounded(yf)));
    CHECK(same_values(mean_t, mean_f));
    // The affine parameters stay float32 and get float32 gradients.
    const Tensor gamma = ones({3}).requires_grad_(), beta = zeros({3}).requires_grad_();
    F::batch_norm(xt, Tensor(), Tensor(), F::BatchNormFuncOptions().weight(gamma).bias(beta).training(true))
        .square().sum().backward();
    CHECK(gamma.grad().scalar_type() == kFloat);
    CHECK(beta.grad().scalar_type() == kFloat);
    // Cross-entropy and its gradient.
    const Tensor logits = xt.flatten(1).narrow(1, 0, 10).detach().requires_grad_();
    const Tensor target = tensor({3, 7}, kLong);
    const Tensor loss = F::cross_entropy(logits, target);
    CHECK(loss.scalar_type() == t);
    loss.backward();
    CHECK(logits.grad().scalar_type() == t);
  }
  const Tensor ints = randint(-50, 50, {4, 9}).to(kInt);
  CHECK(equal(std::get<0>(ints.sort(1)).to(kLong), std::get<0>(ints.to(kLong).sort(1))));
  CHECK(equal(ints.argmax(1), ints.to(kLong).argmax(1)));
  CHECK(equal(ints.cumsum(1).to(kLong), ints.to(kLong).cumsum(1)));
}

// The fused optimizer updates take 16-bit parameters and state themselves (no
// float32 copies): each element is read as float, updated by the float32 rule
// and rounded once, so every tensor they write is the float32 update of the
// widened values, rounded. Checked on every rule's flags, gated steps included.
TEST_CASE("optimizer updates on bfloat16/float16 are the float32 update rounded once", "[dtype]") {
  manual_seed(5);
  // 1027 elements: more than one vector block, an odd tail.
  auto positive = [](ScalarType t) { return (rand({1027}) + 0.05).to(t); };
  for (ScalarType t : kReducedFloats) {
    INFO(t);
    const Tensor p = randn({1027}).to(t), g = randn({1027}).to(t), s1 = randn({1027}).to(t);
    const Tensor s2 = positive(t), s3 = positive(t);
    // Runs update(param, grad, state1, state2, state3) on copies in dtype t
    // and in float32, then compares every tensor, bits and all.
    auto check = [&](const char* what, auto update) {
      INFO(what);
      std::vector<Tensor> low = {p.clone(), g.clone(), s1.clone(), s2.clone(), s3.clone()};
      std::vector<Tensor> wide;
      for (const Tensor& x : low) wide.push_back(x.to(kFloat));
      update(low);
      update(wide);
      for (size_t i = 0; i < low.size(); ++i) {
        INFO("operand " << i);
        CHECK(same_values(low[i], wide[i].to(t)));
      }
      CHECK_FALSE(same_values(low[0], p));  // the update moved the parameter
    };
    using V = std::vector<Tensor>;
    for (bool nesterov : {false, true})
      check("sgd", [&](V& x) {
        fused::sgd_step_(x[0], x[1], x[2], {0.1, 0.9, nesterov ? 0.0 : 0.3, 0.01, nesterov}, false);
      });
    check("sgd first step",
          [&](V& x) { fused::sgd_step_(x[0], x[1], x[2], {0.1, 0.9, 0.3, 0, false}, true); });
    for (bool amsgrad : {false, true})
      for (bool decoupled : {false, true})
        check("adam", [&](V& x) {
          fused::adam_step_(x[0], x[1], x[2], x[3], x[4],
                            {1e-2, 0.9, 0.999, 1e-8, 0.1, amsgrad, decoupled, /*step=*/3});
        });
    for (bool centered : {false, true})
      check("rmsprop", [&](V& x) {
        fused::rmsprop_step_(x[0], x[1], x[3], x[2], x[4], {1e-2, 0.99, 1e-8, 0.1, 0.9, centered});
      });
    check("adagrad",
          [&](V& x) { fused::adagrad_step_(x[0], x[1], x[3], {0.1, 0.01, 0.1, 1e-10, 4}); });
    check("adam, gated, step count 2", [&](V& x) {
      const StepGate gate{zeros({}), full({}, int64_t{2}, kLong)};
      fused::adam_step_(x[0], x[1], x[2], x[3], Tensor(),
                        {1e-2, 0.9, 0.999, 1e-8, 0, false, false, 0}, gate);
    });
  }
  // A state of another dtype than its parameter is an Error naming both.
  const Tensor p = zeros({3}, kBFloat16), g = zeros({3}, kBFloat16);
  CHECK_THROWS_WITH(fused::adagrad_step_(p, g, zeros({3}), {0.1, 0, 0, 1e-10, 1}),
                    Catch::Contains("adagrad_update: the parameter is bfloat16") &&
                        Catch::Contains("its gradient or state is float32"));
}
