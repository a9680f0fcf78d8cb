// The activations of core/ops/elementwise/activation.h and nn::functional, and their
// nn layers: values against the formulas in float64, edge values and the
// gradient at each kink against PyTorch 1.13, gradients (gradcheck /
// gradgradcheck) away from the kinks, options, in-place forms and errors.
#include "test_helpers.h"

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <string>

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using Catch::Contains;
using ember_test::require_values;
using ember_test::values;
namespace F = ember::nn::functional;

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

using UnaryFn = std::function<Tensor(const Tensor&)>;
using RefFn = std::function<double(double)>;

double sigmoid_ref(double x) { return 1 / (1 + std::exp(-x)); }
double softplus_ref(double x, double beta, double threshold) {
  return x * beta > threshold ? x : std::log1p(std::exp(beta * x)) / beta;
}
double elu_ref(double x, double alpha) { return x > 0 ? x : alpha * std::expm1(x); }
double relu6_ref(double x) { return std::min(std::max(x, 0.0), 6.0); }

struct Activation {
  std::string name;
  UnaryFn op;
  RefFn ref;
};

// Each activation through the public API a user calls, with its formula.
std::vector<Activation> activations() {
  return {
      {"silu", [](const Tensor& x) { return F::silu(x); },
       [](double x) { return x * sigmoid_ref(x); }},
      {"mish", [](const Tensor& x) { return F::mish(x); },
       [](double x) { return x * std::tanh(std::log1p(std::exp(x))); }},
      {"elu", [](const Tensor& x) { return F::elu(x, F::ELUFuncOptions().alpha(0.5)); },
       [](double x) { return elu_ref(x, 0.5); }},
      {"selu", [](const Tensor& x) { return F::selu(x); },
       [](double x) { return kSeluScale * elu_ref(x, kSeluAlpha); }},
      {"celu", [](const Tensor& x) { return F::celu(x, F::CELUFuncOptions().alpha(2.0)); },
       [](double x) { return x > 0 ? x : 2.0 * std::expm1(x / 2.0); }},
      {"softplus",
       [](const Tensor& x) { return F::softplus(x, F::SoftplusFuncOptions().beta(2).threshold(10)); },
       [](double x) { return softplus_ref(x, 2, 10); }},
      {"hardtanh",
       [](const Tensor& x) { return F::hardtanh(x, F::HardtanhFuncOptions().min_val(-1.5).max_val(2)); },
       [](double x) { return std::min(std::max(x, -1.5), 2.0); }},
      {"relu6", [](const Tensor& x) { return F::relu6(x); }, relu6_ref},
      {"hardsigmoid", [](const Tensor& x) { return F::hardsigmoid(x); },
       [](double x) { return relu6_ref(x + 3) / 6; }},
      {"hardswish", [](const Tensor& x) { return F::hardswish(x); },
       [](double x) { return x * relu6_ref(x + 3) / 6; }},
      {"logsigmoid", [](const Tensor& x) { return F::logsigmoid(x); },
       [](double x) { return -std::log1p(std::exp(-x)); }},
      {"softsign", [](const Tensor& x) { return F::softsign(x); },
       [](double x) { return x / (1 + std::abs(x)); }},
      {"tanhshrink", [](const Tensor& x) { return F::tanhshrink(x); },
       [](double x) { return x - std::tanh(x); }},
      {"softshrink", [](const Tensor& x) { return F::softshrink(x, 0.5); },
       [](double x) { return x > 0.5 ? x - 0.5 : (x < -0.5 ? x + 0.5 : 0.0); }},
      {"hardshrink", [](const Tensor& x) { return F::hardshrink(x, 0.5); },
       [](double x) { return std::abs(x) > 0.5 ? x : 0.0; }},
  };
}

// (12) float64 values 0.02 or more from every kink of the activations above
// and of their default options (0, +-0.5, +-1, -1.5, 2, +-3, 6).
Tensor smooth_inputs() {
  return (tensor({-3.7, -2.6, -1.3, -0.8, -0.3, 0.2, 0.7, 1.1, 1.6, 2.4, 3.4, 6.5}, kDouble) +
          rand({12}, kDouble) * 0.05)
      .detach();
}

Tensor leaf(const Tensor& t) { return t.detach().requires_grad_(); }

// The gradient of sum(f(x)) at the values xs.
std::vector<double> grad_at(const UnaryFn& f, const std::vector<double>& xs) {
  Tensor x = tensor(xs, kDouble).requires_grad_();
  f(x).sum().backward();
  return values(x.grad());
}

}  // namespace

TEST_CASE("activations match their formulas in float32 and float64", "[activation]") {
  const std::vector<double> in{-30.0, -7.5, -3.0, -2.2, -1.0, -0.4, 0.0,
                               0.3,   0.9,  2.0,  3.0,  4.5,  6.2,  25.0};
  for (const Activation& a : activations()) {
    for (ScalarType dtype : {kFloat, kDouble}) {
      INFO(a.name << " in " << dtype);
      Tensor y = a.op(tensor(in, dtype));
      REQUIRE(y.scalar_type() == dtype);
      std::vector<double> want;
      for (double v : in) want.push_back(a.ref(v));
      require_values(y, want, dtype == kFloat ? 2e-6 : 1e-14);
    }
  }
}

TEST_CASE("activations at 0, +-inf, NaN, +-1e300 and +-0.5, +-1, +-2.5 match PyTorch, value "
          "and gradient",
          "[activation]") {
  const std::vector<double> in{0.0, -0.0, kInf, -kInf, kNan, 1e300, -1e300,
                               2.5, -2.5, 0.5, -0.5, 1.0, -1.0};
  // Computed with torch 1.13.1 (float64, CPU) and the options of activations():
  // y = f(x); y.sum().backward(); x.grad. The gradient at NaN is not compared:
  // PyTorch's differs between its vectorized and scalar loops. PyTorch's
  // hardsigmoid gradient is the float32 constant 1/6 (0.1666666716...), hence
  // the tolerance of 1e-7.
  struct Expected {
    std::vector<double> value, grad;
  };
  const std::map<std::string, Expected> expected = {
      {"silu", {{0.0, -0.0, kInf, kNan, kNan, 1e+300, -0.0, 2.3103545499468914, -0.18964545005310887, 0.3112296656009273, -0.1887703343990727, 0.7310585786300049, -0.2689414213699951},
                {0.5, 0.5, kNan, kNan, kNan, 1.0, -0.0, 1.0994011113415267, -0.09940111134152683, 0.7399611873026519, 0.2600388126973482, 0.9276705118714869, 0.07232948812851325}}},
      {"mish", {{0.0, -0.0, kInf, kNan, kNan, 1e+300, -0.0, 2.471392304557881, -0.19681620390653337, 0.3752452113048951, -0.22074377465173, 0.8650983882673103, -0.30340146137410895},
                {0.6, 0.6, kNan, kNan, kNan, 1.0, 0.0, 1.041129530131353, -0.10974357275018566, 0.8864243753577272, 0.28951067791351226, 1.0490362200997922, 0.059216755877395014}}},
      {"elu", {{0.0, 0.0, kInf, -0.5, kNan, 1e+300, -0.5, 2.5, -0.4589575006880506, 0.5, -0.1967346701436833, 1.0, -0.31606027941427883},
               {0.5, 0.5, 1.0, 0.0, kNan, 1.0, 0.0, 1.0, 0.0410424993119494, 1.0, 0.3032653298563167, 1.0, 0.18393972058572117}}},
      {"selu", {{0.0, 0.0, kInf, -1.7580993408473766, kNan, 1.0507009873554805e+300, -1.7580993408473766, 2.626752468388701, -1.6137857588732423, 0.5253504936777402, -0.6917581878028713, 1.0507009873554805, -1.1113307378125625},
                {1.7580993408473766, 1.7580993408473766, 1.0507009873554805, 0.0, kNan, 1.0507009873554805, 0.0, 1.0507009873554805, 0.1443135819741343, 1.0507009873554805, 1.0663411530445053, 1.0507009873554805, 0.646768603034814}}},
      {"celu", {{0.0, 0.0, kInf, -2.0, kNan, 1e+300, -2.0, 2.5, -1.4269904062796197, 0.5, -0.44239843385719024, 1.0, -0.7869386805747332},
                {1.0, 1.0, 1.0, 0.0, kNan, 1.0, 0.0, 1.0, 0.2865047968601901, 1.0, 0.7788007830714049, 1.0, 0.6065306597126334}}},
      {"softplus", {{0.34657359027997264, 0.34657359027997264, kInf, 0.0, kNan, 1e+300, 0.0, 2.503357674244559, 0.003357674244559034, 0.6566308437591114, 0.15663084375911143, 1.0634640055214863, 0.06346400552148625},
                    {0.5, 0.5, 1.0, 0.0, kNan, 1.0, 0.0, 0.9933071490757152, 0.006692850924284856, 0.7310585786300049, 0.2689414213699951, 0.8807970779778824, 0.11920292202211755}}},
      {"hardtanh", {{0.0, -0.0, 2.0, -1.5, kNan, 2.0, -1.5, 2.0, -1.5, 0.5, -0.5, 1.0, -1.0},
                    {1.0, 1.0, 0.0, 0.0, kNan, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0}}},
      {"relu6", {{0.0, -0.0, 6.0, 0.0, kNan, 6.0, 0.0, 2.5, 0.0, 0.5, 0.0, 1.0, 0.0},
                 {0.0, 0.0, 0.0, 0.0, kNan, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0}}},
      {"hardsigmoid", {{0.5, 0.5, 1.0, 0.0, kNan, 1.0, 0.0, 0.9166666666666666, 0.08333333333333333, 0.5833333333333334, 0.4166666666666667, 0.6666666666666666, 0.3333333333333333},
                       {0.1666666716337204, 0.1666666716337204, 0.0, 0.0, kNan, 0.0, 0.0, 0.1666666716337204, 0.1666666716337204, 0.1666666716337204, 0.1666666716337204, 0.1666666716337204, 0.1666666716337204}}},
      {"hardswish", {{0.0, -0.0, kInf, kNan, kNan, 1e+300, -0.0, 2.2916666666666665, -0.20833333333333334, 0.2916666666666667, -0.20833333333333334, 0.6666666666666666, -0.3333333333333333},
                     {0.5, 0.5, 1.0, 0.0, kNan, 1.0, 0.0, 1.3333333333333335, -0.33333333333333337, 0.6666666666666666, 0.33333333333333337, 0.8333333333333333, 0.16666666666666669}}},
      {"logsigmoid", {{-0.6931471805599453, -0.6931471805599453, 0.0, -kInf, kNan, 0.0, -1e+300, -0.07888973429254963, -2.5788897342925496, -0.4740769841801067, -0.9740769841801067, -0.31326168751822286, -1.3132616875182228},
                      {0.5, 0.5, 0.0, 1.0, kNan, 0.0, 1.0, 0.07585818002124356, 0.9241418199787564, 0.37754066879814546, 0.6224593312018545, 0.2689414213699951, 0.7310585786300049}}},
      {"softsign", {{0.0, -0.0, kNan, kNan, kNan, 1.0, -1.0, 0.7142857142857143, -0.7142857142857143, 0.3333333333333333, -0.3333333333333333, 0.5, -0.5},
                    {1.0, 1.0, kNan, kNan, kNan, 0.0, 0.0, 0.08163265306122447, 0.08163265306122447, 0.4444444444444444, 0.4444444444444444, 0.25, 0.25}}},
      {"tanhshrink", {{0.0, 0.0, kInf, -kInf, kNan, 1e+300, -1e+300, 1.5133857018485697, -1.5133857018485697, 0.03788284273999026, -0.03788284273999026, 0.23840584404423515, -0.23840584404423515},
                      {0.0, 0.0, 1.0, 1.0, kNan, 1.0, 1.0, 0.9734077733168395, 0.9734077733168395, 0.2135522670340726, 0.2135522670340726, 0.5800256583859739, 0.5800256583859739}}},
      {"softshrink", {{0.0, 0.0, kInf, -kInf, 0.0, 1e+300, -1e+300, 2.0, -2.0, 0.0, 0.0, 0.5, -0.5},
                      {0.0, 0.0, 1.0, 1.0, kNan, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0}}},
      {"hardshrink", {{0.0, 0.0, kInf, -kInf, kNan, 1e+300, -1e+300, 2.5, -2.5, 0.0, 0.0, 1.0, -1.0},
                      {0.0, 0.0, 1.0, 1.0, kNan, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0}}},
  };
  REQUIRE(expected.size() == activations().size());
  for (const Activation& a : activations()) {
    INFO(a.name);
    const Expected& e = expected.at(a.name);
    Tensor x = tensor(in, kDouble).requires_grad_();
    Tensor y = a.op(x);
    require_values(y, e.value, 1e-7);
    y.sum().backward();
    std::vector<double> grad = values(x.grad()), want = e.grad;
    grad.erase(grad.begin() + 4);  // the NaN input
    want.erase(want.begin() + 4);
    require_values(tensor(grad, kDouble), want, 1e-7);
  }
}

TEST_CASE("gradients at the kinks follow PyTorch 1.13", "[activation]") {
  // Each expected gradient computed with torch 1.13.1 (float64, CPU).
  CHECK(grad_at([](const Tensor& x) { return hardtanh(x); }, {-1.0, 1.0, 0.5}) ==
        std::vector<double>{0, 0, 1});
  CHECK(grad_at([](const Tensor& x) { return relu6(x); }, {0.0, 6.0, 3.0}) ==
        std::vector<double>{0, 0, 1});
  CHECK(grad_at([](const Tensor& x) { return hardswish(x); }, {-3.0, 3.0, 0.0}) ==
        std::vector<double>{-0.5, 1.5, 0.5});
  CHECK(grad_at([](const Tensor& x) { return hardsigmoid(x); }, {-3.0, 3.0}) ==
        std::vector<double>{0, 0});
  CHECK(grad_at([](const Tensor& x) { return elu(x, 0.5); }, {0.0}) == std::vector<double>{0.5});
  CHECK(grad_at([](const Tensor& x) { return celu(x, 2.0); }, {0.0}) == std::vector<double>{1});
  CHECK(grad_at([](const Tensor& x) { return softshrink(x, 0.5); }, {0.5, -0.5, 0.7}) ==
        std::vector<double>{0, 0, 1});
  CHECK(grad_at([](const Tensor& x) { return hardshrink(x, 0.5); }, {0.5, -0.5, 0.7}) ==
        std::vector<double>{0, 0, 1});
  // softplus(beta 2, threshold 10): identity with gradient 1 where beta x > threshold only.
  Tensor x = tensor({5.0, 5.0001, 4.9}, kDouble).requires_grad_();
  Tensor y = softplus(x, 2, 10);
  require_values(y, {5.000022699449609, 5.0001, 4.900027725031025}, 1e-15);
  y.sum().backward();
  require_values(x.grad(), {0.9999546021312976, 1.0, 0.9999445514752772}, 1e-15);
}

TEST_CASE("activations pass gradcheck and gradgradcheck away from their kinks", "[activation]") {
  std::vector<Activation> cases = activations();
  cases.push_back({"elu default", [](const Tensor& x) { return elu(x); }, nullptr});
  cases.push_back({"hardtanh default", [](const Tensor& x) { return hardtanh(x); }, nullptr});
  cases.push_back({"softplus threshold 5", [](const Tensor& x) { return softplus(x, 2, 5); },
                   nullptr});
  for (const Activation& a : cases) {
    INFO(a.name);
    Tensor base = smooth_inputs();
    auto fn = [&a](const tensor_list& in) { return a.op(in[0]); };
    REQUIRE_GRADCHECK(gradcheck(fn, {leaf(base)}));
    REQUIRE_GRADCHECK(gradcheck(fn, {leaf(base.reshape({3, 4}).t())}));  // non-contiguous
    REQUIRE_GRADCHECK(gradgradcheck(fn, {leaf(base)}));
  }
}

TEST_CASE("the torch:: free functions equal nn::functional's", "[activation]") {
  const Tensor x = smooth_inputs();
  require_values(silu(x), values(F::silu(x)), 0);
  require_values(mish(x), values(F::mish(x)), 0);
  require_values(elu(x, 0.3), values(F::elu(x, F::ELUFuncOptions().alpha(0.3))), 0);
  require_values(selu(x), values(F::selu(x)), 0);
  require_values(celu(x, 0.7), values(F::celu(x, F::CELUFuncOptions().alpha(0.7))), 0);
  require_values(softplus(x), values(F::softplus(x)), 0);
  require_values(hardtanh(x, -2, 2.5),
                 values(F::hardtanh(x, F::HardtanhFuncOptions().min_val(-2).max_val(2.5))), 0);
  require_values(relu6(x), values(F::relu6(x)), 0);
  require_values(log_sigmoid(x), values(F::logsigmoid(x)), 0);
  require_values(softshrink(x, 1.2), values(F::softshrink(x, 1.2)), 0);
  require_values(x.hardshrink(1.2), values(F::hardshrink(x, 1.2)), 0);
  require_values(hardshrink(x), values(F::hardshrink(x)), 0);
}

TEST_CASE("hardtanh and relu6 keep int64, as PyTorch", "[activation]") {
  Tensor i = tensor({-3, 0, 2, 9}, kLong);
  REQUIRE(hardtanh(i).scalar_type() == kLong);
  REQUIRE(values(hardtanh(i)) == std::vector<double>{-1, 0, 1, 1});
  REQUIRE(values(relu6(i)) == std::vector<double>{0, 0, 2, 6});
}

TEST_CASE("activations of float32 stay float32; of an empty tensor, empty", "[activation]") {
  for (const Activation& a : activations()) {
    INFO(a.name);
    REQUIRE(a.op(ones({2})).scalar_type() == kFloat);
    REQUIRE(a.op(empty({0, 3})).sizes() == IntArrayRef{0, 3});
  }
}

TEST_CASE("activations PyTorch defines for floating inputs only reject int64, naming the op",
          "[activation]") {
  const Tensor i = tensor({1, 2}, kLong);
  REQUIRE_THROWS_WITH(silu(i), Contains("silu: dtype int64 is not supported"));
  REQUIRE_THROWS_WITH(mish(i), Contains("mish: dtype int64 is not supported"));
  REQUIRE_THROWS_WITH(elu(i), Contains("elu: dtype int64 is not supported"));
  REQUIRE_THROWS_WITH(selu(i), Contains("selu: dtype int64 is not supported"));
  REQUIRE_THROWS_WITH(celu(i), Contains("celu: dtype int64 is not supported"));
  REQUIRE_THROWS_WITH(softplus(i), Contains("softplus: dtype int64 is not supported"));
  REQUIRE_THROWS_WITH(hardsigmoid(i), Contains("hardsigmoid: dtype int64 is not supported"));
  REQUIRE_THROWS_WITH(hardswish(i), Contains("hardswish: dtype int64 is not supported"));
  REQUIRE_THROWS_WITH(log_sigmoid(i), Contains("log_sigmoid: dtype int64 is not supported"));
  REQUIRE_THROWS_WITH(softshrink(i), Contains("softshrink: dtype int64 is not supported"));
  REQUIRE_THROWS_WITH(hardshrink(i), Contains("hardshrink: dtype int64 is not supported"));
  REQUIRE_THROWS_WITH(hardtanh(tensor({true})), Contains("hardtanh: dtype bool is not supported"));
}

TEST_CASE("softshrink refuses a negative lambda and celu an alpha of 0", "[activation]") {
  REQUIRE_THROWS_WITH(softshrink(ones({2}), -1.0),
                      Contains("softshrink: lambda must be greater or equal to 0") &&
                          Contains("-1"));
  REQUIRE_THROWS_WITH(celu(ones({2}), 0.0), Contains("celu: alpha cannot be 0"));
  REQUIRE_THROWS_WITH(nn::Hardtanh(nn::HardtanhOptions().min_val(1).max_val(1)),
                      Contains("Hardtanh: max_val (1) must be greater than min_val (1)"));
}

// ---- layers ----

TEST_CASE("activation layers compute their functional form with their options", "[activation]") {
  const Tensor x = smooth_inputs();
  auto same = [](const Tensor& got, const Tensor& want) { require_values(got, values(want), 0); };
  same(nn::SiLU()(x), F::silu(x));
  same(nn::Mish()(x), F::mish(x));
  same(nn::ELU(nn::ELUOptions().alpha(0.3))(x), F::elu(x, F::ELUFuncOptions().alpha(0.3)));
  same(nn::SELU()(x), F::selu(x));
  same(nn::CELU(nn::CELUOptions().alpha(0.7))(x), F::celu(x, F::CELUFuncOptions().alpha(0.7)));
  same(nn::Softplus(nn::SoftplusOptions().beta(3).threshold(4))(x),
       F::softplus(x, F::SoftplusFuncOptions().beta(3).threshold(4)));
  same(nn::Hardtanh(nn::HardtanhOptions().min_val(-2).max_val(3))(x),
       F::hardtanh(x, F::HardtanhFuncOptions().min_val(-2).max_val(3)));
  same(nn::ReLU6()(x), F::relu6(x));
  same(nn::Hardsigmoid()(x), F::hardsigmoid(x));
  same(nn::Hardswish()(x), F::hardswish(x));
  same(nn::LogSigmoid()(x), F::logsigmoid(x));
  same(nn::Softsign()(x), F::softsign(x));
  same(nn::Tanhshrink()(x), F::tanhshrink(x));
  same(nn::Softshrink(1.5)(x), F::softshrink(x, 1.5));
  same(nn::Hardshrink(1.5)(x), F::hardshrink(x, 1.5));
  same(nn::Softshrink()(x), F::softshrink(x, 0.5));
}

TEST_CASE("activation layers print their options", "[activation]") {
  auto str = [](const auto& m) {
    std::ostringstream s;
    m->pretty_print(s);
    return s.str();
  };
  CHECK(str(nn::SiLU()) == "SiLU()");
  CHECK(str(nn::ELU(nn::ELUOptions().alpha(0.5))) == "ELU(alpha=0.5)");
  CHECK(str(nn::Hardtanh()) == "Hardtanh(min_val=-1, max_val=1)");
  CHECK(str(nn::ReLU6(true)) == "ReLU6(inplace=true)");
  CHECK(str(nn::Softplus()) == "Softplus(beta=1, threshold=20)");
  CHECK(str(nn::Softshrink(0.25)) == "Softshrink(0.25)");
}

TEST_CASE("inplace elu, selu, celu, hardtanh and relu6 overwrite the input, bump its version "
          "and keep gradients right",
          "[activation]") {
  const std::vector<std::pair<std::string, std::function<Tensor(const Tensor&, bool)>>> ops{
      {"elu", [](const Tensor& x, bool ip) { return F::elu(x, F::ELUFuncOptions().inplace(ip)); }},
      {"selu", [](const Tensor& x, bool ip) { return F::selu(x, ip); }},
      {"celu", [](const Tensor& x, bool ip) { return F::celu(x, F::CELUFuncOptions().inplace(ip)); }},
      {"hardtanh",
       [](const Tensor& x, bool ip) { return F::hardtanh(x, F::HardtanhFuncOptions().inplace(ip)); }},
      {"relu6", [](const Tensor& x, bool ip) { return F::relu6(x, ip); }},
      {"ELU layer",
       [](const Tensor& x, bool ip) { return nn::ELU(nn::ELUOptions().inplace(ip))(x); }},
      {"ReLU6 layer", [](const Tensor& x, bool ip) { return nn::ReLU6(ip)(x); }},
  };
  for (const auto& [name, op] : ops) {
    INFO(name);
    Tensor x = smooth_inputs();
    const Tensor want = op(x, false);
    const uint32_t v = x._version();
    Tensor y = op(x, true);
    REQUIRE(x._version() > v);
    REQUIRE(y.data_ptr() == x.data_ptr());
    require_values(x, values(want), 0);
    auto fn = [op = op](const tensor_list& in) {
      Tensor t = in[0] * 1.0;  // a non-leaf
      op(t, true);
      return t * t;
    };
    REQUIRE_GRADCHECK(gradcheck(fn, {leaf(smooth_inputs())}));
  }
}
