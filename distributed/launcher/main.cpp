// ember-run: starts the ranks of a data-parallel job on this node, as
// torchrun (docs/launcher.md).
//   ember-run --nproc-per-node 2 build/examples/train --epochs 1
#include <sched.h>

#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "ember/distributed/launcher/launch_options.h"
#include "ember/distributed/launcher/rank_env.h"
#include "ember/distributed/launcher/run_ranks.h"

extern char** environ;

namespace {

// The CPUs this process may run on (a container or taskset may allow fewer
// than the machine has).
int usable_cpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return CPU_COUNT(&set);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ember::distributed::launcher;
  const ParsedArgs parsed = parse_launch_args(std::vector<std::string>(argv + 1, argv + argc));
  switch (parsed.outcome) {
    case ParsedArgs::Outcome::kHelp:
      std::fputs(launch_usage().c_str(), stdout);
      return 0;
    case ParsedArgs::Outcome::kError:
      std::fprintf(stderr, "ember-run: %s (ember-run --help lists the options)\n",
                   parsed.message.c_str());
      return 2;
    case ParsedArgs::Outcome::kRun:
      break;
  }
  const LaunchPlan& plan = parsed.plan;
  std::vector<std::string> inherited;
  for (char** e = environ; *e; ++e) inherited.emplace_back(*e);
  const int cpus = usable_cpus();
  const int threads = default_threads_per_rank(plan, inherited, cpus);
  if (threads > 0)
    std::fprintf(stderr,
                 "ember-run: each rank runs EMBER_NUM_THREADS=%d threads (%d ranks on %d CPUs); "
                 "set EMBER_NUM_THREADS to choose\n",
                 threads, plan.nproc_per_node, cpus);
  return run_ranks(plan, inherited, threads);
}
