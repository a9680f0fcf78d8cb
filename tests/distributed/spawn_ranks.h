#pragma once
// Runs the ranks of one test scenario as processes of
// ember_distributed_worker (or another rank program) on 127.0.0.1, through
// tests/support/process.h: each with its output captured, every rank killed
// at the deadline.
#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "process.h"  // free_port

namespace ember_test {

struct RankRun {
  int rank = 0;
  int exit_code = -1;   // -1 when killed or ended by a signal
  bool killed = false;  // still running at the deadline
  std::string output;   // stdout and stderr together
};

struct Scenario {
  Scenario(std::string name, int world_size) : name(std::move(name)), world_size(world_size) {}
  std::string name;
  int world_size = 2;
  std::chrono::seconds deadline{30};
  // The program each rank runs; ember_distributed_worker when null.
  const char* worker = nullptr;
  // Extra environment of each rank ("NAME=value"), beside the inherited one.
  std::function<std::vector<std::string>(int rank)> env;
};

// argv of a rank: WORKER SCENARIO RANK WORLD_SIZE STORE_DIR (a fresh directory).
std::vector<RankRun> run_ranks(const Scenario& scenario);

// Every rank's exit and output, for a failure message.
std::string describe(const std::vector<RankRun>& runs);

}  // namespace ember_test
