#pragma once
// Runs a scenario's ranks and requires that each finished in time, exited 0
// and printed "OK SCENARIO"; returns the runs for further checks of their output.
#include <catch2/catch.hpp>

#include <vector>

#include "spawn_ranks.h"

namespace ember_test {

inline std::vector<RankRun> require_all_ok(const Scenario& scenario) {
  const auto runs = run_ranks(scenario);
  INFO(describe(runs));
  for (const RankRun& run : runs) {
    REQUIRE_FALSE(run.killed);
    REQUIRE(run.exit_code == 0);
    REQUIRE_THAT(run.output, Catch::Contains("OK " + scenario.name));
  }
  return runs;
}

}  // namespace ember_test
