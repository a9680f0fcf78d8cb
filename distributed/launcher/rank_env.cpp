#include "ember/distributed/launcher/rank_env.h"

#include <algorithm>

namespace ember::distributed::launcher {

namespace {

std::string name_of(const std::string& entry) { return entry.substr(0, entry.find('=')); }

bool has_variable(const std::vector<std::string>& env, const std::string& name) {
  return std::any_of(env.begin(), env.end(),
                     [&](const std::string& e) { return name_of(e) == name; });
}

}  // namespace

std::vector<std::string> rendezvous_variables(const LaunchPlan& plan, int local_rank) {
  return {
      "MASTER_ADDR=" + plan.master_addr,
      "MASTER_PORT=" + std::to_string(plan.master_port),
      "WORLD_SIZE=" + std::to_string(plan.world_size()),
      "RANK=" + std::to_string(plan.global_rank(local_rank)),
      "LOCAL_RANK=" + std::to_string(local_rank),
      "LOCAL_WORLD_SIZE=" + std::to_string(plan.nproc_per_node),
      "GROUP_RANK=" + std::to_string(plan.node_rank),
  };
}

int default_threads_per_rank(const LaunchPlan& plan, const std::vector<std::string>& inherited,
                             int cpu_count) {
  if (plan.nproc_per_node == 1 || has_variable(inherited, "EMBER_NUM_THREADS") ||
      has_variable(inherited, "OMP_NUM_THREADS"))
    return 0;
  return std::max(1, cpu_count / plan.nproc_per_node);
}

std::vector<std::string> rank_environment(const LaunchPlan& plan, int local_rank,
                                          const std::vector<std::string>& inherited,
                                          int threads_per_rank) {
  std::vector<std::string> ours = rendezvous_variables(plan, local_rank);
  if (threads_per_rank > 0) ours.push_back("EMBER_NUM_THREADS=" + std::to_string(threads_per_rank));
  std::vector<std::string> env;
  for (const std::string& entry : inherited)
    if (!has_variable(ours, name_of(entry))) env.push_back(entry);
  env.insert(env.end(), ours.begin(), ours.end());
  return env;
}

}  // namespace ember::distributed::launcher
