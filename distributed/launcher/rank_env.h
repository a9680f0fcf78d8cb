#pragma once
// The environment ember-run gives each rank: its own, inherited, with the
// rendezvous variables of torchrun's env:// set (replacing inherited ones).
#include <string>
#include <vector>

#include "ember/distributed/launcher/launch_options.h"

namespace ember::distributed::launcher {

// The variables that rank `local_rank` of this node gets, as NAME=value:
// MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK, LOCAL_RANK, LOCAL_WORLD_SIZE,
// GROUP_RANK.
std::vector<std::string> rendezvous_variables(const LaunchPlan& plan, int local_rank);

// Threads for each rank's pool when the user chose none: ranks sharing a node
// would each start a pool as wide as the machine and oversubscribe it
// (torchrun sets OMP_NUM_THREADS=1 for the same reason). Returns 0 (leave the
// default alone) when EMBER_NUM_THREADS or OMP_NUM_THREADS is inherited or
// there is one rank per node; else max(1, cpu_count / nproc_per_node).
int default_threads_per_rank(const LaunchPlan& plan, const std::vector<std::string>& inherited,
                             int cpu_count);

// inherited (NAME=value entries) with the rendezvous variables of local_rank
// and, when threads_per_rank > 0, EMBER_NUM_THREADS, each replacing an
// inherited entry of the same name.
std::vector<std::string> rank_environment(const LaunchPlan& plan, int local_rank,
                                          const std::vector<std::string>& inherited,
                                          int threads_per_rank);

}  // namespace ember::distributed::launcher
