// quantile, nanquantile and nanmedian (core/ops/reduction/quantile.cpp): values from
// the sorted samples by the interpolation rules written here; gradients
// (through sort's gather) by gradcheck.
#include <cmath>
#include <limits>

#include "test_helpers.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using ember_test::require_values;
using ember_test::values;

namespace {
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// The q-th quantile of the sorted values v by the named rule.
double rule(std::vector<double> v, double q, const std::string& mode) {
  std::sort(v.begin(), v.end());
  const double r = q * static_cast<double>(v.size() - 1);
  const double lo = v[static_cast<size_t>(std::floor(r))], hi = v[static_cast<size_t>(std::ceil(r))];
  if (mode == "lower") return lo;
  if (mode == "higher") return hi;
  if (mode == "midpoint") return (lo + hi) / 2;
  if (mode == "nearest") return v[static_cast<size_t>(std::nearbyint(r))];  // halves to even
  return lo + (hi - lo) * (r - std::floor(r));
}
}  // namespace

TEST_CASE("quantile follows each interpolation rule", "[tensor_extras]") {
  const std::vector<double> v = {7, 1, 4, 9, 3, 5};  // sorted 1 3 4 5 7 9
  const Tensor x = tensor(v, kDouble);
  for (const char* mode : {"linear", "lower", "higher", "midpoint", "nearest"})
    for (double q : {0.0, 0.1, 0.3, 0.5, 0.7, 1.0}) {
      INFO(mode << " q=" << q);
      require_values(quantile(x, q, std::nullopt, false, mode), {rule(v, q, mode)});
    }
  // nearest at exactly half-way (rank 2.5 -> 2, rank 1.5 -> 2): halves to even
  require_values(quantile(x, 0.5, std::nullopt, false, "nearest"), {4});
  require_values(quantile(x, 0.3, std::nullopt, false, "nearest"), {4});
  REQUIRE(quantile(x, 0.5).dim() == 0);
}

TEST_CASE("quantile over a dim with a 1-d q puts q's dim first", "[tensor_extras]") {
  const Tensor m = tensor({{3.0, 1.0, 2.0, 10.0}, {0.0, 8.0, 4.0, 6.0}}, kDouble);
  const Tensor q = tensor({0.25, 0.5}, kDouble);
  const Tensor out = quantile(m, q, 1);
  REQUIRE(out.sizes() == IntArrayRef{2, 2});
  // rows sorted: 1 2 3 10 and 0 4 6 8; ranks 0.75 and 1.5
  require_values(out, {1.75, 3, 2.5, 5});
  const Tensor kept = m.t().quantile(q, 0, true);  // non-contiguous, keepdim
  REQUIRE(kept.sizes() == IntArrayRef{2, 1, 2});
  require_values(kept, {1.75, 3, 2.5, 5});
  const Tensor all = quantile(m, q, std::nullopt, true);
  REQUIRE(all.sizes() == IntArrayRef{2, 1, 1});
  require_values(all, {rule({3, 1, 2, 10, 0, 8, 4, 6}, 0.25, "linear"), rule({3, 1, 2, 10, 0, 8, 4, 6}, 0.5, "linear")});
  require_values(quantile(tensor({1.0f, 2.0f}), 0.5), {1.5});
}

TEST_CASE("quantile gives NaN for slices with a NaN; nanquantile leaves them out", "[tensor_extras]") {
  const Tensor m = tensor({{1.0, kNaN, 3.0, 2.0}, {4.0, 5.0, 6.0, 7.0}, {kNaN, kNaN, kNaN, kNaN}}, kDouble);
  require_values(quantile(m, 0.5, 1), {kNaN, 5.5, kNaN});
  require_values(nanquantile(m, 0.5, 1), {2, 5.5, kNaN});
  require_values(m.nanquantile(tensor({0.0, 1.0}, kDouble), 1, false, "lower"), {1, 4, kNaN, 3, 7, kNaN});
  require_values(quantile(m, 0.0), {kNaN});
  require_values(nanquantile(m, 1.0), {7});
}

TEST_CASE("quantile rejects bad q, dtypes, empty inputs and interpolation names", "[tensor_extras]") {
  const Tensor x = tensor({1.0, 2.0}, kDouble);
  REQUIRE_THROWS_WITH(quantile(x, 1.5), Catch::Contains("quantile") && Catch::Contains("[0, 1]"));
  REQUIRE_THROWS_WITH(quantile(x, tensor({0.5f})), Catch::Contains("quantile") && Catch::Contains("float32"));
  REQUIRE_THROWS_WITH(quantile(x, zeros({1, 1}, kDouble)), Catch::Contains("0-d or 1-d"));
  REQUIRE_THROWS_WITH(quantile(tensor({1, 2}, kLong), 0.5), Catch::Contains("quantile") && Catch::Contains("int64"));
  REQUIRE_THROWS_WITH(nanquantile(zeros({0}, kDouble), 0.5), Catch::Contains("nanquantile") && Catch::Contains("non-empty"));
  REQUIRE_THROWS_WITH(quantile(x, 0.5, std::nullopt, false, "cubic"), Catch::Contains("quantile") && Catch::Contains("cubic"));
  REQUIRE_THROWS_WITH(quantile(x, 0.5, 2), Catch::Contains("quantile"));
}

TEST_CASE("quantile gradients go to the samples it interpolates", "[tensor_extras]") {
  const Tensor x = tensor({{3.0, 1.0, 2.0, 10.0}, {0.0, 8.0, 4.0, 6.0}}, kDouble).t().requires_grad_();
  const Tensor q = tensor({0.2, 0.5, 0.9}, kDouble);
  for (const char* mode : {"linear", "lower", "higher", "midpoint", "nearest"}) {
    INFO(mode);
    auto fn = [q, mode](const tensor_list& in) { return quantile(in[0], q, 0, false, mode); };
    REQUIRE_GRADCHECK(gradcheck(fn, {x}));
  }
  auto nan_fn = [q](const tensor_list& in) { return nanquantile(in[0], q, 1).square(); };
  REQUIRE_GRADCHECK(gradgradcheck(nan_fn, {x}));
  // linear at rank 0.75 of (1, 2, 3, 10): 0.25 to the 1, 0.75 to the 2
  const Tensor y = tensor({3.0, 1.0, 2.0, 10.0}, kDouble).requires_grad_();
  quantile(y, 0.25).backward();
  require_values(y.grad(), {0, 0.25, 0.75, 0});
}

TEST_CASE("nanmedian takes the lower median of the non-NaN values with its index", "[tensor_extras]") {
  const Tensor m = tensor({{5.0, kNaN, 1.0, 3.0}, {kNaN, 2.0, 8.0, kNaN}, {kNaN, kNaN, kNaN, kNaN}}, kDouble);
  auto [v, i] = nanmedian(m, 1);
  require_values(v, {3, 2, kNaN});
  require_values(i.narrow(0, 0, 2), {3, 1});
  REQUIRE(i.scalar_type() == kLong);
  auto [kv, ki] = m.t().nanmedian(0, true);  // non-contiguous, keepdim
  REQUIRE(kv.sizes() == IntArrayRef{1, 3});
  require_values(kv, {3, 2, kNaN});
  require_values(nanmedian(tensor({4.0, kNaN, 1.0, 2.0}, kDouble)), {2});
  require_values(nanmedian(zeros({0}, kDouble)), {kNaN});
  require_values(m.nanmedian(), {3});  // of 5 1 3 2 8: sorted 1 2 3 5 8
  REQUIRE_THROWS_WITH(nanmedian(zeros({2, 0}), 1), Catch::Contains("nanmedian") && Catch::Contains("[2, 0]"));
}

TEST_CASE("nanmedian gradient goes to the median element", "[tensor_extras]") {
  const Tensor x = tensor({{5.0, kNaN, 1.0, 3.0}, {4.0, 2.0, 8.0, 7.0}}, kDouble).requires_grad_();
  std::get<0>(nanmedian(x, 1)).sum().backward();
  require_values(x.grad(), {0, 0, 0, 1, 1, 0, 0, 0});
  const Tensor y = tensor({{5.0, 0.5, 1.0, 3.0}, {4.0, 2.0, 8.0, 7.0}}, kDouble).t().requires_grad_();
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return std::get<0>(nanmedian(in[0], 0)); }, {y}));
}
