// How DistributedDataParallel groups gradients into buckets (bucket_plan.h):
// plain data, no process group.
#include <catch2/catch.hpp>

#include <ember/distributed/bucket_plan.h>

#include <vector>

using ember::distributed::detail::BucketedParam;
using ember::distributed::detail::plan_buckets;
using Buckets = std::vector<std::vector<size_t>>;

namespace {
BucketedParam f32(int64_t numel) { return {numel, ember::kFloat, ember::Device(ember::kCPU)}; }
}  // namespace

TEST_CASE("bucket plan: the first bucket closes at its small cap, later ones at the large cap",
          "[distributed]") {
  // 100 floats = 400 bytes each; caps 400 then 1000 bytes.
  const std::vector<BucketedParam> params(6, f32(100));
  const Buckets got = plan_buckets(params, {5, 4, 3, 2, 1, 0}, 400, 1000);
  REQUIRE(got == Buckets{{5}, {4, 3, 2}, {1, 0}});
}

TEST_CASE("bucket plan: a parameter larger than the cap fills a bucket of its own",
          "[distributed]") {
  const std::vector<BucketedParam> params{f32(10), f32(1000), f32(10)};
  REQUIRE(plan_buckets(params, {0, 1, 2}, 100, 100) == Buckets{{0, 1}, {2}});
  REQUIRE(plan_buckets(params, {1, 0, 2}, 100, 100) == Buckets{{1}, {0, 2}});
}

TEST_CASE("bucket plan: a dtype change starts a new bucket; order is kept", "[distributed]") {
  std::vector<BucketedParam> params{f32(1), f32(1), f32(1)};
  params[1].dtype = ember::kDouble;
  REQUIRE(plan_buckets(params, {2, 1, 0}, 1 << 20, 1 << 20) == Buckets{{2}, {1}, {0}});
  REQUIRE(plan_buckets(params, {0, 2, 1}, 1 << 20, 1 << 20) == Buckets{{0, 2}, {1}});
}

TEST_CASE("bucket plan: every parameter lands in exactly one bucket", "[distributed]") {
  std::vector<BucketedParam> params;
  std::vector<size_t> order;
  for (size_t i = 0; i < 37; ++i) {
    params.push_back(f32(static_cast<int64_t>(1 + (i * 7919) % 300)));
    order.push_back(36 - i);
  }
  const Buckets got = plan_buckets(params, order, 256, 2048);
  std::vector<size_t> flat;
  for (const auto& b : got) {
    REQUIRE_FALSE(b.empty());
    flat.insert(flat.end(), b.begin(), b.end());
  }
  REQUIRE(flat == order);
}
