// searchsorted, bucketize, bincount and histc (core/ops/indexing/bucketing.cpp, CPU
// kernels in kernels/cpu/bucketing.cpp): against linear scans and counts
// written in the test, and error messages.
#include <cmath>
#include <limits>

#include "test_helpers.h"

using namespace ember;
using ember_test::require_values;
using ember_test::values;

namespace {
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// The insertion point by a linear scan: the count of elements < v (<= v when right).
int64_t scan(const std::vector<double>& seq, double v, bool right) {
  int64_t i = 0;
  while (i < static_cast<int64_t>(seq.size()) && (right ? seq[i] <= v : seq[i] < v)) ++i;
  return i;
}
}  // namespace

TEST_CASE("searchsorted finds left and right insertion points in a 1-d sequence", "[bucketing]") {
  const std::vector<double> seq = {1, 3, 3, 5, 7, 9};
  const std::vector<double> vals = {0, 1, 2, 3, 4, 9, 10, -5, 5};
  const Tensor s = tensor(seq, kDouble), v = tensor(vals, kDouble).view({3, 3});
  for (bool right : {false, true}) {
    std::vector<double> want;
    for (double x : vals) want.push_back(static_cast<double>(scan(seq, x, right)));
    INFO("right " << right);
    const Tensor out = searchsorted(s, v, false, right);
    REQUIRE(out.scalar_type() == kLong);
    REQUIRE(out.sizes() == IntArrayRef{3, 3});
    require_values(out, want);
    require_values(searchsorted(s, v, false, false, right ? "right" : "left"), want);
    require_values(bucketize(v, s, false, right), want);
  }
  require_values(searchsorted(s, 3), {1});
  require_values(searchsorted(s, 3, false, true), {3});
  REQUIRE(searchsorted(s, 3).dim() == 0);
  require_values(bucketize(4.5, s), {3});
  // Integer values in a float sequence: common dtype; non-contiguous values.
  require_values(searchsorted(s, tensor({{2, 6}, {8, 0}}, kLong).t()), {1, 5, 4, 0});
  // NaN goes past every element.
  require_values(searchsorted(s, tensor({kNaN}, kDouble)), {6});
  require_values(searchsorted(zeros({0}, kDouble), tensor({1.0}, kDouble)), {0});
}

TEST_CASE("searchsorted with row-wise sequences and a sorter", "[bucketing]") {
  // Two rows of boundaries, each with its own values.
  const Tensor s = tensor({{1.0, 2.0, 3.0}, {10.0, 20.0, 30.0}}, kDouble);
  const Tensor v = tensor({{2.5, 0.0}, {20.0, 31.0}}, kDouble);
  require_values(searchsorted(s, v), {2, 0, 1, 3});
  require_values(searchsorted(s, v, false, true), {2, 0, 2, 3});
  // An unsorted sequence and its argsort.
  const Tensor unsorted = tensor({5.0, 1.0, 9.0, 3.0}, kDouble);
  const Tensor order = argsort(unsorted);  // sorted: 1 3 5 9
  require_values(searchsorted(unsorted, tensor({0.0, 3.0, 6.0, 10.0}, kDouble), false, false, std::nullopt, order),
                 {0, 1, 3, 4});
  require_values(searchsorted(unsorted, tensor({3.0}, kDouble), false, true, std::nullopt, order), {2});
}

TEST_CASE("searchsorted and bucketize reject mismatched shapes, sides and sorters", "[bucketing]") {
  const Tensor s = tensor({{1.0, 2.0}, {3.0, 4.0}}, kDouble);
  REQUIRE_THROWS_WITH(searchsorted(s, zeros({3, 1}, kDouble)), Catch::Contains("searchsorted") && Catch::Contains("[2, 2]") && Catch::Contains("[3, 1]"));
  REQUIRE_THROWS_WITH(searchsorted(full({}, 1.0), zeros({1})), Catch::Contains("searchsorted") && Catch::Contains("0-d"));
  REQUIRE_THROWS_WITH(searchsorted(tensor({1.0}), zeros({1}), false, true, "left"), Catch::Contains("searchsorted") && Catch::Contains("opposite"));
  REQUIRE_THROWS_WITH(searchsorted(tensor({1.0}), zeros({1}), false, false, "middle"), Catch::Contains("middle"));
  REQUIRE_THROWS_WITH(searchsorted(tensor({1.0, 2.0}), zeros({1}), false, false, std::nullopt, tensor({0, 2}, kLong)),
                      Catch::Contains("sorter") && Catch::Contains("out of range"));
  REQUIRE_THROWS_WITH(searchsorted(tensor({1.0, 2.0}), zeros({1}), false, false, std::nullopt, tensor({0}, kLong)),
                      Catch::Contains("sorter") && Catch::Contains("[1]"));
  REQUIRE_THROWS_WITH(bucketize(zeros({2}), s), Catch::Contains("bucketize") && Catch::Contains("1-d"));
}

TEST_CASE("bincount counts values, sums weights and honours minlength", "[bucketing]") {
  const Tensor x = tensor({1, 3, 1, 0, 3, 3}, kLong);
  const Tensor counts = bincount(x);
  REQUIRE(counts.scalar_type() == kLong);
  require_values(counts, {1, 2, 0, 3});
  require_values(x.bincount(std::nullopt, 6), {1, 2, 0, 3, 0, 0});
  const Tensor w = tensor({0.5, 1.0, 2.0, 4.0, 8.0, 16.0}, kDouble);
  const Tensor weighted = bincount(x, w);
  REQUIRE(weighted.scalar_type() == kDouble);
  require_values(weighted, {4, 2.5, 0, 25});
  REQUIRE(bincount(x, w.to(kFloat)).scalar_type() == kFloat);
  REQUIRE(bincount(x, tensor({1, 1, 1, 1, 1, 1}, kLong)).scalar_type() == kDouble);
  require_values(bincount(zeros({0}, kLong), std::nullopt, 3), {0, 0, 0});
  require_values(bincount(tensor({{2, 0}, {2, 1}}, kLong).t().reshape({-1})), {1, 1, 2});
}

TEST_CASE("bincount rejects negative values, bad shapes and weights", "[bucketing]") {
  REQUIRE_THROWS_WITH(bincount(tensor({1, -1}, kLong)), Catch::Contains("bincount") && Catch::Contains("non-negative"));
  REQUIRE_THROWS_WITH(bincount(zeros({2, 2}, kLong)), Catch::Contains("bincount") && Catch::Contains("[2, 2]"));
  REQUIRE_THROWS_WITH(bincount(tensor({1.0})), Catch::Contains("bincount") && Catch::Contains("float32"));
  REQUIRE_THROWS_WITH(bincount(tensor({1, 2}, kLong), tensor({1.0})), Catch::Contains("bincount") && Catch::Contains("weights"));
  REQUIRE_THROWS_WITH(bincount(tensor({1}, kLong), std::nullopt, -1), Catch::Contains("minlength"));
}

TEST_CASE("histc counts elements into equal bins over [min, max]", "[bucketing]") {
  const Tensor x = tensor({1.0, 2.0, 1.0, 4.0, 2.5, 0.0, 5.0, kNaN}, kDouble);
  // [0, 4] in 4 bins of width 1: 0 | 1 1 | 2 2.5 | 4 (the max goes to the last bin); 5 and NaN out.
  const Tensor h = histc(x, 4, 0, 4);
  REQUIRE(h.scalar_type() == kDouble);
  require_values(h, {1, 2, 2, 1});
  // min == max (the default): the data's range, [0, 5] here.
  const Tensor y = tensor({1.0, 2.0, 1.0, 4.0, 2.5, 0.0, 5.0}, kDouble);
  require_values(y.histc(5), {1, 2, 2, 0, 2});
  // All equal: the range widens to [v - 1, v + 1].
  require_values(histc(full({3}, 2.0f), 2), {0, 3});
  require_values(histc(tensor({{0.1f, 0.6f}, {0.7f, 0.2f}}).t(), 2, 0, 1), {2, 2});
  require_values(histc(zeros({0}, kDouble), 3), {0, 0, 0});
}

TEST_CASE("histc rejects integer inputs, bad bins and ranges", "[bucketing]") {
  REQUIRE_THROWS_WITH(histc(tensor({1, 2}, kLong)), Catch::Contains("histc") && Catch::Contains("int64"));
  REQUIRE_THROWS_WITH(histc(tensor({1.0}), 0), Catch::Contains("histc") && Catch::Contains("bins"));
  REQUIRE_THROWS_WITH(histc(tensor({1.0}), 2, 3, 1), Catch::Contains("histc") && Catch::Contains("min"));
  REQUIRE_THROWS_WITH(histc(tensor({1.0}), 2, 0, std::numeric_limits<double>::infinity()),
                      Catch::Contains("histc") && Catch::Contains("finite"));
}

TEST_CASE("bucketing results do not require grad", "[bucketing]") {
  const Tensor s = tensor({1.0, 2.0}, kDouble).requires_grad_();
  const Tensor v = tensor({1.5}, kDouble).requires_grad_();
  REQUIRE_FALSE(searchsorted(s, v).requires_grad());
  REQUIRE_FALSE(histc(v, 2).requires_grad());
}
