#include "spawn_ranks.h"

#include <memory>
#include <sstream>

#include "process.h"

namespace ember_test {

std::vector<RankRun> run_ranks(const Scenario& scenario) {
  const TempDir dir("dist_" + scenario.name);
  const std::string store = (dir.path() / "store").string();
  std::vector<std::unique_ptr<Process>> ranks;
  for (int r = 0; r < scenario.world_size; ++r) {
    const auto rank_dir = dir.path() / ("rank" + std::to_string(r));
    std::filesystem::create_directories(rank_dir);
    ranks.push_back(std::make_unique<Process>(
        std::vector<std::string>{scenario.worker ? scenario.worker : EMBER_DISTRIBUTED_WORKER,
                                 scenario.name, std::to_string(r),
                                 std::to_string(scenario.world_size), store},
        rank_dir, scenario.env ? scenario.env(r) : std::vector<std::string>{}));
  }
  // Every rank started at about the same time: one deadline for all.
  std::vector<RankRun> runs(scenario.world_size);
  for (int r = 0; r < scenario.world_size; ++r) {
    const ProcessResult result = ranks[r]->wait(scenario.deadline);
    runs[r].rank = r;
    runs[r].killed = result.timed_out;
    runs[r].exit_code = result.timed_out || result.signaled ? -1 : result.code;
    runs[r].output = result.out + result.err;
  }
  return runs;
}

std::string describe(const std::vector<RankRun>& runs) {
  std::ostringstream os;
  for (const auto& run : runs) {
    os << "--- rank " << run.rank << ": "
       << (run.killed ? "killed at the deadline" : "exit code " + std::to_string(run.exit_code)) << "\n"
       << run.output << "\n";
  }
  return os.str();
}

}  // namespace ember_test
