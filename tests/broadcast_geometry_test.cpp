// Note [Broadcast geometry] (kernels/common/broadcast_geometry.h): the merged
// loop shape that both the CPU loops and the CUDA launches walk. Expected
// geometries are worked out by hand from the rule: size-1 dims go, and a dim
// merges into its inner neighbour when every operand's stride there equals
// the inner size times the inner stride.
#include <ember/kernels/common/broadcast_geometry.h>

#include <catch2/catch.hpp>
#include <vector>

using namespace ember;

namespace {

using Dims = std::vector<int64_t>;

std::vector<int64_t> vec(const DimVector& v) { return {v.begin(), v.end()}; }

// The geometry over operand 0's shape (the output's) of operands given as
// {sizes, strides} pairs; the vectors own the dims the IntArrayRefs view.
BroadcastGeometry geometry(const std::vector<std::pair<Dims, Dims>>& operands) {
  std::vector<IntArrayRef> sizes, strides;
  for (const auto& [s, st] : operands) {
    sizes.emplace_back(s);
    strides.emplace_back(st);
  }
  return broadcast_geometry(sizes[0], sizes.data(), strides.data(),
                            static_cast<int>(operands.size()));
}

}  // namespace

TEST_CASE("broadcast geometry: dense operands of one shape are one run", "[broadcast_geometry]") {
  const BroadcastGeometry g = geometry({{{2, 3, 4}, {12, 4, 1}}, {{2, 3, 4}, {12, 4, 1}}});
  CHECK(vec(g.sizes) == std::vector<int64_t>{24});
  CHECK(vec(g.strides[0]) == std::vector<int64_t>{1});
  CHECK(vec(g.strides[1]) == std::vector<int64_t>{1});
}

TEST_CASE("broadcast geometry: a bias over rows keeps two dims, stride 0 on the rows",
          "[broadcast_geometry]") {
  // out (N=5, C=3) + bias (C=3): bias steps 1 along C, 0 along N, so N can
  // not merge into C (0 != 3 * 1).
  const BroadcastGeometry g = geometry({{{5, 3}, {3, 1}}, {{3}, {1}}});
  CHECK(vec(g.sizes) == std::vector<int64_t>{5, 3});
  CHECK(vec(g.strides[0]) == std::vector<int64_t>{3, 1});
  CHECK(vec(g.strides[1]) == std::vector<int64_t>{0, 1});
}

TEST_CASE("broadcast geometry: size-1 dims go, a transposed operand blocks merging",
          "[broadcast_geometry]") {
  // out (4, 1, 3) contiguous; input the transpose of a (3, 4) tensor viewed as
  // (4, 1, 3): strides (1, 4, 4). The size-1 dim goes; 4 != 3 * 4 keeps two
  // dims.
  const BroadcastGeometry g = geometry({{{4, 1, 3}, {3, 3, 1}}, {{4, 1, 3}, {1, 4, 4}}});
  CHECK(vec(g.sizes) == std::vector<int64_t>{4, 3});
  CHECK(vec(g.strides[0]) == std::vector<int64_t>{3, 1});
  CHECK(vec(g.strides[1]) == std::vector<int64_t>{1, 4});
}

TEST_CASE("broadcast geometry: an operand broadcast along the outer dims merges them",
          "[broadcast_geometry]") {
  // out (2, 3, 4) + x (4): x is 0 on both outer dims, which merge into one
  // dim of 6 (x: 0 == 3 * 0; out: 12 == 3 * 4), but not into the inner one.
  const BroadcastGeometry g = geometry({{{2, 3, 4}, {12, 4, 1}}, {{4}, {1}}});
  CHECK(vec(g.sizes) == std::vector<int64_t>{6, 4});
  CHECK(vec(g.strides[0]) == std::vector<int64_t>{4, 1});
  CHECK(vec(g.strides[1]) == std::vector<int64_t>{0, 1});
}

TEST_CASE("broadcast geometry: one element has no dims; three inputs", "[broadcast_geometry]") {
  CHECK(geometry({{{1, 1}, {7, 5}}, {{}, {}}}).sizes.empty());

  // where(cond (2, 1), a (2, 3), b scalar) into out (2, 3).
  const BroadcastGeometry g =
      geometry({{{2, 3}, {3, 1}}, {{2, 1}, {1, 1}}, {{2, 3}, {3, 1}}, {{}, {}}});
  CHECK(vec(g.sizes) == std::vector<int64_t>{2, 3});
  CHECK(vec(g.strides[1]) == std::vector<int64_t>{1, 0});
  CHECK(vec(g.strides[3]) == std::vector<int64_t>{0, 0});
}
