// sort, argsort, msort, topk, kthvalue, median (core/ops/reduction/sort.cpp): orders
// against a std::stable_sort reference written here (NaN largest), cases
// checked with torch 1.13.1, dtypes, 0-d and empty shapes, errors, and the
// values' gradients.
#include <functional>
#include <limits>
#include <numeric>

#include "test_helpers.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using ember_test::require_values;
using ember_test::values;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

// Small integers (many ties) with a NaN every 9th element and an inf every 13th.
Tensor tied(IntArrayRef shape) {
  int64_t count = 1;
  for (int64_t s : shape) count *= s;
  std::vector<double> v(count);
  for (int64_t i = 0; i < count; ++i)
    v[i] = i % 9 == 4 ? kNaN : i % 13 == 6 ? -kInf : double((i * 7) % 11 % 5);
  return tensor(v, kDouble).view(shape);
}

// Distinct values (no ties): for gradcheck.
Tensor distinct(int64_t rows, int64_t cols) {
  std::vector<double> v(rows * cols);
  for (int64_t i = 0; i < rows * cols; ++i) v[i] = double((i * 7) % (rows * cols)) * 0.37 - 1.1;
  return tensor(v, kDouble).view({rows, cols});
}

// a < b with NaN above everything, as PyTorch orders.
bool less_nan_last(double a, double b) { return (!std::isnan(a) && std::isnan(b)) || a < b; }

// The positions of `row` in stable ascending (or descending) order.
std::vector<int64_t> reference_order(const std::vector<double>& row, bool descending) {
  std::vector<int64_t> p(row.size());
  std::iota(p.begin(), p.end(), int64_t(0));
  std::stable_sort(p.begin(), p.end(), [&](int64_t a, int64_t b) {
    return descending ? less_nan_last(row[b], row[a]) : less_nan_last(row[a], row[b]);
  });
  return p;
}

// The rows of x along dim d (d moved last), each as a vector.
std::vector<std::vector<double>> rows_along(const Tensor& x, int64_t d) {
  const Tensor r = x.movedim(d, -1).contiguous();
  const int64_t n = r.size(-1), count = n == 0 ? 0 : r.numel() / n;
  const std::vector<double> v = values(r);
  std::vector<std::vector<double>> rows(count);
  for (int64_t i = 0; i < count; ++i) rows[i].assign(v.begin() + i * n, v.begin() + (i + 1) * n);
  return rows;
}

// got (indices along d, m per row) against the first m positions of each reference order.
void require_prefix_of_order(const Tensor& got, const Tensor& x, int64_t d, int64_t m,
                             bool descending) {
  REQUIRE(got.scalar_type() == kLong);
  REQUIRE(got.size(d) == m);
  if (m == 0) return;  // no rows to compare
  const std::vector<std::vector<double>> rows = rows_along(x, d), got_rows = rows_along(got, d);
  REQUIRE(got_rows.size() == rows.size());
  for (size_t r = 0; r < rows.size(); ++r) {
    const std::vector<int64_t> want = reference_order(rows[r], descending);
    REQUIRE(got_rows[r].size() == size_t(m));
    for (int64_t i = 0; i < m; ++i) {
      INFO("row " << r << ", element " << i);
      REQUIRE(got_rows[r][i] == double(want[i]));
    }
  }
}

}  // namespace

TEST_CASE("sort orders NaN after +inf, first when descending (torch 1.13)", "[sort]") {
  // torch 1.13.1: x = [3, nan, -inf, inf, 1, nan, 1];
  // x.sort() -> values [-inf, 1, 1, 3, inf, nan, nan], indices [2, 4, 6, 0, 3, 1, 5];
  // x.sort(descending=True) -> values [nan, nan, inf, 3, 1, 1, -inf], indices [1, 5, 3, 0, 4, 6, 2]
  const Tensor x = tensor({3.0, kNaN, -kInf, kInf, 1.0, kNaN, 1.0}, kDouble);
  auto [v, i] = sort(x);
  require_values(v, {-kInf, 1, 1, 3, kInf, kNaN, kNaN});
  require_values(i, {2, 4, 6, 0, 3, 1, 5});
  REQUIRE(i.scalar_type() == kLong);
  auto [vd, id] = x.sort(-1, true);
  require_values(vd, {kNaN, kNaN, kInf, 3, 1, 1, -kInf});
  require_values(id, {1, 5, 3, 0, 4, 6, 2});
}

TEST_CASE("sort along every dim matches a stable reference sort, contiguous or not", "[sort]") {
  const Tensor x = tied({4, 5, 6});
  for (bool descending : {false, true})
    for (int64_t d : {0, 1, 2, -1}) {
      const int64_t dd = d < 0 ? d + 3 : d;
      INFO("dim " << d << ", descending " << descending);
      auto [v, i] = sort(x, d, descending);
      require_prefix_of_order(i, x, dd, x.size(dd), descending);
      require_values(v, values(x.gather(dd, i)));
      const Tensor xt = x.transpose(0, 2);  // non-contiguous
      require_prefix_of_order(argsort(xt, d, descending), xt, dd, xt.size(dd), descending);
    }
}

TEST_CASE("sort is stable for int64, float32 and bool (torch 1.13)", "[sort]") {
  // torch 1.13.1: tensor([2, 1, 2, 1, 2]).sort(descending=True, stable=True) -> [2, 2, 2, 1, 1], [0, 2, 4, 1, 3];
  // tensor([True, False, True]).sort() -> [False, True, True], [1, 0, 2]
  auto [v, i] = sort(tensor({2, 1, 2, 1, 2}, kLong), std::optional<bool>(true), 0, true);
  REQUIRE(v.scalar_type() == kLong);
  require_values(v, {2, 2, 2, 1, 1});
  require_values(i, {0, 2, 4, 1, 3});
  auto [bv, bi] = tensor({true, false, true}).sort();
  REQUIRE(bv.scalar_type() == kBool);
  require_values(bv, {0, 1, 1});
  require_values(bi, {1, 0, 2});
  const Tensor f = tied({3, 40}).to(kFloat);
  require_prefix_of_order(f.argsort(true, 1, false), f, 1, 40, false);
  require_values(argsort(tensor({-0.0, 0.0, -0.0})), {0, 1, 2});  // -0 == +0: input order
}

TEST_CASE("sort of long rows runs in parallel and matches the reference", "[sort]") {
  const Tensor x = tied({64, 3000});
  require_prefix_of_order(argsort(x, int64_t(1)), x, 1, 3000, false);
  require_prefix_of_order(argsort(x, int64_t(0), true), x, 0, 64, true);
}

TEST_CASE("sort, argsort and msort of 0-d and empty tensors", "[sort]") {
  // torch 1.13.1: tensor(5.).sort() -> (tensor(5.), tensor(0)); zeros(2, 0).sort(1) keeps the shape
  auto [v, i] = sort(tensor(5.0, kDouble));
  REQUIRE(v.dim() == 0);
  REQUIRE(i.dim() == 0);
  require_values(v, {5});
  require_values(i, {0});
  REQUIRE(argsort(tensor(5.0), int64_t(0)).dim() == 0);
  auto [ev, ei] = sort(zeros({2, 0}), 1);
  REQUIRE(ev.sizes() == IntArrayRef{2, 0});
  REQUIRE(ei.sizes() == IntArrayRef{2, 0});
  REQUIRE(std::get<1>(sort(zeros({0, 3}), 0)).sizes() == IntArrayRef{0, 3});
  REQUIRE(msort(zeros({0})).sizes() == IntArrayRef{0});
}

TEST_CASE("msort sorts along dim 0 (torch 1.13)", "[sort]") {
  // torch 1.13.1: tensor([[3, 1], [2, 4]]).msort() -> [[2, 1], [3, 4]]
  const Tensor m = tensor({3, 1, 2, 4}, kLong).view({2, 2}).msort();
  REQUIRE(m.scalar_type() == kLong);
  require_values(m, {2, 1, 3, 4});
}

TEST_CASE("topk takes the k largest or smallest, NaN counting as largest (torch 1.13)", "[sort]") {
  // torch 1.13.1: x = [3, nan, -inf, inf, 1, nan, 1]; x.topk(3) -> [nan, nan, inf], [1, 5, 3];
  // x.topk(3, largest=False) -> [-inf, 1, 1], [2, 4, 6]
  const Tensor x = tensor({3.0, kNaN, -kInf, kInf, 1.0, kNaN, 1.0}, kDouble);
  auto [v, i] = topk(x, 3);
  require_values(v, {kNaN, kNaN, kInf});
  require_values(i, {1, 5, 3});
  auto [vs, is] = x.topk(3, 0, false);
  require_values(vs, {-kInf, 1, 1});
  require_values(is, {2, 4, 6});
}

TEST_CASE("topk matches the first k of a stable sort along every dim", "[sort]") {
  const Tensor x = tied({5, 7, 6});
  for (bool largest : {true, false})
    for (int64_t d : {0, 1, 2})
      for (int64_t k : {int64_t(0), int64_t(1), int64_t(3), x.size(d)}) {
        INFO("dim " << d << ", k " << k << ", largest " << largest);
        auto [v, i] = topk(x.transpose(0, 1).transpose(0, 1), k, d, largest);
        REQUIRE(v.size(d) == k);
        require_prefix_of_order(i, x, d, k, largest);
        require_values(v, values(x.gather(d, i)));
      }
}

TEST_CASE("topk with sorted=false returns the same set of elements", "[sort]") {
  const Tensor x = tied({3, 50});
  for (int64_t k : {1, 7, 50}) {
    auto [v, i] = topk(x, k, 1, true, false);
    // The same positions as the sorted answer's, once both are sorted.
    auto [vs, is] = topk(x, k, 1, true, true);
    require_values(std::get<0>(sort(i, 1)), values(std::get<0>(sort(is, 1))));
    require_values(v, values(x.gather(1, i)));
  }
}

TEST_CASE("topk of 0-d tensors, and k out of range or bool input raise", "[sort]") {
  // torch 1.13.1: tensor(5.).topk(1) -> (tensor(5.), tensor(0)); tensor(5.).topk(2) raises;
  // topk on bool: "topk_cpu" not implemented for 'Bool'
  auto [v, i] = topk(tensor(5.0), 1);
  REQUIRE(v.dim() == 0);
  require_values(i, {0});
  REQUIRE_THROWS_WITH(topk(tensor(5.0), 2), Catch::Contains("topk") && Catch::Contains("k = 2"));
  REQUIRE_THROWS_WITH(topk(zeros({2, 3}), 4), Catch::Contains("topk") && Catch::Contains("[2, 3]"));
  REQUIRE_THROWS_WITH(topk(zeros({2, 3}), -1), Catch::Contains("k = -1"));
  REQUIRE_THROWS_WITH(topk(tensor({true, false}), 1), Catch::Contains("topk") && Catch::Contains("bool"));
  REQUIRE(std::get<0>(topk(zeros({0, 3}), 2, 1)).sizes() == IntArrayRef{0, 2});
}

TEST_CASE("kthvalue is position k - 1 of a stable ascending sort, keepdim or not", "[sort]") {
  // torch 1.13.1: tensor([2., nan, 1., nan]).kthvalue(3) -> (nan, 1); .kthvalue(4) -> (nan, 3)
  const Tensor y = tensor({2.0, kNaN, 1.0, kNaN}, kDouble);
  require_values(std::get<1>(kthvalue(y, 3)), {1});
  require_values(std::get<1>(y.kthvalue(4)), {3});
  require_values(std::get<0>(y.kthvalue(1)), {1});
  const Tensor x = tied({4, 5, 6});
  for (int64_t d : {0, 1, 2})
    for (int64_t k = 1; k <= x.size(d); ++k) {
      INFO("dim " << d << ", k " << k);
      auto [v, i] = kthvalue(x.transpose(0, 2).transpose(0, 2), k, d, true);
      REQUIRE(i.size(d) == 1);
      const std::vector<std::vector<double>> rows = rows_along(x, d), got = rows_along(i, d);
      for (size_t r = 0; r < rows.size(); ++r)
        REQUIRE(got[r][0] == double(reference_order(rows[r], false)[k - 1]));
      require_values(v, values(x.gather(d, i)));
      REQUIRE(std::get<0>(kthvalue(x, k, d)).sizes() == std::get<0>(kthvalue(x, k, d, true)).squeeze(d).sizes());
    }
}

TEST_CASE("kthvalue rejects k out of range, empty dims and bool (torch 1.13)", "[sort]") {
  REQUIRE_THROWS_WITH(kthvalue(zeros({2, 3}), 0), Catch::Contains("kthvalue") && Catch::Contains("k = 0"));
  REQUIRE_THROWS_WITH(kthvalue(zeros({2, 3}), 4, 1), Catch::Contains("kthvalue") && Catch::Contains("[2, 3]"));
  REQUIRE_THROWS_WITH(kthvalue(zeros({2, 0}), 1, 1), Catch::Contains("kthvalue") && Catch::Contains("empty"));
  REQUIRE_THROWS_WITH(kthvalue(zeros({2, 3}), 1, 2), Catch::Contains("kthvalue") && Catch::Contains("out of range"));
  REQUIRE_THROWS_WITH(kthvalue(tensor({true}), 1), Catch::Contains("bool"));
  auto [v, i] = kthvalue(tensor(5.0), 1);  // torch 1.13.1: (tensor(5.), tensor(0))
  REQUIRE(v.dim() == 0);
  require_values(i, {0});
  REQUIRE(std::get<0>(kthvalue(zeros({0, 3}), 2, 1)).sizes() == IntArrayRef{0});
}

TEST_CASE("median is the lower median; NaN in a row gives NaN at its first NaN (torch 1.13)", "[sort]") {
  // torch 1.13.1: tensor([4., 1, 3, 2]).median() -> 2; .median(0) -> (2, 3);
  // tensor([1., nan, 2., nan]).median(0) -> (nan, 1); .median() -> nan; tensor([]).median() -> nan;
  // tensor([3, 1, 2]).median(0) -> (2, 2)
  const Tensor x = tensor({4.0, 1.0, 3.0, 2.0}, kDouble);
  require_values(median(x), {2});
  REQUIRE(median(x).dim() == 0);
  auto [v, i] = x.median(0);
  require_values(v, {2});
  require_values(i, {3});
  const Tensor y = tensor({1.0, kNaN, 2.0, kNaN}, kDouble);
  auto [nv, ni] = median(y, 0);
  require_values(nv, {kNaN});
  require_values(ni, {1});
  require_values(y.median(), {kNaN});
  require_values(median(zeros({0})), {kNaN});
  auto [lv, li] = median(tensor({3, 1, 2}, kLong), 0);
  REQUIRE(lv.scalar_type() == kLong);
  require_values(lv, {2});
  require_values(li, {2});
}

TEST_CASE("median along a dim matches the reference, keepdim keeps a size-1 dim", "[sort]") {
  const Tensor x = tied({5, 6, 7});
  for (int64_t d : {0, 1, 2}) {
    INFO("dim " << d);
    auto [v, i] = median(x.transpose(1, 2).transpose(1, 2), d, true);
    REQUIRE(v.size(d) == 1);
    const std::vector<std::vector<double>> rows = rows_along(x, d), got = rows_along(i, d);
    for (size_t r = 0; r < rows.size(); ++r) {
      const std::vector<double>& row = rows[r];
      const auto nan = std::find_if(row.begin(), row.end(), [](double e) { return std::isnan(e); });
      const int64_t want = nan != row.end() ? nan - row.begin()
                                            : reference_order(row, false)[(row.size() - 1) / 2];
      INFO("row " << r);
      REQUIRE(got[r][0] == double(want));
    }
    require_values(v, values(x.gather(d, i)));
    REQUIRE(std::get<0>(median(x, d)).dim() == 2);
  }
}

TEST_CASE("median rejects bool, empty dims, and empty int64 tensors", "[sort]") {
  REQUIRE_THROWS_WITH(median(tensor({true, false})), Catch::Contains("median") && Catch::Contains("bool"));
  REQUIRE_THROWS_WITH(median(zeros({2, 0}), 1), Catch::Contains("median") && Catch::Contains("[2, 0]"));
  REQUIRE_THROWS_WITH(median(zeros({0}, kLong)), Catch::Contains("median"));
  REQUIRE_THROWS_WITH(median(zeros({2, 3}), -3), Catch::Contains("median") && Catch::Contains("[2, 3]"));
}

TEST_CASE("sort, topk, kthvalue and median values pass gradcheck and gradgradcheck", "[sort]") {
  Tensor x = distinct(4, 5).t().requires_grad_();  // (5, 4), non-contiguous
  const std::vector<std::function<Tensor(const tensor_list&)>> fns = {
      [](const tensor_list& in) { return std::get<0>(sort(in[0], 0)); },
      [](const tensor_list& in) { return std::get<0>(sort(in[0], 1, true)); },
      [](const tensor_list& in) { return msort(in[0]); },
      [](const tensor_list& in) { return std::get<0>(topk(in[0], 2, 0)); },
      [](const tensor_list& in) { return std::get<0>(topk(in[0], 3, 1, false, false)); },
      [](const tensor_list& in) { return std::get<0>(kthvalue(in[0], 2, 1)); },
      [](const tensor_list& in) { return std::get<0>(kthvalue(in[0], 4, 0, true)); },
      [](const tensor_list& in) { return std::get<0>(median(in[0], 0)); },
      [](const tensor_list& in) { return median(in[0]); },
  };
  for (size_t k = 0; k < fns.size(); ++k) {
    INFO("function " << k);
    REQUIRE_GRADCHECK(gradcheck(fns[k], {x}));
    REQUIRE_GRADCHECK(gradgradcheck(fns[k], {x}));
  }
}

TEST_CASE("sort's values gradient routes each output gradient to its source element", "[sort]") {
  // d sort(x)[j] / d x[i[j]] = 1: the gradient of sum(w * sorted) is w placed at the indices.
  Tensor x = tensor({0.5, -2.0, 3.0, 1.0}, kDouble).requires_grad_();
  auto [v, i] = sort(x, 0, true);  // indices [2, 3, 0, 1]
  (v * tensor({1.0, 2.0, 3.0, 4.0}, kDouble)).sum().backward();
  require_values(x.grad(), {3, 4, 1, 2});
  REQUIRE_FALSE(i.requires_grad());
}
