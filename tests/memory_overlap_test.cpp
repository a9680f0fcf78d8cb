// In-place ops refuse written-to tensors with internal overlap and inputs
// that partially overlap them (PyTorch's rules, core/memory_overlap.h); the
// layouts they cannot decide, and the ones that are safe, go through.
#include "test_helpers.h"

#include <ember/core/memory_overlap.h>

using namespace ember;
using ember_test::values;

TEST_CASE("memory overlap: dense layouts are the permutations of a contiguous one", "[overlap]") {
  CHECK(is_non_overlapping_and_dense({2, 3}, {3, 1}));
  CHECK(is_non_overlapping_and_dense({2, 3}, {1, 2}));             // transposed
  CHECK(is_non_overlapping_and_dense({2, 1, 3}, {3, 99, 1}));      // a size-1 dim's stride is free
  CHECK(is_non_overlapping_and_dense({4, 0}, {0, 0}));             // no elements
  CHECK_FALSE(is_non_overlapping_and_dense({2, 3}, {0, 1}));       // expanded
  CHECK_FALSE(is_non_overlapping_and_dense({2, 3}, {6, 2}));       // every other column
  CHECK_FALSE(is_non_overlapping_and_dense({2, 2}, {1, 1}));       // elements shared
}

TEST_CASE("memory overlap: internal overlap and the status of two tensors", "[overlap]") {
  const Tensor x = arange(12, kFloat).reshape({3, 4});
  CHECK(has_internal_overlap(x) == MemOverlap::kNo);
  CHECK(has_internal_overlap(x.t()) == MemOverlap::kNo);
  CHECK(has_internal_overlap(ones({1, 4}).expand({3, 4})) == MemOverlap::kYes);
  CHECK(has_internal_overlap(x.slice(1, 0, 4, 2)) == MemOverlap::kTooHard);

  const Tensor flat = x.reshape({-1});
  CHECK(get_overlap_status(x, x) == MemOverlapStatus::kFull);
  CHECK(get_overlap_status(flat, x.view({12})) == MemOverlapStatus::kFull);
  CHECK(get_overlap_status(flat.slice(0, 1, 12), flat.slice(0, 0, 11)) ==
        MemOverlapStatus::kPartial);
  CHECK(get_overlap_status(flat, flat.select(0, 0)) == MemOverlapStatus::kPartial);
  CHECK(get_overlap_status(flat.slice(0, 0, 6), flat.slice(0, 6, 12)) == MemOverlapStatus::kNo);
  CHECK(get_overlap_status(x, x.clone()) == MemOverlapStatus::kNo);
  const Tensor square = arange(4, kFloat).reshape({2, 2});
  CHECK(get_overlap_status(square, square.t()) == MemOverlapStatus::kPartial);
  CHECK(get_overlap_status(x.select(1, 0), x.select(1, 1)) == MemOverlapStatus::kTooHard);
  CHECK(get_overlap_status(x, x.slice(0, 0, 0)) == MemOverlapStatus::kNo);  // empty
}

TEST_CASE("memory overlap: in-place ops raise on overlap, naming the op and the layouts",
          "[overlap]") {
  // Named, not composed here: Catch2 v2's composed matchers keep references.
  const Catch::Matchers::StdString::ContainsMatcher partial = Catch::Contains(
      "refer to a single memory location; clone() the input first");
  const Catch::Matchers::StdString::ContainsMatcher internal =
      Catch::Contains("more than one element of the written-to tensor");

  Tensor a = arange(1, 5, kFloat);
  REQUIRE_THROWS_WITH(a.sub_(a.select(0, 0)),
                      Catch::StartsWith("add_: unsupported operation") && partial);
  REQUIRE_THROWS_WITH(a.slice(0, 1, 4).add_(a.slice(0, 0, 3)), partial);
  REQUIRE_THROWS_WITH(a.slice(0, 0, 2).mul_(a.slice(0, 1, 3)), partial);
  REQUIRE_THROWS_WITH(a.slice(0, 0, 2).div_(a.slice(0, 1, 3)), partial);
  Tensor m = arange(4, kFloat).reshape({2, 2});
  REQUIRE_THROWS_WITH(m.copy_(m.t()),
                      Catch::StartsWith("copy_: unsupported operation") && partial &&
                          Catch::Contains("strides [1, 2]"));
  Tensor s = zeros({5});
  REQUIRE_THROWS_WITH(s.scatter_add_(0, tensor({int64_t(0), int64_t(1)}), s.slice(0, 1, 3)),
                      Catch::StartsWith("scatter_add_: unsupported operation") && partial);
  // scatter refuses its own tensor as the source too (full overlap), as PyTorch.
  Tensor t3 = tensor({1.0, 2.0, 3.0});
  REQUIRE_THROWS_WITH(t3.scatter_add_(0, tensor({int64_t(0), int64_t(0), int64_t(1)}), t3),
                      partial);
  CHECK(values(t3) == std::vector<double>{1, 2, 3});
  // Nothing was written by the refused ops.
  CHECK(values(a) == std::vector<double>{1, 2, 3, 4});
  CHECK(values(m) == std::vector<double>{0, 1, 2, 3});

  for (auto op : {+[](Tensor t) { t.add_(1); }, +[](Tensor t) { t.neg_(); },
                  +[](Tensor t) { t.relu_(); }, +[](Tensor t) { t.clamp_(0.0, 1.0); },
                  +[](Tensor t) { t.copy_(ones({3})); }, +[](Tensor t) { t.uniform_(); },
                  +[](Tensor t) { t.normal_(); }})
    REQUIRE_THROWS_WITH(op(zeros({1}).expand({3})), internal && Catch::Contains("strides [0]"));
}

TEST_CASE("memory overlap: the same elements, disjoint parts and fill_ are allowed", "[overlap]") {
  Tensor a = arange(1, 5, kFloat);
  a.mul_(a);  // each element reads itself
  CHECK(values(a) == std::vector<double>{1, 4, 9, 16});
  Tensor q = arange(8, kFloat).reshape({2, 4});
  q.slice(1, 0, 2).add_(q.slice(1, 2, 4));  // interleaved but disjoint: "too hard", let through
  CHECK(values(q) == std::vector<double>{2, 4, 2, 3, 10, 12, 6, 7});
  Tensor h = arange(6, kFloat);
  h.slice(0, 0, 3).sub_(h.slice(0, 3, 6));  // disjoint halves
  CHECK(values(h) == std::vector<double>{-3, -3, -3, 3, 4, 5});
  Tensor e = zeros({1});
  e.expand({3}).fill_(2);  // every element gets the same value: allowed, as PyTorch
  CHECK(values(e) == std::vector<double>{2});
  Tensor c = arange(4, kFloat);
  c.copy_(c.view({4}));  // the same elements in the same layout
  CHECK(values(c) == std::vector<double>{0, 1, 2, 3});
}
