#pragma once
// Starts a node's ranks and watches them until all have ended: ember-run's
// supervision (Note [Launcher signals and failures] in run_ranks.cpp).
#include <string>
#include <vector>

#include "ember/distributed/launcher/launch_options.h"

namespace ember::distributed::launcher {

// Runs plan.command as ranks 0..nproc_per_node-1 of this node, each with
// rank_environment(plan, local_rank, inherited, threads_per_rank), and returns
// ember-run's exit code: 0 when every rank exited 0; the first failed rank's
// exit status, or 128 + its signal; 128 + the signal when a forwarded signal
// stopped the ranks; 127 (not found) or 126 (not executable) when PROGRAM
// could not be started. Reports on stderr.
int run_ranks(const LaunchPlan& plan, const std::vector<std::string>& inherited,
              int threads_per_rank);

// "SIGKILL (Killed)": the signal's name and strsignal's description.
std::string describe_signal(int sig);

}  // namespace ember::distributed::launcher
