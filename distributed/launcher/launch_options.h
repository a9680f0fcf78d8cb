#pragma once
// ember-run's command line, parsed into a LaunchPlan: a plain function of the
// arguments, so the tests check it without starting processes.
//   ember-run --nproc-per-node N [--nnodes M --node-rank R --master-addr A
//             --master-port P --grace-seconds S] PROGRAM ARGS...
// Options come before PROGRAM, as `--name value` or `--name=value`, with
// torchrun's spellings (`--nproc-per-node` or `--nproc_per_node`); the first
// argument that is not an option, or the one after `--`, is PROGRAM, and the
// rest are its arguments, passed on untouched.
#include <string>
#include <vector>

namespace ember::distributed::launcher {

struct LaunchPlan {
  int nproc_per_node = 1;
  int nnodes = 1;
  int node_rank = 0;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  // After the first failure (or a forwarded signal), how long the other
  // ranks get to exit before SIGKILL.
  double grace_seconds = 5;
  std::vector<std::string> command;  // PROGRAM ARGS...

  int world_size() const { return nproc_per_node * nnodes; }
  int global_rank(int local_rank) const { return node_rank * nproc_per_node + local_rank; }
};

struct ParsedArgs {
  enum class Outcome { kRun, kHelp, kError };
  Outcome outcome = Outcome::kRun;
  LaunchPlan plan;      // kRun
  std::string message;  // kError: what is wrong, naming the option
};

// args: the command line without argv[0].
ParsedArgs parse_launch_args(const std::vector<std::string>& args);

// The --help text.
std::string launch_usage();

}  // namespace ember::distributed::launcher
