// DistributedDataParallel across 2-3 ranks, each a process of ember_ddp_worker
// (ddp_worker.cpp holds the checks; here: who runs, and what they must print).
#include <catch2/catch.hpp>

#include <string>

#include "require_ranks.h"

using Catch::Contains;
using ember_test::RankRun;
using ember_test::Scenario;
using ember_test::require_all_ok;

namespace {

Scenario ddp(const std::string& name, int world) {
  Scenario s(name, world);
  s.worker = EMBER_DDP_WORKER;
  return s;
}

}  // namespace

TEST_CASE("DDP: ranks start from rank 0's weights, stay bit-identical, and match one process "
          "on the concatenated batch", "[distributed][ddp]") {
  require_all_ok(ddp("ddp_equivalence", 2));
  require_all_ok(ddp("ddp_equivalence", 3));
}

TEST_CASE("DDP: gradient_as_bucket_view gives the same training", "[distributed][ddp]") {
  require_all_ok(ddp("ddp_bucket_view", 2));
}

TEST_CASE("DDP: bfloat16 gradients are the ranks' mean rounded once; weights stay identical",
          "[distributed][ddp]") {
  require_all_ok(ddp("ddp_bfloat16", 3));
}

TEST_CASE("DDP: the first bucket's allreduce starts before backward ends", "[distributed][ddp]") {
  require_all_ok(ddp("ddp_overlap", 2));
}

TEST_CASE("DDP: buffers come from rank 0 at construction and before each training forward",
          "[distributed][ddp]") {
  require_all_ok(ddp("ddp_buffers", 2));
}

TEST_CASE("DDP: no_sync issues no collective; the next backward reduces the summed gradient",
          "[distributed][ddp]") {
  require_all_ok(ddp("ddp_no_sync", 2));
}

TEST_CASE("DDP: different models raise on every rank, naming the rank and the parameter",
          "[distributed][ddp]") {
  const auto runs = require_all_ok(ddp("ddp_mismatch", 3));
  for (const RankRun& run : runs) {
    REQUIRE_THAT(run.output, Contains("construction error: DistributedDataParallel (rank " +
                                      std::to_string(run.rank) + "): rank 1's model differs from "
                                      "rank 0's at parameter 0: rank 0 has 'fc1.weight' float64 "
                                      "[16, 6], rank 1 has 'fc1.weight' float64 [17, 6]"));
  }
}

TEST_CASE("DDP: a parameter without gradient is a named error, or zeros with "
          "find_unused_parameters", "[distributed][ddp]") {
  const auto runs = require_all_ok(ddp("ddp_unused_error", 2));
  for (const RankRun& run : runs) {
    REQUIRE_THAT(run.output, Contains("backward error: DistributedDataParallel (rank " +
                                      std::to_string(run.rank) + "): parameter 'extra.weight'"));
    REQUIRE_THAT(run.output, Contains("find_unused_parameters(true)"));
  }
  require_all_ok(ddp("ddp_find_unused", 2));
}

TEST_CASE("DDP: uneven inputs under join() finish on every rank", "[distributed][ddp]") {
  const auto runs = require_all_ok(ddp("ddp_join", 3));
  for (const RankRun& run : runs)
    REQUIRE_THAT(run.output, Contains("trained " + std::to_string(2 + run.rank) + " steps"));
}

TEST_CASE("DDP: a rank that stops coming is named in the others' timeout, with the bucket",
          "[distributed][ddp]") {
  const auto runs = require_all_ok(ddp("ddp_timeout", 2));
  const std::string& out = runs[0].output;
  REQUIRE_THAT(out, Contains("timeout error: allreduce #"));
  REQUIRE_THAT(out, Contains("ranks that did not arrive: 1"));
  REQUIRE_THAT(out, Contains("in DistributedDataParallel's gradient bucket 0 of"));
}
