// unique_consecutive and _unique2 (core/ops/reduction/unique.cpp): values, inverse and
// counts against cases checked with torch 1.13.1 and a std::map reference.
#include <limits>
#include <map>

#include "test_helpers.h"

using namespace ember;
using ember_test::require_values;
using ember_test::values;

namespace {
const double kNaN = std::numeric_limits<double>::quiet_NaN();
}

TEST_CASE("unique_consecutive keeps one element per run; each NaN is its own run (torch 1.13)",
          "[sort][unique]") {
  // torch 1.13.1: unique_consecutive([1, 1, nan, nan, 2, 2, 2, 1], return_inverse=True, return_counts=True)
  // -> [1, nan, nan, 2, 1], [0, 0, 1, 2, 3, 3, 3, 4], [2, 1, 1, 3, 1]
  const Tensor x = tensor({1.0, 1.0, kNaN, kNaN, 2.0, 2.0, 2.0, 1.0}, kDouble);
  auto [v, inv, cnt] = unique_consecutive(x, true, true);
  require_values(v, {1, kNaN, kNaN, 2, 1});
  require_values(inv, {0, 0, 1, 2, 3, 3, 3, 4});
  require_values(cnt, {2, 1, 1, 3, 1});
  REQUIRE(inv.scalar_type() == kLong);
  // Not asked for: empty int64 tensors.
  auto [v2, inv2, cnt2] = unique_consecutive(x);
  REQUIRE(v2.numel() == 5);
  REQUIRE(inv2.sizes() == IntArrayRef{0});
  REQUIRE(cnt2.sizes() == IntArrayRef{0});
}

TEST_CASE("unique_consecutive of 2-d, 0-d, empty tensors and along a dim (torch 1.13)",
          "[sort][unique]") {
  // torch 1.13.1: unique_consecutive([[1, 2], [1, 2], [3, 4]], dim=0, ...) -> [[1, 2], [3, 4]], [0, 0, 1], [2, 1];
  // tensor(5.) -> [5.], tensor(0), [1]; zeros(0, 3) -> [], inverse of shape (0, 3), []
  const Tensor m = tensor({1, 2, 1, 2, 3, 4}, kLong).view({3, 2});
  auto [v, inv, cnt] = unique_consecutive(m, true, true, 0);
  REQUIRE(v.sizes() == IntArrayRef{2, 2});
  require_values(v, {1, 2, 3, 4});
  require_values(inv, {0, 0, 1});
  require_values(cnt, {2, 1});
  auto [cv, cinv, ccnt] = unique_consecutive(m, true, true, 1);  // columns [1,1,3] and [2,2,4] differ
  REQUIRE(cv.sizes() == IntArrayRef{3, 2});
  require_values(ccnt, {1, 1});
  auto [fv, finv, fcnt] = unique_consecutive(m, true, true);  // flattened: [1, 2, 1, 2, 3, 4]
  require_values(fv, {1, 2, 1, 2, 3, 4});
  REQUIRE(finv.sizes() == IntArrayRef{3, 2});
  auto [sv, sinv, scnt] = unique_consecutive(tensor(5.0), true, true);
  require_values(sv, {5});
  REQUIRE(sinv.dim() == 0);
  require_values(scnt, {1});
  auto [ev, einv, ecnt] = unique_consecutive(zeros({0, 3}), true, true);
  REQUIRE(ev.sizes() == IntArrayRef{0});
  REQUIRE(einv.sizes() == IntArrayRef{0, 3});
  REQUIRE(ecnt.sizes() == IntArrayRef{0});
  REQUIRE_THROWS_WITH(unique_consecutive(m, false, false, 2),
                      Catch::Contains("unique_consecutive") && Catch::Contains("[3, 2]"));
}

TEST_CASE("_unique2 gives the sorted distinct values, inverse and counts (torch 1.13)",
          "[sort][unique]") {
  // torch 1.13.1: _unique2([[3, 1], [1, 2]], True, True, True) -> [1, 2, 3], [[2, 0], [0, 1]], [2, 1, 1];
  // _unique2([True, False, True], True, True, True) -> [False, True], [1, 0, 1], [1, 2]
  auto [v, inv, cnt] = _unique2(tensor({3, 1, 1, 2}, kLong).view({2, 2}), true, true, true);
  require_values(v, {1, 2, 3});
  REQUIRE(inv.sizes() == IntArrayRef{2, 2});
  require_values(inv, {2, 0, 0, 1});
  require_values(cnt, {2, 1, 1});
  auto [bv, binv, bcnt] = _unique2(tensor({true, false, true}), true, true, true);
  REQUIRE(bv.scalar_type() == kBool);
  require_values(bv, {0, 1});
  require_values(binv, {1, 0, 1});
  require_values(bcnt, {1, 2});
}

TEST_CASE("_unique2 matches a std::map count of the elements", "[sort][unique]") {
  std::vector<double> in(500);
  for (size_t i = 0; i < in.size(); ++i) in[i] = double((i * 37) % 23) - 11.0;
  std::map<double, int64_t> counted;
  for (double e : in) ++counted[e];
  auto [v, inv, cnt] = _unique2(tensor(in, kDouble), true, true, true);
  std::vector<double> want_values, want_counts, want_inverse;
  for (const auto& [value, count] : counted) {
    want_values.push_back(value);
    want_counts.push_back(double(count));
  }
  for (double e : in)
    want_inverse.push_back(double(std::distance(counted.begin(), counted.find(e))));
  require_values(v, want_values);
  require_values(cnt, want_counts);
  require_values(inv, want_inverse);
}

TEST_CASE("_unique2 puts each NaN last as its own element; results record no gradient",
          "[sort][unique]") {
  Tensor x = tensor({3.0, kNaN, 1.0, 3.0, kNaN}, kDouble).requires_grad_();
  auto [v, inv, cnt] = _unique2(x, true, true, true);
  require_values(v, {1, 3, kNaN, kNaN});
  require_values(inv, {1, 2, 0, 1, 3});
  require_values(cnt, {1, 2, 1, 1});
  REQUIRE_FALSE(v.requires_grad());
}
