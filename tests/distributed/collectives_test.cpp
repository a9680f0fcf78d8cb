// The collectives across 2-4 ranks, each a process of ember_distributed_worker
// (worker.cpp holds the checks; here: who runs, and what they must print).
#include <catch2/catch.hpp>

#include <string>

#include "require_ranks.h"

using Catch::Contains;
using ember_test::RankRun;
using ember_test::Scenario;
using ember_test::require_all_ok;

TEST_CASE("allreduce: SUM, AVG, PRODUCT, MIN, MAX of float32, float64, int64 match the closed forms",
          "[distributed]") {
  for (int world : {2, 3, 4}) {
    INFO("world size " << world);
    require_all_ok({"allreduce", world});
  }
}

TEST_CASE("allreduce of bfloat16, float16, uint8, int8, int16, int32: the closed form in the dtype",
          "[distributed]") {
  require_all_ok({"allreduce_narrow", 3});
}

TEST_CASE("broadcast from rank 1, all_gather, barrier", "[distributed]") {
  require_all_ok({"broadcast", 3});
  require_all_ok({"allgather", 3});
  require_all_ok({"barrier", 2});
}

TEST_CASE("async allreduces return at once, are waited for in reverse order, ran in order", "[distributed]") {
  require_all_ok({"async", 2});
}

TEST_CASE("a rank that never arrives: the others' timeout names it", "[distributed]") {
  const auto runs = ember_test::run_ranks({"timeout", 3});
  INFO(ember_test::describe(runs));
  for (const RankRun& run : runs) {
    REQUIRE(run.exit_code == 0);
    if (run.rank == 2) continue;  // the sleeper
    REQUIRE_THAT(run.output, Contains("timeout error: allreduce #0 (gloo, rank " + std::to_string(run.rank)));
    REQUIRE_THAT(run.output, Contains("ranks that did not arrive: 2 ("));
    REQUIRE_THAT(run.output, Contains("5 elements of float32, SUM"));
    REQUIRE_THAT(run.output, Contains("later error: barrier (gloo, rank"));
    REQUIRE_THAT(run.output, Contains("unusable after an earlier collective failed: allreduce #0"));
  }
}

TEST_CASE("a rank that dies: the others fail without waiting for the timeout and name it", "[distributed]") {
  const auto runs = ember_test::run_ranks({"dead_rank", 3});
  INFO(ember_test::describe(runs));
  for (const RankRun& run : runs) {
    REQUIRE(run.exit_code == 0);
    REQUIRE_THAT(run.output, Contains("OK dead_rank"));
    if (run.rank == 2) continue;  // the one that died
    REQUIRE_THAT(run.output, Contains("dead peer error: allreduce #1 (gloo, rank " + std::to_string(run.rank)));
    // The dead rank is named; on a loaded machine a survivor may notice the
    // death only when the other survivor gives up, and name both.
    REQUIRE_THAT(run.output, Catch::Matches("[\\s\\S]* ms; 5 elements of float64, SUM; ranks that did "
                                            "not arrive: ([01], )?2 \\([\\s\\S]*"));
  }
}

TEST_CASE("EMBER_DISTRIBUTED_DEBUG=1: mismatched shapes raise the same named error on every rank",
          "[distributed]") {
  Scenario scenario{"debug_mismatch", 3};
  scenario.env = [](int) { return std::vector<std::string>{"EMBER_DISTRIBUTED_DEBUG=1"}; };
  const auto runs = ember_test::run_ranks(scenario);
  INFO(ember_test::describe(runs));
  for (const RankRun& run : runs) {
    REQUIRE(run.exit_code == 0);
    REQUIRE_THAT(run.output, Contains("mismatch error: allreduce #0"));
    REQUIRE_THAT(run.output, Contains("rank 1 issued 'allreduce #0 SUM float32 [3]' where rank 0 issued "
                                      "'allreduce #0 SUM float32 [2]'"));
  }
}

TEST_CASE("env:// rendezvous from MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE", "[distributed]") {
  Scenario scenario{"env", 2};
  const int port = ember_test::free_port();
  scenario.env = [port](int rank) {
    return std::vector<std::string>{"MASTER_ADDR=127.0.0.1", "MASTER_PORT=" + std::to_string(port),
                                    "RANK=" + std::to_string(rank), "WORLD_SIZE=2", "LOCAL_RANK=" + std::to_string(rank)};
  };
  const auto runs = ember_test::run_ranks(scenario);
  INFO(ember_test::describe(runs));
  for (const RankRun& run : runs) {
    REQUIRE(run.exit_code == 0);
    REQUIRE_THAT(run.output, Contains("OK env"));
  }
}
