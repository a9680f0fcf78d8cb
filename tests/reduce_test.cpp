// Reductions: sum, mean, sum_to, max/min, argmax/argmin, var/std, norm,
// all/any. Values are checked against float64 loops written here.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>

#include "test_helpers.h"

using namespace ember;
using ember_test::require_values;
using ember_test::values;

namespace {

using Group = std::vector<double>;

// Reference reduction: the elements of x grouped by their position over the
// dims not in `dims` (row-major order of those dims), each group reduced by f.
std::vector<double> naive_reduce(const Tensor& x, const std::vector<int64_t>& dims,
                                 const std::function<double(const Group&)>& f) {
  const std::vector<double> v = values(x);
  const int64_t nd = x.dim();
  std::vector<bool> reduced(static_cast<size_t>(nd), dims.empty());
  for (int64_t d : dims) reduced[static_cast<size_t>(d < 0 ? d + nd : d)] = true;
  int64_t groups = 1;
  for (int64_t d = 0; d < nd; ++d)
    if (!reduced[d]) groups *= x.size(d);
  std::vector<Group> members(static_cast<size_t>(groups));
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t rem = i, group = 0, scale = 1;
    for (int64_t d = nd - 1; d >= 0; --d) {
      const int64_t idx = rem % x.size(d);
      rem /= x.size(d);
      if (!reduced[d]) {
        group += idx * scale;
        scale *= x.size(d);
      }
    }
    members[group].push_back(v[i]);
  }
  std::vector<double> out;
  for (const Group& g : members) out.push_back(f(g));
  return out;
}

double sum_of(const Group& g) {
  double s = 0;
  for (double v : g) s += v;
  return s;
}
double mean_of(const Group& g) { return sum_of(g) / static_cast<double>(g.size()); }
double var_of(const Group& g, bool unbiased) {
  const double m = mean_of(g);
  double s = 0;
  for (double v : g) s += (v - m) * (v - m);
  return s / (static_cast<double>(g.size()) - (unbiased ? 1 : 0));
}
double pnorm_of(const Group& g, double p) {
  double s = 0;
  for (double v : g) s += std::pow(std::abs(v), p);
  return std::pow(s, 1 / p);
}
double max_of(const Group& g) { return *std::max_element(g.begin(), g.end()); }
double min_of(const Group& g) { return *std::min_element(g.begin(), g.end()); }
double argmax_of(const Group& g) {  // the first maximum
  return static_cast<double>(std::max_element(g.begin(), g.end()) - g.begin());
}


// The shape of x reduced over dims (all when empty).
std::vector<int64_t> reduced_shape(const Tensor& x, const std::vector<int64_t>& dims,
                                   bool keepdim) {
  std::vector<int64_t> shape;
  for (int64_t d = 0; d < x.dim(); ++d) {
    bool r = dims.empty();
    for (int64_t e : dims) r = r || e == d || e + x.dim() == d;
    if (!r)
      shape.push_back(x.size(d));
    else if (keepdim)
      shape.push_back(1);
  }
  return shape;
}

// Every non-empty subset of {0, 1, 2}.
const std::vector<std::vector<int64_t>> kDimSubsets = {{0},    {1},    {2},      {0, 1},
                                                       {0, 2}, {1, 2}, {0, 1, 2}};

Tensor random_double(std::vector<int64_t> shape) { return randn(shape, kDouble); }

}  // namespace

TEST_CASE("sum, mean, var, std and norm match float64 loops over every dim subset and keepdim",
          "[reduce]") {
  const Tensor x = random_double({3, 4, 5});
  for (const auto& dims : kDimSubsets) {
    for (bool keepdim : {false, true}) {
      INFO("dims " << IntArrayRef(dims) << " keepdim " << keepdim);
      const std::vector<int64_t> shape = reduced_shape(x, dims, keepdim);
      const Tensor s = x.sum(dims, keepdim);
      REQUIRE(s.sizes() == IntArrayRef(shape));
      require_values(s, naive_reduce(x, dims, sum_of));
      require_values(x.mean(dims, keepdim), naive_reduce(x, dims, mean_of));
      require_values(x.var(dims, true, keepdim),
                     naive_reduce(x, dims, [](const Group& g) { return var_of(g, true); }));
      require_values(x.var(dims, false, keepdim),
                     naive_reduce(x, dims, [](const Group& g) { return var_of(g, false); }));
      require_values(x.std(dims, true, keepdim), naive_reduce(x, dims, [](const Group& g) {
                       return std::sqrt(var_of(g, true));
                     }));
      for (double p : {1.0, 2.0, 3.0}) {
        INFO("p " << p);
        const Tensor n = x.norm(p, dims, keepdim);
        REQUIRE(n.sizes() == IntArrayRef(shape));
        require_values(n, naive_reduce(x, dims, [p](const Group& g) { return pnorm_of(g, p); }));
      }
    }
  }
}

TEST_CASE("amax, amin and the inf, -inf and 0 norms match float64 loops over every dim subset",
          "[reduce]") {
  const Tensor x = random_double({3, 4, 5});
  const auto abs_of = [](Group g) {
    for (double& v : g) v = std::abs(v);
    return g;
  };
  for (const auto& dims : kDimSubsets) {
    for (bool keepdim : {false, true}) {
      INFO("dims " << IntArrayRef(dims) << " keepdim " << keepdim);
      const Tensor a = x.amax(dims, keepdim);
      REQUIRE(a.sizes() == IntArrayRef(reduced_shape(x, dims, keepdim)));
      require_values(a, naive_reduce(x, dims, max_of));
      require_values(x.amin(dims, keepdim), naive_reduce(x, dims, min_of));
      require_values(x.norm(INFINITY, dims, keepdim),
                     naive_reduce(x, dims, [&](const Group& g) { return max_of(abs_of(g)); }));
      require_values(x.norm(-INFINITY, dims, keepdim),
                     naive_reduce(x, dims, [&](const Group& g) { return min_of(abs_of(g)); }));
    }
  }
  // The 0-norm counts nonzero elements, in the input's dtype.
  const Tensor z = tensor({{0.0, 2.0, -1.0}, {0.0, 0.0, 5.0}});
  REQUIRE(z.norm(0).scalar_type() == kFloat);
  require_values(z.norm(0), {3});
  require_values(z.norm(0, {1}), {2, 1});
  require_values(z.amax({0}), {0, 2, 5});
  require_values(tensor({3, 7, 2}, kLong).amin(), {2});
  REQUIRE(tensor({3, 7, 2}, kLong).amin().scalar_type() == kLong);
}

TEST_CASE("amax and amin split the gradient evenly between tied elements of each group",
          "[reduce]") {
  // Row 0 has max 3 twice, row 1 once; the column mins tie in column 1.
  const Tensor x = tensor({{3.0, 1.0, 3.0}, {0.0, 1.0, 2.0}}, kDouble).requires_grad_();
  (x.amax({1}) * tensor({10.0, 20.0}, kDouble)).sum().backward();
  require_values(x.grad(), {5, 0, 5, 0, 0, 20});
  const Tensor x2 = x.detach().clone().requires_grad_();
  x2.amin({0}, true).sum().backward();
  require_values(x2.grad(), {0, 0.5, 0, 1, 0.5, 1});
  // The inf-norm's gradient is sign(x) on the elements of largest |x|.
  const Tensor y = tensor({-4.0, 4.0, 1.0}, kDouble).requires_grad_();
  y.norm(INFINITY).backward();
  require_values(y.grad(), {-0.5, 0.5, 0});
  // The 0-norm is piecewise constant: a zero gradient that still reaches x.
  const Tensor w = tensor({1.0, 0.0, -2.0}, kDouble).requires_grad_();
  w.norm(0).backward();
  require_values(w.grad(), {0, 0, 0});
}

TEST_CASE("x.var(1) and x.std(-1) reduce over that dim; only a bool means unbiased, as libtorch",
          "[reduce]") {
  const Tensor x = arange(12, kDouble).reshape({3, 4});
  REQUIRE(x.std(1).sizes() == IntArrayRef({3}));
  require_values(x.var(1), {5.0 / 3, 5.0 / 3, 5.0 / 3});  // var of 4 consecutive integers
  REQUIRE(x.var(0).sizes() == IntArrayRef({4}));
  require_values(x.var(0), {16, 16, 16, 16});  // {0, 4, 8}: mean 4, (16 + 0 + 16) / 2
  REQUIRE(x.std(-1).sizes() == IntArrayRef({3}));
  require_values(x.var(false), naive_reduce(x, {}, [](const Group& g) { return var_of(g, false); }));
  REQUIRE(x.std(true).dim() == 0);
}

TEST_CASE("the p-norm's gradient for p < 1 is 0 at zero elements, not NaN", "[reduce]") {
  const Tensor x = tensor({1.0, -4.0, 0.0}, kDouble).requires_grad_();
  x.norm(0.5).backward();
  // n = (1 + 2)^2 = 9; dn/dx_i = sign(x_i) |x_i|^-0.5 n^0.5
  require_values(x.grad(), {3, -1.5, 0});
}

TEST_CASE("reductions without dims cover every element and give 0-d results", "[reduce]") {
  const Tensor x = random_double({3, 4, 5});
  REQUIRE(x.sum().dim() == 0);
  require_values(x.sum(), naive_reduce(x, {}, sum_of));
  require_values(x.mean(), naive_reduce(x, {}, mean_of));
  require_values(x.var(), naive_reduce(x, {}, [](const Group& g) { return var_of(g, true); }));
  require_values(x.std(false),
                 naive_reduce(x, {}, [](const Group& g) { return std::sqrt(var_of(g, false)); }));
  require_values(x.norm(), naive_reduce(x, {}, [](const Group& g) { return pnorm_of(g, 2); }));
  require_values(x.max(), naive_reduce(x, {}, max_of));
  require_values(x.min(), naive_reduce(x, {}, min_of));
  // An empty dim list also means every dim; keepdim keeps the rank.
  REQUIRE(x.sum(std::vector<int64_t>{}, true).sizes() == IntArrayRef({1, 1, 1}));
}

TEST_CASE("reductions of a 0-d tensor accept dim 0 and -1 and return its element", "[reduce]") {
  const Tensor s = tensor(2.5, kDouble);
  require_values(s.sum({0}), {2.5});
  REQUIRE(s.sum({-1}, true).dim() == 0);
  require_values(s.mean(), {2.5});
  const auto [v, i] = s.max(0);
  require_values(v, {2.5});
  REQUIRE(i.item<int64_t>() == 0);
  REQUIRE(s.argmax(-1).item<int64_t>() == 0);
  require_values(s.norm(), {2.5});
  REQUIRE_THROWS_WITH(s.sum({1}),
                      Catch::Contains("sum: dimension 1 is out of range for a tensor "
                                      "of shape [] (0 dims; expected a dim in [-1, 0])"));
}

TEST_CASE("negative dims count from the end", "[reduce]") {
  const Tensor x = random_double({3, 4, 5});
  require_values(x.sum({-1, -3}), values(x.sum({2, 0})));
  require_values(x.mean({-2}, true), values(x.mean({1}, true)));
  require_values(std::get<0>(x.max(-1)), values(std::get<0>(x.max(2))));
  require_values(x.argmin(-2), values(x.argmin(1)));
}

TEST_CASE("reductions of transposed, sliced and expanded inputs match their contiguous copies",
          "[reduce]") {
  const Tensor base = random_double({5, 6, 7});
  const std::vector<Tensor> inputs = {base.transpose(0, 2), base.permute({1, 2, 0}),
                                      base.slice(1, 0, 6, 2).slice(2, 1, 7, 3),
                                      random_double({6, 1, 7}).expand({6, 5, 7})};
  for (const Tensor& x : inputs) {
    INFO("input shape " << x.sizes() << " strides " << x.strides());
    for (const auto& dims : kDimSubsets) {
      INFO("dims " << IntArrayRef(dims));
      require_values(x.sum(dims), naive_reduce(x, dims, sum_of));
      require_values(x.norm(2, dims),
                     naive_reduce(x, dims, [](const Group& g) { return pnorm_of(g, 2); }));
      require_values(x.var(dims),
                     naive_reduce(x, dims, [](const Group& g) { return var_of(g, true); }));
    }
    for (int64_t d = 0; d < 3; ++d) {
      const auto [v, i] = x.max(d);
      require_values(v, naive_reduce(x, {d}, max_of));
      require_values(std::get<0>(x.min(d, true)), naive_reduce(x, {d}, min_of));
      require_values(i, naive_reduce(x, {d}, argmax_of));
      require_values(x.argmax(d), values(i));
    }
  }
}

TEST_CASE("zero-size inputs: sum is 0, mean and var are nan, all is true, any is false",
          "[reduce]") {
  const Tensor e = zeros({0, 3}, kDouble);
  require_values(e.sum(), {0});
  require_values(e.sum({0}), {0, 0, 0});
  REQUIRE(e.sum({1}).sizes() == IntArrayRef({0}));
  REQUIRE(e.sum({1}, true).sizes() == IntArrayRef({0, 1}));
  REQUIRE(std::isnan(e.mean().item<double>()));
  require_values(e.mean({0}), {NAN, NAN, NAN});
  REQUIRE(std::isnan(e.var().item<double>()));
  require_values(e.norm(), {0});
  REQUIRE(zeros({0}, kLong).sum().item<int64_t>() == 0);
  REQUIRE(e.all().item<bool>());
  REQUIRE_FALSE(e.any().item<bool>());
  // Reducing the non-empty dim of an empty tensor gives an empty result.
  REQUIRE(std::get<0>(e.max(1)).sizes() == IntArrayRef({0}));
}

TEST_CASE("int64 and bool sums give int64; mean of int64 needs a floating dtype", "[reduce]") {
  const Tensor i = tensor({{1, 2, 3}, {4, 5, 6}}, kLong);
  const Tensor s = i.sum();
  REQUIRE(s.scalar_type() == kLong);
  REQUIRE(s.item<int64_t>() == 21);
  REQUIRE(i.sum({0}).scalar_type() == kLong);
  require_values(i.sum({0}), {5, 7, 9});
  const Tensor b = tensor({{true, false, true}, {true, true, false}});
  REQUIRE(b.sum().scalar_type() == kLong);
  REQUIRE(b.sum().item<int64_t>() == 4);
  require_values(b.sum({1}), {2, 2});
  // Large int64 values are summed exactly.
  const int64_t big = int64_t(1) << 53;
  REQUIRE(tensor({big, int64_t(1), int64_t(1)}, kLong).sum().item<int64_t>() == big + 2);
  const Tensor sd = i.sum({1}, false, kDouble);
  REQUIRE(sd.scalar_type() == kDouble);
  require_values(sd, {6, 15});
  REQUIRE_THROWS_WITH(i.mean(), Catch::Contains("mean: could not infer the output dtype") &&
                                    Catch::Contains("int64"));
  const Tensor m = i.mean(kDouble);
  REQUIRE(m.scalar_type() == kDouble);
  REQUIRE(m.item<double>() == 3.5);
  REQUIRE_THROWS_WITH(i.mean({0}, false, kLong),
                      Catch::Contains("mean: dtype must be a floating point dtype"));
}

TEST_CASE("a float32 sum of 1e6 elements stays accurate to 1e-6 relative", "[reduce]") {
  const Tensor x = rand({1000000}, kFloat) + 0.5;  // all positive: no cancellation to hide errors
  const std::vector<double> v = values(x);
  double want = 0;
  for (double e : v) want += e;
  REQUIRE(std::abs(x.sum().item<double>() - want) <= 1e-6 * want);
  REQUIRE(std::abs(x.mean().item<double>() - want / 1e6) <= 1e-6 * want / 1e6);
  // The same elements as rows: over the outer dim (column sums) and the inner dim.
  const Tensor rows = x.view({1000, 1000});
  require_values(rows.sum({0}), naive_reduce(rows, {0}, sum_of), 1e-6);
  require_values(rows.sum({1}), naive_reduce(rows, {1}, sum_of), 1e-6);
}

TEST_CASE("large reductions split across threads match float64 loops", "[reduce]") {
  const int previous = get_num_threads();
  set_num_threads(4);  // more threads than outputs: the reduced dim is split
  const Tensor col = random_double({40000, 3});
  require_values(col.sum({0}), naive_reduce(col, {0}, sum_of), 1e-10);
  require_values(col.t().sum({1}), naive_reduce(col, {0}, sum_of), 1e-10);
  const Tensor flat = random_double({200000});
  require_values(flat.sum(), naive_reduce(flat, {}, sum_of), 1e-10);
  require_values(flat.max(), naive_reduce(flat, {}, max_of));
  require_values(flat.argmax(), naive_reduce(flat, {}, argmax_of));
  // Many outputs, each a long run, and rows wider than one buffer of outputs.
  const Tensor wider = random_double({5, 4500});
  require_values(wider.sum({0}), naive_reduce(wider, {0}, sum_of), 1e-10);
  require_values(std::get<0>(wider.min(0)), naive_reduce(wider, {0}, min_of));
  require_values(wider.argmax(0), naive_reduce(wider, {0}, argmax_of));
  const Tensor wide = random_double({300, 700});
  require_values(wide.sum({0}), naive_reduce(wide, {0}, sum_of), 1e-10);
  require_values(wide.sum({1}), naive_reduce(wide, {1}, sum_of), 1e-10);
  require_values(std::get<0>(wide.max(0)), naive_reduce(wide, {0}, max_of));
  require_values(wide.argmin(0), naive_reduce(wide, {0}, [](const Group& g) {
                   return static_cast<double>(std::min_element(g.begin(), g.end()) - g.begin());
                 }));
  set_num_threads(previous);
}

TEST_CASE("max and min along a dim return the first index on ties", "[reduce]") {
  const Tensor x = tensor({{1.0, 3.0, 3.0}, {2.0, 2.0, 1.0}}, kDouble);
  const auto [v, i] = x.max(1);
  require_values(v, {3, 2});
  require_values(i, {1, 0});
  REQUIRE(i.scalar_type() == kLong);
  const auto [mv, mi] = x.min(0, true);
  REQUIRE(mv.sizes() == IntArrayRef({1, 3}));
  require_values(mv, {1, 2, 1});
  require_values(mi, {0, 1, 1});
  require_values(x.argmax(), {1});  // flat index of the first 3
  require_values(x.argmin(), {0});
  REQUIRE(x.argmax(std::nullopt, true).sizes() == IntArrayRef({1, 1}));
  require_values(x.argmax(0), {1, 0, 0});
  REQUIRE(x.argmax(0, true).sizes() == IntArrayRef({1, 3}));
  require_values(x.max(), {3});
  require_values(x.min(), {1});
  // Integer and bool inputs keep their dtype.
  const Tensor i64 = tensor({{5, 9}, {9, 1}}, kLong);
  REQUIRE(i64.max().scalar_type() == kLong);
  REQUIRE(i64.max().item<int64_t>() == 9);
  require_values(std::get<1>(i64.max(0)), {1, 0});
}

TEST_CASE("argmax and argmin of long rows keep the first of equal values and the first NaN",
          "[reduce]") {
  // Long rows take the vectorized scan, whose lanes see elements out of order.
  for (int64_t first : {3, 17, 40, 700}) {
    INFO("first best at " << first);
    Tensor x = zeros({2, 1000}, kDouble);
    x[0][first].fill_(5.0);
    x[0][first + 200].fill_(5.0);
    x[0][first > 3 ? first - 2 : 999].fill_(5.0 - 1e-9);
    x[1][first].fill_(-5.0);
    x[1][first + 1].fill_(-5.0);
    require_values(x.argmax(1), {double(first), 0});
    require_values(x.argmin(1), {0, double(first)});
    require_values(x.flatten().argmax(), {double(first)});
    x[1][first + 50].fill_(NAN);
    x[1][first + 60].fill_(NAN);
    require_values(x.argmax(1), {double(first), double(first + 50)});
  }
}

TEST_CASE("max and argmax propagate NaN like PyTorch", "[reduce]") {
  const Tensor x = tensor({1.0, NAN, 3.0, NAN}, kDouble);
  REQUIRE(std::isnan(x.max().item<double>()));
  REQUIRE(std::isnan(x.min().item<double>()));
  REQUIRE(x.argmax().item<int64_t>() == 1);
  REQUIRE(x.argmin().item<int64_t>() == 1);
}

TEST_CASE("all and any test for nonzero elements of every dtype", "[reduce]") {
  REQUIRE(tensor({1.0, -2.0, NAN}).all().item<bool>());
  REQUIRE_FALSE(tensor({1.0, 0.0}).all().item<bool>());
  REQUIRE(tensor({0.0, 0.5}).any().item<bool>());
  REQUIRE_FALSE(zeros({4, 5}).any().item<bool>());
  REQUIRE(tensor({true, true}).all().scalar_type() == kBool);
  REQUIRE(tensor({true, true}).all().dim() == 0);
  REQUIRE_FALSE(tensor({int64_t(3), int64_t(0)}, kLong).all().item<bool>());
  REQUIRE(tensor({int64_t(0), int64_t(7)}, kLong).any().item<bool>());
  REQUIRE(ones({70000}).all().item<bool>());
}

TEST_CASE("sum_to sums the broadcast dims away and returns x itself when shapes match",
          "[reduce]") {
  const Tensor x = random_double({2, 3, 4});
  const Tensor a = sum_to(x, {3, 1});
  REQUIRE(a.sizes() == IntArrayRef({3, 1}));
  require_values(a, naive_reduce(x, {0, 2}, sum_of));
  const Tensor b = sum_to(x, {1, 4});
  REQUIRE(b.sizes() == IntArrayRef({1, 4}));
  require_values(b, naive_reduce(x, {0, 1}, sum_of));
  const Tensor c = sum_to(x, {});
  REQUIRE(c.dim() == 0);
  require_values(c, naive_reduce(x, {}, sum_of));
  const Tensor d = sum_to(x, {2, 1, 4});
  require_values(d, naive_reduce(x, {1}, sum_of));
  REQUIRE(sum_to(x, {2, 3, 4}).is_same(x));
  // Only size-1 leading dims to drop: no sum needed.
  const Tensor one = random_double({1, 1, 4});
  require_values(sum_to(one, {4}), values(one));
  REQUIRE_THROWS_WITH(sum_to(x, {5}), Catch::Contains("sum_to: shape [5] does not broadcast to") &&
                                          Catch::Contains("[2, 3, 4]"));
}

TEST_CASE("Tensor::sum_to_size sums down to a broadcastable size, as libtorch's", "[reduce]") {
  const Tensor x = random_double({2, 3, 4});
  const Tensor a = x.sum_to_size({3, 1});
  REQUIRE(a.sizes() == IntArrayRef({3, 1}));
  require_values(a, naive_reduce(x, {0, 2}, sum_of));
  REQUIRE(x.sum_to_size({2, 3, 4}).is_same(x));
  REQUIRE_THROWS_WITH(x.sum_to_size({5}),
                      Catch::Contains("sum_to_size: shape [5] does not broadcast to") &&
                          Catch::Contains("[2, 3, 4]"));
  // d/dx = g expanded back over the summed dims.
  const Tensor leaf = random_double({2, 3}).requires_grad_();
  auto fn = [](const tensor_list& in) { return in[0].sum_to_size({1, 3}); };
  REQUIRE_GRADCHECK(autograd::gradcheck(fn, {leaf}));
  REQUIRE_GRADCHECK(autograd::gradgradcheck(fn, {leaf}));
}

TEST_CASE("reduction errors name the op, the dim and the tensor's shape", "[reduce]") {
  const Tensor x = random_double({2, 3, 4});
  REQUIRE_THROWS_WITH(
      x.sum({3}),
      Catch::Contains("sum: dimension 3 is out of range for a tensor of shape [2, 3, 4]"));
  REQUIRE_THROWS_WITH(x.mean({-4}), Catch::Contains("mean: dimension -4 is out of range") &&
                                        Catch::Contains("expected a dim in [-3, 2]"));
  REQUIRE_THROWS_WITH(x.sum({1, -2}), Catch::Contains("sum: dim 1 appears more than once"));
  REQUIRE_THROWS_WITH(
      x.max(5),
      Catch::Contains("max: dimension 5 is out of range for a tensor of shape [2, 3, 4]"));
  REQUIRE_THROWS_WITH(x.argmax(-7), Catch::Contains("argmax: dimension -7 is out of range"));
  REQUIRE_THROWS_WITH(zeros({0, 2}).max(),
                      Catch::Contains("max: cannot reduce an empty tensor (shape [0, 2])"));
  REQUIRE_THROWS_WITH(zeros({0}).argmin(),
                      Catch::Contains("argmin: cannot reduce an empty tensor"));
  REQUIRE_THROWS_WITH(zeros({0, 2}).min(0),
                      Catch::Contains("min: cannot reduce over dimension 0 of size 0"));
  REQUIRE_THROWS_WITH(tensor({1, 2}, kLong).var(),
                      Catch::Contains("var: expected a floating point tensor, got int64"));
  REQUIRE_THROWS_WITH(tensor({1, 2}, kLong).norm(),
                      Catch::Contains("norm: expected a floating point tensor"));
  REQUIRE_THROWS_WITH(x.norm(-2), Catch::Contains("norm: p must be >= 0 or -inf, got -2"));
  REQUIRE_THROWS_WITH(zeros({2, 0}).amax(1),
                      Catch::Contains("amax: cannot reduce over dimension 1 of size 0"));
  REQUIRE_THROWS_WITH(zeros({0}).amin(), Catch::Contains("amin: cannot reduce over dimension 0"));
  REQUIRE_THROWS_WITH(zeros({0}).norm(INFINITY),
                      Catch::Contains("amax: cannot reduce over dimension 0"));
  REQUIRE_THROWS_WITH(x.sum(kBool), Catch::Contains("sum: dtype bool is not supported"));
}

// ---- derivatives ----

namespace {

using UnaryFn = std::function<Tensor(const Tensor&)>;

// gradcheck of f at x, and gradgradcheck too when `twice`.
void check_grad(const Tensor& x, const UnaryFn& f, bool twice = false) {
  const autograd::GradcheckFn fn = [f](const tensor_list& in) { return f(in[0]); };
  REQUIRE_GRADCHECK(autograd::gradcheck(fn, {x}));
  if (twice) REQUIRE_GRADCHECK(autograd::gradgradcheck(fn, {x}));
}

// A float64 leaf (3, 4) and a transposed, non-contiguous one (2, 3, 4).
Tensor leaf() { return random_double({3, 4}).requires_grad_(); }
Tensor transposed_leaf() { return random_double({4, 3, 2}).transpose(0, 2).requires_grad_(); }

}  // namespace

TEST_CASE("gradcheck: sum, mean and sum_to over dims, keepdim, non-contiguous input", "[reduce]") {
  const Tensor x = leaf(), xt = transposed_leaf();
  check_grad(x, [](const Tensor& t) { return t.sum(); });
  check_grad(x, [](const Tensor& t) { return t.sum({1}); });
  check_grad(xt, [](const Tensor& t) { return t.sum({0, 2}, true); });
  check_grad(xt, [](const Tensor& t) { return t.mean(); });
  check_grad(xt, [](const Tensor& t) { return t.mean({-1}, true); });
  check_grad(xt, [](const Tensor& t) { return sum_to(t, {3, 1}); });
  // A broadcast (expanded) input: the gradient sums over the expanded dims.
  check_grad(random_double({3, 1}).requires_grad_(), [](const Tensor& t) {
    return t.expand({2, 3, 4}).sum({0, 2});
  });
}

TEST_CASE("gradgradcheck: sum and mean", "[reduce]") {
  // Squared first, so that the second derivative is not zero.
  check_grad(
      leaf(), [](const Tensor& t) { return (t * t).sum({1}); }, true);
  check_grad(
      leaf(), [](const Tensor& t) { return (t * t).mean({0}, true); }, true);
  check_grad(
      transposed_leaf(), [](const Tensor& t) { return (t * t).sum(); }, true);
}

TEST_CASE("gradcheck: max and min, over all elements and along a dim", "[reduce]") {
  const Tensor x = leaf(), xt = transposed_leaf();
  check_grad(x, [](const Tensor& t) { return t.max(); });
  check_grad(xt, [](const Tensor& t) { return t.min(); });
  check_grad(
      x, [](const Tensor& t) { return std::get<0>(t.max(1)); }, true);
  check_grad(
      xt, [](const Tensor& t) { return std::get<0>(t.min(0, true)); }, true);
}

TEST_CASE("max backward: all-element ties share the gradient, max(dim) sends it to the index",
          "[reduce]") {
  const Tensor x = tensor({{1.0, 3.0, 3.0}, {3.0, 0.0, 2.0}}, kDouble).requires_grad_();
  x.max().backward();
  require_values(x.grad(), {0, 1.0 / 3, 1.0 / 3, 1.0 / 3, 0, 0});
  const Tensor y = tensor({{1.0, 3.0, 3.0}, {3.0, 0.0, 2.0}}, kDouble).requires_grad_();
  std::get<0>(y.max(1)).sum().backward();
  require_values(y.grad(), {0, 1, 0, 1, 0, 0});
}

TEST_CASE("max and min backward: a NaN result sends the gradient to the NaN elements", "[reduce]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor x = tensor({1.0, nan, 3.0, nan}, kDouble).requires_grad_();
  x.max().backward();
  require_values(x.grad(), {0, 0.5, 0, 0.5});
  const Tensor y = tensor({nan, -1.0}, kDouble).requires_grad_();
  y.min().backward();
  require_values(y.grad(), {1, 0});
}

TEST_CASE("gradcheck and gradgradcheck: var and std", "[reduce]") {
  const Tensor x = leaf(), xt = transposed_leaf();
  check_grad(
      x, [](const Tensor& t) { return t.var(); }, true);
  check_grad(
      xt, [](const Tensor& t) { return t.var({1}, false, true); }, true);
  check_grad(
      xt,
      [](const Tensor& t) {
        return t.std({0, 2});
      },
      true);
  check_grad(
      x, [](const Tensor& t) { return t.std(false); }, true);
}

TEST_CASE("gradcheck and gradgradcheck: norm for p = 1, 2, 3", "[reduce]") {
  const Tensor x = leaf(), xt = transposed_leaf();
  for (double p : {1.0, 2.0, 3.0}) {
    INFO("p " << p);
    check_grad(
        x, [p](const Tensor& t) { return t.norm(p); }, true);
    check_grad(
        xt, [p](const Tensor& t) { return t.norm(p, {1}, true); }, true);
    check_grad(xt, [p](const Tensor& t) { return t.norm(p, {0, 2}); });
  }
}

TEST_CASE("gradcheck and gradgradcheck: amax, amin and the inf norms away from ties",
          "[reduce]") {
  const Tensor x = leaf(), xt = transposed_leaf();
  check_grad(
      x, [](const Tensor& t) { return t.amax(); }, true);
  check_grad(
      xt, [](const Tensor& t) { return t.amin({0, 2}, true); }, true);
  check_grad(xt, [](const Tensor& t) { return t.norm(INFINITY, {1}); });
  check_grad(xt, [](const Tensor& t) { return t.norm(-INFINITY, {0}, true); });
}

TEST_CASE("the 2-norm of zeros has a zero gradient, not nan", "[reduce]") {
  const Tensor x = zeros({2, 3}, kDouble).requires_grad_();
  x.norm().backward();
  require_values(x.grad(), {0, 0, 0, 0, 0, 0});
  const Tensor y = tensor({{0.0, 0.0}, {3.0, 4.0}}, kDouble).requires_grad_();
  y.norm(2, {1}).sum().backward();
  require_values(y.grad(), {0, 0, 0.6, 0.8});
}

TEST_CASE("argmax, argmin, all and any are not differentiable", "[reduce]") {
  const Tensor x = random_double({3, 4}).requires_grad_();
  REQUIRE_FALSE(x.argmax().requires_grad());
  REQUIRE_FALSE(x.argmin(1).requires_grad());
  REQUIRE_FALSE(std::get<1>(x.max(1)).requires_grad());
  REQUIRE_FALSE(x.all().requires_grad());
  REQUIRE_FALSE(x.any().requires_grad());
  REQUIRE(x.sum().requires_grad());
}

// ---- integer overflow wraps (issue #22) ----

// PyTorch's integer sums and products wrap modulo 2^64 (two's complement);
// the references are that modular arithmetic, done in uint64_t.
TEST_CASE("int64 sum and prod wrap around on overflow, as PyTorch", "[reduce]") {
  const int64_t max = std::numeric_limits<int64_t>::max();
  const int64_t min = std::numeric_limits<int64_t>::min();
  REQUIRE(tensor({max, int64_t(1)}, kLong).sum().item<int64_t>() == min);  // 2^63 mod 2^64
  REQUIRE(tensor({min, int64_t(-1)}, kLong).sum().item<int64_t>() == max);
  // 2^32 * 2^32 = 2^64 = 0; 3 * 2^62 = 2^63 + 2^62, which is -2^62 as int64.
  REQUIRE(tensor({int64_t(1) << 32, int64_t(1) << 32}, kLong).prod().item<int64_t>() == 0);
  REQUIRE(tensor({int64_t(1) << 62, int64_t(3)}, kLong).prod().item<int64_t>() ==
          -(int64_t(1) << 62));
  // Long enough for the vector lanes and the threads' partial sums to wrap too.
  const int64_t n = 100003;
  const Tensor many = full({n}, max, kLong);
  const int64_t want = static_cast<int64_t>(uint64_t(n) * uint64_t(max));
  REQUIRE(many.sum().item<int64_t>() == want);
  const Tensor rows = full({7, 14287}, max, kLong).sum(1);
  REQUIRE(ember_test::int64_values(rows) ==
          std::vector<int64_t>(7, static_cast<int64_t>(uint64_t(14287) * uint64_t(max))));
}
