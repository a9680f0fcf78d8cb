// Composites from libtorch 1.13 that ember lacked: atleast_Nd and the NumPy
// stacks (core/ops/shape/stacking.cpp), tensor_split/hsplit/vsplit/dsplit and
// repeat_interleave (splitting.cpp), diff and trapezoid rules (calculus.cpp),
// rot90 (shape_ops.cpp), cov, corrcoef, nansum, nanmean, aminmax,
// count_nonzero (statistics_extra.cpp). Values from index arithmetic and
// formulas written here; gradients by gradcheck.
#include <cmath>
#include <limits>

#include "test_helpers.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using ember_test::require_values;
using ember_test::values;

namespace {
// 0, 1, ..., n-1 in the given shape, float64.
Tensor iota(IntArrayRef shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return arange(n, kDouble).view(shape);
}
const double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

// ---- atleast_Nd and stacks ----

TEST_CASE("atleast_1d/2d/3d add 1-sized dims where NumPy puts them and keep bigger tensors", "[tensor_extras]") {
  const Tensor s = full({}, 5.0, kDouble), v = iota({3}), m = iota({2, 3}), c = iota({2, 3, 4});
  REQUIRE(atleast_1d(s).sizes() == IntArrayRef{1});
  REQUIRE(atleast_1d(v).is_same(v));
  REQUIRE(atleast_2d(s).sizes() == IntArrayRef{1, 1});
  REQUIRE(atleast_2d(v).sizes() == IntArrayRef{1, 3});
  REQUIRE(atleast_2d(m).is_same(m));
  REQUIRE(atleast_3d(s).sizes() == IntArrayRef{1, 1, 1});
  REQUIRE(atleast_3d(v).sizes() == IntArrayRef{1, 3, 1});
  REQUIRE(atleast_3d(m).sizes() == IntArrayRef{2, 3, 1});
  REQUIRE(atleast_3d(c).is_same(c));
  const std::vector<Tensor> all = atleast_2d({s, v, m});
  REQUIRE(all.size() == 3);
  REQUIRE(all[1].sizes() == IntArrayRef{1, 3});
  REQUIRE(atleast_1d(v).is_alias_of(v));
}

TEST_CASE("hstack, vstack, row_stack, dstack and column_stack join as NumPy", "[tensor_extras]") {
  const Tensor a = tensor({1.0, 2.0}, kDouble), b = tensor({3.0, 4.0}, kDouble);
  require_values(hstack({a, b}), {1, 2, 3, 4});
  const Tensor v = vstack({a, b});
  REQUIRE(v.sizes() == IntArrayRef{2, 2});
  require_values(v, {1, 2, 3, 4});
  require_values(row_stack({a, b}), {1, 2, 3, 4});
  const Tensor cs = column_stack({a, b});  // columns a and b: [[1, 3], [2, 4]]
  REQUIRE(cs.sizes() == IntArrayRef{2, 2});
  require_values(cs, {1, 3, 2, 4});
  const Tensor d = dstack({a, b});  // (1, 2, 2): d[0][i][k] = (a, b)[k][i]
  REQUIRE(d.sizes() == IntArrayRef{1, 2, 2});
  require_values(d, {1, 3, 2, 4});
  const Tensor m = iota({2, 2});  // [[0, 1], [2, 3]]
  const Tensor h = hstack({m, m.t()});  // non-contiguous second part
  REQUIRE(h.sizes() == IntArrayRef{2, 4});
  require_values(h, {0, 1, 0, 2, 2, 3, 1, 3});
  require_values(column_stack({m, a}), {0, 1, 1, 2, 3, 2});
  require_values(hstack({full({}, 7.0, kDouble), a}), {7, 1, 2});
}

TEST_CASE("stacks reject an empty list and mismatched shapes naming the op", "[tensor_extras]") {
  REQUIRE_THROWS_WITH(hstack({}), Catch::Contains("hstack") && Catch::Contains("non-empty"));
  REQUIRE_THROWS_WITH(vstack({}), Catch::Contains("vstack"));
  REQUIRE_THROWS_WITH(dstack({}), Catch::Contains("dstack"));
  REQUIRE_THROWS_WITH(column_stack({}), Catch::Contains("column_stack"));
  REQUIRE_THROWS(vstack({iota({2}), iota({3})}));
}

TEST_CASE("stack gradients pass gradcheck", "[tensor_extras]") {
  const Tensor a = iota({2, 3}).add(0.5).t().requires_grad_(), b = iota({3}).requires_grad_();
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return column_stack({in[0], in[1]}); }, {a, b}));
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return dstack({in[0], in[0]}); }, {a}));
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return vstack({in[0], in[1].reshape({1, 2})}); },
                              {iota({2, 2}).requires_grad_(), iota({2}).requires_grad_()}));
}

// ---- tensor_split, hsplit, vsplit, dsplit ----

TEST_CASE("tensor_split by sections gives the first size % n parts one more element", "[tensor_extras]") {
  const Tensor x = iota({7});
  const std::vector<Tensor> p = tensor_split(x, 3);
  REQUIRE(p.size() == 3);
  require_values(p[0], {0, 1, 2});
  require_values(p[1], {3, 4});
  require_values(p[2], {5, 6});
  REQUIRE(p[1].is_alias_of(x));
  const std::vector<Tensor> many = x.tensor_split(9);  // more sections than elements: empty tails
  REQUIRE(many.size() == 9);
  REQUIRE(many[6].numel() == 1);
  REQUIRE(many[8].numel() == 0);
  const std::vector<Tensor> cols = tensor_split(iota({2, 5}).t(), 2, 1);  // non-contiguous (5, 2)
  require_values(cols[0], {0, 1, 2, 3, 4});
  require_values(cols[1], {5, 6, 7, 8, 9});
}

TEST_CASE("tensor_split by indices follows Python slice bounds", "[tensor_extras]") {
  const Tensor x = iota({6});
  const std::vector<Tensor> p = tensor_split(x, IntArrayRef{1, 4});
  REQUIRE(p.size() == 3);
  require_values(p[0], {0});
  require_values(p[1], {1, 2, 3});
  require_values(p[2], {4, 5});
  // [0:-2], [-2:9] -> clamped, [9:] empty; decreasing bounds give an empty part
  const std::vector<Tensor> q = tensor_split(x, IntArrayRef{-2, 9});
  require_values(q[0], {0, 1, 2, 3});
  require_values(q[1], {4, 5});
  REQUIRE(q[2].numel() == 0);
  const std::vector<Tensor> r = x.tensor_split(IntArrayRef{4, 2});
  require_values(r[0], {0, 1, 2, 3});
  REQUIRE(r[1].numel() == 0);
  require_values(r[2], {2, 3, 4, 5});
  // The tensor form: 0-d = sections, 1-d = indices.
  REQUIRE(tensor_split(x, full({}, 2, kLong)).size() == 2);
  require_values(tensor_split(x, tensor({2}, kLong))[1], {2, 3, 4, 5});
}

TEST_CASE("tensor_split rejects bad sections, 0-d inputs and bad index tensors", "[tensor_extras]") {
  REQUIRE_THROWS_WITH(tensor_split(iota({4}), 0), Catch::Contains("tensor_split") && Catch::Contains("positive"));
  REQUIRE_THROWS_WITH(tensor_split(full({}, 1.0), 2), Catch::Contains("tensor_split") && Catch::Contains("1-dimensional"));
  REQUIRE_THROWS_WITH(tensor_split(iota({4}), tensor({1.0})), Catch::Contains("tensor_split") && Catch::Contains("int64"));
  REQUIRE_THROWS_WITH(tensor_split(iota({4}), zeros({2, 1}, kLong)), Catch::Contains("0-d or 1-d"));
  REQUIRE_THROWS_WITH(tensor_split(iota({4}), 2, 3), Catch::Contains("tensor_split"));
}

TEST_CASE("hsplit, vsplit and dsplit split along dims 1 (0 for 1-d), 0 and 2", "[tensor_extras]") {
  const Tensor m = iota({2, 4});
  const std::vector<Tensor> h = hsplit(m, 2);
  REQUIRE(h.size() == 2);
  require_values(h[1], {2, 3, 6, 7});
  require_values(hsplit(iota({4}), 2)[1], {2, 3});
  require_values(m.hsplit(IntArrayRef{3})[1], {3, 7});
  require_values(vsplit(m, 2)[1], {4, 5, 6, 7});
  require_values(m.vsplit(IntArrayRef{1})[0], {0, 1, 2, 3});
  const Tensor c = iota({1, 2, 4});
  require_values(dsplit(c, 2)[0], {0, 1, 4, 5});
  require_values(c.dsplit(IntArrayRef{3})[1], {3, 7});
}

TEST_CASE("hsplit, vsplit and dsplit reject uneven sections and too few dims", "[tensor_extras]") {
  REQUIRE_THROWS_WITH(hsplit(iota({2, 5}), 2), Catch::Contains("hsplit") && Catch::Contains("divisible"));
  REQUIRE_THROWS_WITH(hsplit(full({}, 1.0), 1), Catch::Contains("hsplit"));
  REQUIRE_THROWS_WITH(vsplit(iota({4}), 2), Catch::Contains("vsplit") && Catch::Contains("at least 2"));
  REQUIRE_THROWS_WITH(dsplit(iota({2, 2}), IntArrayRef{1}), Catch::Contains("dsplit") && Catch::Contains("at least 3"));
}

TEST_CASE("tensor_split parts carry gradients back to their slices", "[tensor_extras]") {
  const Tensor x = iota({3, 5}).t().requires_grad_();  // (5, 3), non-contiguous
  auto fn = [](const tensor_list& in) {
    const std::vector<Tensor> p = tensor_split(in[0], IntArrayRef{1, 4}, 0);
    return p[0].sum() * 2 + p[1].square().sum() + p[2].sum() * 3;
  };
  REQUIRE_GRADCHECK(gradcheck(fn, {x}));
  REQUIRE_GRADCHECK(gradgradcheck(fn, {x}));
}

// ---- repeat_interleave ----

TEST_CASE("repeat_interleave repeats elements and slices", "[tensor_extras]") {
  require_values(repeat_interleave(tensor({2, 0, 3}, kLong)), {0, 0, 2, 2, 2});
  REQUIRE(repeat_interleave(tensor({2, 0, 3}, kLong)).scalar_type() == kLong);
  const Tensor m = iota({2, 2});  // [[0, 1], [2, 3]]
  require_values(repeat_interleave(m, 2), {0, 0, 1, 1, 2, 2, 3, 3});  // flattened
  const Tensor rows = m.repeat_interleave(tensor({1, 2}, kLong), 0);
  REQUIRE(rows.sizes() == IntArrayRef{3, 2});
  require_values(rows, {0, 1, 2, 3, 2, 3});
  const Tensor cols = m.t().repeat_interleave(3, 1);  // non-contiguous: [[0, 2], [1, 3]]
  REQUIRE(cols.sizes() == IntArrayRef{2, 6});
  require_values(cols, {0, 0, 0, 2, 2, 2, 1, 1, 1, 3, 3, 3});
  require_values(repeat_interleave(m, full({}, 2, kLong), 1), {0, 0, 1, 1, 2, 2, 3, 3});
  REQUIRE(repeat_interleave(m, 0, 0).sizes() == IntArrayRef{0, 2});
  require_values(repeat_interleave(m, tensor({1, 1}, kLong), 1, 2), {0, 1, 2, 3});
}

TEST_CASE("repeat_interleave rejects negative, mismatched and mistyped repeats", "[tensor_extras]") {
  REQUIRE_THROWS_WITH(repeat_interleave(tensor({1, -1}, kLong)), Catch::Contains("repeat_interleave") && Catch::Contains("negative"));
  REQUIRE_THROWS_WITH(repeat_interleave(tensor({1.0, 2.0})), Catch::Contains("repeat_interleave") && Catch::Contains("int64"));
  REQUIRE_THROWS_WITH(repeat_interleave(iota({2, 3}), tensor({1, 2}, kLong), 1),
                      Catch::Contains("repeat_interleave") && Catch::Contains("[2, 3]"));
  REQUIRE_THROWS_WITH(repeat_interleave(iota({3}), -1), Catch::Contains("negative"));
  REQUIRE_THROWS_WITH(repeat_interleave(tensor({1, 2}, kLong), std::optional<int64_t>(4)), Catch::Contains("output_size"));
}

TEST_CASE("repeat_interleave gradients sum the copies", "[tensor_extras]") {
  const Tensor x = iota({2, 3}).t().requires_grad_();
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return repeat_interleave(in[0], tensor({2, 0, 1}, kLong), 0); }, {x}));
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return in[0].repeat_interleave(3, 1); }, {x}));
  REQUIRE_GRADCHECK(gradgradcheck([](const tensor_list& in) { return in[0].repeat_interleave(2).square(); }, {x}));
}

// ---- diff ----

TEST_CASE("diff takes n-th forward differences with prepend and append", "[tensor_extras]") {
  const Tensor x = tensor({1.0, 4.0, 9.0, 16.0, 25.0}, kDouble);  // squares: differences 3,5,7,9 then 2,2,2
  require_values(diff(x), {3, 5, 7, 9});
  require_values(x.diff(2), {2, 2, 2});
  REQUIRE(diff(x, 7).numel() == 0);
  require_values(diff(x, 0), values(x));
  require_values(diff(x, 1, 0, tensor({0.0}, kDouble), tensor({36.0}, kDouble)), {1, 3, 5, 7, 9, 11});
  const Tensor m = iota({3, 2}).t();  // (2, 3) non-contiguous: [[0, 2, 4], [1, 3, 5]]
  require_values(diff(m), {2, 2, 2, 2});
  require_values(diff(m, 1, 0), {1, 1, 1});
  require_values(diff(tensor({true, true, false, true})), {0, 1, 1});
  REQUIRE(diff(tensor({true, false})).scalar_type() == kBool);
  REQUIRE(diff(tensor({3, 7}, kLong)).scalar_type() == kLong);
}

TEST_CASE("diff rejects 0-d inputs, negative order and mismatched prepend", "[tensor_extras]") {
  REQUIRE_THROWS_WITH(diff(full({}, 1.0)), Catch::Contains("diff") && Catch::Contains("0-d"));
  REQUIRE_THROWS_WITH(diff(iota({3}), -1), Catch::Contains("diff") && Catch::Contains("non-negative"));
  REQUIRE_THROWS_WITH(diff(iota({2, 3}), 1, -1, iota({3})), Catch::Contains("diff") && Catch::Contains("[3]"));
}

TEST_CASE("diff gradients pass gradcheck and gradgradcheck", "[tensor_extras]") {
  const Tensor x = iota({3, 4}).t().requires_grad_(), p = iota({4, 1}).requires_grad_();
  auto fn = [](const tensor_list& in) { return diff(in[0], 2, 1, in[1]).square(); };
  REQUIRE_GRADCHECK(gradcheck(fn, {x, p}));
  REQUIRE_GRADCHECK(gradgradcheck(fn, {x, p}));
}

// ---- trapezoid, cumulative_trapezoid ----

TEST_CASE("trapezoid integrates with spacing or sample points", "[tensor_extras]") {
  const Tensor y = tensor({1.0, 3.0, 2.0, 6.0}, kDouble);
  // (1+3)/2 + (3+2)/2 + (2+6)/2 = 8.5
  require_values(trapezoid(y), {8.5});
  require_values(trapezoid(y, 0.5), {4.25});
  require_values(trapz(y, 2.0), {17});
  const Tensor x = tensor({0.0, 1.0, 3.0, 4.0}, kDouble);  // spacings 1, 2, 1
  require_values(trapezoid(y, x), {2 + 5 + 4});
  require_values(trapz(y, x), {11});
  // Along dim 0 of a (2, 3): rows [0,1,2], [3,4,5]; per column (y0 + y1) / 2 * 2
  const Tensor m = iota({3, 2}).t().t().t();  // non-contiguous (2, 3) [[0,2,4],[1,3,5]]
  require_values(trapezoid(m, 2.0, 0), {1, 5, 9});
  const Tensor xs = tensor({{0.0, 0.0, 0.0}, {1.0, 2.0, 3.0}}, kDouble);  // same shape as m
  require_values(trapezoid(m, xs, 0), {0.5, 5, 13.5});
  require_values(cumulative_trapezoid(y), {2, 4.5, 8.5});
  require_values(cumulative_trapezoid(y, x), {2, 7, 11});
  REQUIRE(cumulative_trapezoid(y.narrow(0, 0, 1)).numel() == 0);
  require_values(trapezoid(zeros({0}, kDouble)), {0});
  REQUIRE(trapezoid(tensor({1, 2, 3}, kLong)).scalar_type() == kFloat);
}

TEST_CASE("trapezoid rejects mismatched sample points and 0-d y", "[tensor_extras]") {
  REQUIRE_THROWS_WITH(trapezoid(iota({4}), iota({3})), Catch::Contains("trapezoid") && Catch::Contains("[3]"));
  REQUIRE_THROWS_WITH(trapezoid(full({}, 1.0)), Catch::Contains("trapezoid") && Catch::Contains("0-d"));
  REQUIRE_THROWS_WITH(cumulative_trapezoid(iota({2, 3}), iota({2}), 1), Catch::Contains("cumulative_trapezoid"));
}

TEST_CASE("trapezoid gradients reach y and x", "[tensor_extras]") {
  const Tensor y = iota({2, 4}).add(1).t().requires_grad_(), x = tensor({0.0, 0.5, 2.0, 2.5}, kDouble).requires_grad_();
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return trapezoid(in[0], in[1], 0); }, {y, x}));
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return cumulative_trapezoid(in[0], in[1], 0); }, {y, x}));
  REQUIRE_GRADCHECK(gradgradcheck([](const tensor_list& in) { return cumulative_trapezoid(in[0] * in[0], 0.3, 0); }, {y}));
}

// ---- rot90 ----

TEST_CASE("rot90 turns counterclockwise k quarter turns", "[tensor_extras]") {
  const Tensor m = iota({2, 3});  // [[0,1,2],[3,4,5]]
  const Tensor r1 = rot90(m);      // out[i][j] = m[j][2 - i]
  REQUIRE(r1.sizes() == IntArrayRef{3, 2});
  require_values(r1, {2, 5, 1, 4, 0, 3});
  require_values(m.rot90(2), {5, 4, 3, 2, 1, 0});
  require_values(rot90(m, 3), {3, 0, 4, 1, 5, 2});  // out[i][j] = m[1 - j][i]
  require_values(rot90(m, -1), {3, 0, 4, 1, 5, 2});
  require_values(rot90(m, 4), values(m));
  require_values(rot90(m, 1, {1, 0}), {3, 0, 4, 1, 5, 2});
  REQUIRE_FALSE(rot90(m, 0).is_alias_of(m));
}

TEST_CASE("rot90 rejects bad dims", "[tensor_extras]") {
  REQUIRE_THROWS_WITH(rot90(iota({3})), Catch::Contains("rot90") && Catch::Contains("at least 2"));
  REQUIRE_THROWS_WITH(rot90(iota({2, 2}), 1, {0, 0}), Catch::Contains("rot90") && Catch::Contains("differ"));
  REQUIRE_THROWS_WITH(rot90(iota({2, 2}), 1, {0}), Catch::Contains("rot90"));
}

TEST_CASE("rot90 gradient passes gradcheck", "[tensor_extras]") {
  const Tensor x = iota({2, 3, 2}).requires_grad_();
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return rot90(in[0], 1, {2, 0}) * iota({2, 3, 2}); }, {x}));
}

// ---- cov, corrcoef ----

namespace {
// The weighted covariance written out: rows are variables.
std::vector<double> naive_cov(const std::vector<std::vector<double>>& x, const std::vector<double>& f,
                              const std::vector<double>& a, int64_t correction) {
  const size_t v = x.size(), n = x[0].size();
  double wsum = 0, wasum = 0;
  std::vector<double> w(n);
  for (size_t j = 0; j < n; ++j) {
    w[j] = f[j] * a[j];
    wsum += w[j];
    wasum += w[j] * a[j];
  }
  std::vector<double> mean(v, 0);
  for (size_t i = 0; i < v; ++i) {
    for (size_t j = 0; j < n; ++j) mean[i] += w[j] * x[i][j];
    mean[i] /= wsum;
  }
  const double divisor = wsum - static_cast<double>(correction) * wasum / wsum;
  std::vector<double> out;
  for (size_t i = 0; i < v; ++i)
    for (size_t k = 0; k < v; ++k) {
      double s = 0;
      for (size_t j = 0; j < n; ++j) s += w[j] * (x[i][j] - mean[i]) * (x[k][j] - mean[k]);
      out.push_back(s / divisor);
    }
  return out;
}
}  // namespace

TEST_CASE("cov matches the weighted covariance formula", "[tensor_extras]") {
  const std::vector<std::vector<double>> rows = {{1, 4, 2, 8}, {3, 1, 5, 0}, {2, 2, 7, 1}};
  const Tensor x = tensor({{1.0, 4.0, 2.0, 8.0}, {3.0, 1.0, 5.0, 0.0}, {2.0, 2.0, 7.0, 1.0}}, kDouble);
  const std::vector<double> ones(4, 1.0), f = {1, 2, 1, 3}, a = {0.5, 1.0, 2.0, 0.25};
  // Unweighted, correction 1 and 0: with unit aweights the formula's divisor is n - correction.
  require_values(cov(x), naive_cov(rows, ones, ones, 1));
  require_values(x.cov(0), naive_cov(rows, ones, ones, 0));
  require_values(cov(x, 1, tensor({1, 2, 1, 3}, kLong)), [&] {
    // fweights only: divisor sum(f) - correction.
    std::vector<double> c = naive_cov(rows, f, ones, 0);
    for (double& e : c) e = e * 7 / 6;
    return c;
  }());
  require_values(cov(x, 1, tensor({1, 2, 1, 3}, kLong), tensor({0.5, 1.0, 2.0, 0.25}, kDouble)),
                 naive_cov(rows, f, a, 1));
  require_values(cov(x, 2, std::nullopt, tensor({0.5, 1.0, 2.0, 0.25}, kDouble)), naive_cov(rows, ones, a, 2));
  // 1-d: the variance, 0-d.
  const Tensor v = cov(tensor({1.0, 2.0, 4.0}, kDouble));
  REQUIRE(v.dim() == 0);
  REQUIRE(cov(tensor({{1.0, 2.0, 4.0}}, kDouble)).dim() == 0);
  require_values(v, {(std::pow(1 - 7.0 / 3, 2) + std::pow(2 - 7.0 / 3, 2) + std::pow(4 - 7.0 / 3, 2)) / 2});
  // Transposed input (non-contiguous) and integers (float32 result).
  require_values(cov(x.t().contiguous().t()), naive_cov(rows, ones, ones, 1));
  REQUIRE(cov(tensor({{1, 2, 3}}, kLong)).scalar_type() == kFloat);
}

TEST_CASE("cov rejects bad inputs and weights naming them", "[tensor_extras]") {
  REQUIRE_THROWS_WITH(cov(iota({2, 2, 2})), Catch::Contains("cov") && Catch::Contains("two or fewer"));
  REQUIRE_THROWS_WITH(cov(iota({2, 3}), 1, tensor({1.0, 1.0, 1.0})), Catch::Contains("fweights") && Catch::Contains("integral"));
  REQUIRE_THROWS_WITH(cov(iota({2, 3}), 1, tensor({1, 1}, kLong)), Catch::Contains("fweights") && Catch::Contains("observations"));
  REQUIRE_THROWS_WITH(cov(iota({2, 3}), 1, tensor({1, -1, 1}, kLong)), Catch::Contains("fweights") && Catch::Contains("negative"));
  REQUIRE_THROWS_WITH(cov(iota({2, 3}), 1, std::nullopt, tensor({1, 1, 1}, kLong)), Catch::Contains("aweights") && Catch::Contains("floating"));
  REQUIRE_THROWS_WITH(cov(iota({2, 3}), 1, std::nullopt, tensor({1.0, -1.0, 1.0}, kDouble)), Catch::Contains("aweights") && Catch::Contains("negative"));
}

TEST_CASE("corrcoef normalises cov by the standard deviations", "[tensor_extras]") {
  const Tensor x = tensor({{1.0, 2.0, 3.0, 4.0}, {2.0, 4.0, 6.0, 8.5}, {4.0, 3.0, 2.0, 1.0}}, kDouble);
  const std::vector<double> c = values(cov(x));
  std::vector<double> want;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) want.push_back(c[i * 3 + j] / std::sqrt(c[i * 3 + i] * c[j * 3 + j]));
  require_values(corrcoef(x), want);
  require_values(x.corrcoef().select(0, 0), {1, want[1], -1});
  require_values(corrcoef(tensor({1.0, 5.0}, kDouble)), {1});
}

TEST_CASE("cov and corrcoef gradients pass gradcheck", "[tensor_extras]") {
  const Tensor x = tensor({{1.0, 4.0, 2.0, 8.0}, {3.0, 1.0, 5.0, 0.0}}, kDouble).t().contiguous().t().requires_grad_();
  const Tensor aw = tensor({0.5, 1.0, 2.0, 0.25}, kDouble).requires_grad_();
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return cov(in[0], 1, tensor({1, 2, 1, 1}, kLong), in[1]); }, {x, aw}));
  REQUIRE_GRADCHECK(gradgradcheck([](const tensor_list& in) { return cov(in[0]); }, {x}));
  const Tensor y = tensor({{1.0, 2.0, 3.5, 4.0}, {2.0, 1.0, 6.0, 8.5}, {4.0, 3.0, 2.5, 1.0}}, kDouble).requires_grad_();
  // The diagonal is clipped at 1; its gradient is 0 either way.
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return corrcoef(in[0]).triu(1); }, {y}));
}

// ---- nansum, nanmean, aminmax, count_nonzero ----

TEST_CASE("nansum and nanmean leave NaNs out", "[tensor_extras]") {
  const Tensor x = tensor({{1.0, kNaN, 3.0}, {kNaN, kNaN, 4.0}}, kDouble);
  require_values(nansum(x), {8});
  require_values(x.nansum({1}), {4, 4});
  require_values(nansum(x, {0}, true), {1, 0, 7});
  require_values(nanmean(x, {1}), {2, 4});
  require_values(x.nanmean({0}), {1, kNaN, 3.5});  // all-NaN column
  require_values(nanmean(x), {2 + 2.0 / 3});
  require_values(nanmean(x.t(), {0}), {2, 4});  // non-contiguous
  require_values(nansum(tensor({1, 2, 3}, kLong)), {6});
  REQUIRE(nansum(x, {}, false, kFloat).scalar_type() == kFloat);
  REQUIRE_THROWS_WITH(nanmean(tensor({1, 2}, kLong)), Catch::Contains("nanmean") && Catch::Contains("floating"));
}

TEST_CASE("nansum and nanmean gradients skip the NaNs", "[tensor_extras]") {
  const Tensor x = tensor({{1.0, kNaN, 3.0}, {kNaN, 2.0, 4.0}}, kDouble).requires_grad_();
  nanmean(x, {1}).sum().backward();
  require_values(x.grad(), {0.5, 0, 0.5, 0, 0.5, 0.5});
  const Tensor y = iota({2, 3}).t().requires_grad_();
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return nanmean(in[0].square(), {0}); }, {y}));
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) { return nansum(in[0], {1}); }, {y}));
}

TEST_CASE("aminmax returns amin and amax together", "[tensor_extras]") {
  const Tensor x = tensor({{3.0, -1.0, 7.0}, {0.5, 9.0, 2.0}}, kDouble);
  auto [lo, hi] = aminmax(x);
  require_values(lo, {-1});
  require_values(hi, {9});
  REQUIRE(lo.dim() == 0);
  auto [rlo, rhi] = x.aminmax(1);
  require_values(rlo, {-1, 0.5});
  require_values(rhi, {7, 9});
  auto [klo, khi] = aminmax(x.t(), 0, true);
  REQUIRE(klo.sizes() == IntArrayRef{1, 2});
  require_values(khi, {7, 9});
  auto [alo, ahi] = aminmax(x, std::nullopt, true);
  REQUIRE(alo.sizes() == IntArrayRef{1, 1});
  REQUIRE_THROWS_WITH(aminmax(zeros({0})), Catch::Contains("aminmax") && Catch::Contains("empty"));
  REQUIRE_THROWS_WITH(aminmax(zeros({2, 0}), 1), Catch::Contains("aminmax") && Catch::Contains("[2, 0]"));
  const Tensor g = tensor({{3.0, -1.0, 7.0}, {0.5, 9.0, 2.0}}, kDouble).requires_grad_();
  REQUIRE_GRADCHECK(gradcheck([](const tensor_list& in) {
    auto [a, b] = aminmax(in[0], 1);
    return a * 2 + b;
  }, {g}));
}

TEST_CASE("count_nonzero counts over dims as int64", "[tensor_extras]") {
  const Tensor x = tensor({{0.0, 2.0, 0.0}, {1.0, -3.0, 0.0}}, kDouble);
  const Tensor all = count_nonzero(x);
  REQUIRE(all.scalar_type() == kLong);
  require_values(all, {3});
  require_values(count_nonzero(x, IntArrayRef{0}), {1, 2, 0});
  require_values(x.count_nonzero(std::optional<int64_t>(1)), {1, 2});
  require_values(x.t().count_nonzero(IntArrayRef{0, 1}), {3});
  require_values(count_nonzero(tensor({true, false, true})), {2});
}
