// ember-run's argument parser and the environment it gives each rank, as
// plain functions (ember_run_test.cpp runs the launcher itself).
#include <catch2/catch.hpp>

#include <ember/distributed/launcher/launch_options.h>
#include <ember/distributed/launcher/rank_env.h>
#include <ember/distributed/launcher/run_ranks.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace ember::distributed::launcher;
using Catch::Contains;
using Strings = std::vector<std::string>;
using Outcome = ParsedArgs::Outcome;

TEST_CASE("ember-run's defaults are torchrun's", "[launcher]") {
  const ParsedArgs r = parse_launch_args({"train", "--epochs", "1"});
  REQUIRE(r.outcome == Outcome::kRun);
  REQUIRE(r.plan.nproc_per_node == 1);
  REQUIRE(r.plan.nnodes == 1);
  REQUIRE(r.plan.node_rank == 0);
  REQUIRE(r.plan.master_addr == "127.0.0.1");
  REQUIRE(r.plan.master_port == 29500);
  REQUIRE(r.plan.grace_seconds == 5);
  REQUIRE(r.plan.command == Strings{"train", "--epochs", "1"});
}

TEST_CASE("ember-run takes --name value, --name=value and torchrun's underscores", "[launcher]") {
  const ParsedArgs r = parse_launch_args({"--nproc-per-node", "3", "--nnodes=4", "--node_rank", "2",
                                          "--master-addr=10.0.0.7", "--master_port", "1234",
                                          "--grace-seconds=0.5", "prog", "--nnodes", "9"});
  REQUIRE(r.outcome == Outcome::kRun);
  REQUIRE(r.plan.nproc_per_node == 3);
  REQUIRE(r.plan.nnodes == 4);
  REQUIRE(r.plan.node_rank == 2);
  REQUIRE(r.plan.master_addr == "10.0.0.7");
  REQUIRE(r.plan.master_port == 1234);
  REQUIRE(r.plan.grace_seconds == 0.5);
  // Everything from PROGRAM on is the program's, options look-alikes included.
  REQUIRE(r.plan.command == Strings{"prog", "--nnodes", "9"});
  REQUIRE(r.plan.world_size() == 12);
  REQUIRE(r.plan.global_rank(1) == 7);
  REQUIRE(parse_launch_args({"--nproc_per_node=2", "p"}).plan.nproc_per_node == 2);
}

TEST_CASE("ember-run: `--` ends the options, so PROGRAM may start with a dash", "[launcher]") {
  const ParsedArgs r = parse_launch_args({"--nproc-per-node", "2", "--", "--odd-name", "x"});
  REQUIRE(r.outcome == Outcome::kRun);
  REQUIRE(r.plan.command == Strings{"--odd-name", "x"});
}

TEST_CASE("ember-run --help and -h ask for the usage, which names every option", "[launcher]") {
  REQUIRE(parse_launch_args({"--help"}).outcome == Outcome::kHelp);
  REQUIRE(parse_launch_args({"--nnodes", "2", "-h", "prog"}).outcome == Outcome::kHelp);
  for (const char* option : {"--nproc-per-node", "--nnodes", "--node-rank", "--master-addr",
                             "--master-port", "--grace-seconds"})
    REQUIRE_THAT(launch_usage(), Contains(option));
}

TEST_CASE("ember-run rejects bad or missing values with a message naming the option",
          "[launcher]") {
  struct Case {
    Strings args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{}, "no PROGRAM to run"},
      {{"--nproc-per-node", "2"}, "no PROGRAM to run"},
      {{"--nproc-per-node"}, "--nproc-per-node needs a value"},
      {{"--nproc-per-node", "0", "p"}, "--nproc-per-node must be an integer from 1 to 65536, got '0'"},
      {{"--nproc-per-node=two", "p"}, "got 'two'"},
      {{"--nproc-per-node=2x", "p"}, "got '2x'"},
      {{"--nproc-per-node=", "p"}, "got ''"},
      {{"--nnodes", "-1", "p"}, "--nnodes must be an integer from 1 to 65536, got '-1'"},
      {{"--nnodes", "2", "--node-rank", "2", "p"}, "--node-rank 2 must be below --nnodes 2"},
      {{"--master-port", "0", "p"}, "--master-port must be a port from 1 to 65535, got '0'"},
      {{"--master-port", "65536", "p"}, "got '65536'"},
      {{"--master-addr=", "p"}, "--master-addr must not be empty"},
      {{"--grace-seconds", "-1", "p"}, "--grace-seconds must be a number of seconds"},
      {{"--grace-seconds", "nan", "p"}, "got 'nan'"},
      {{"--max-restarts", "3", "p"}, "unknown option --max-restarts"},
      {{"-x", "p"}, "unknown option -x"},
  };
  for (const Case& c : cases) {
    INFO("args: " << Catch::Detail::stringify(c.args));
    const ParsedArgs r = parse_launch_args(c.args);
    REQUIRE(r.outcome == Outcome::kError);
    REQUIRE_THAT(r.message, Contains(c.message));
  }
}

namespace {

std::string value_of(const Strings& env, const std::string& name) {
  std::string found = "(unset)";
  for (const std::string& e : env)
    if (e.rfind(name + "=", 0) == 0) {
      REQUIRE(found == "(unset)");  // at most once
      found = e.substr(name.size() + 1);
    }
  return found;
}

}  // namespace

TEST_CASE("Each rank gets torchrun's variables; RANK = node rank * N + local rank", "[launcher]") {
  const LaunchPlan plan =
      parse_launch_args({"--nproc-per-node=3", "--nnodes=2", "--node-rank=1", "--master-addr=h",
                         "--master-port=1234", "p"})
          .plan;
  const Strings inherited = {"PATH=/bin", "RANK=99", "WORLD_SIZE=1", "HOME=/h"};
  for (int local = 0; local < 3; ++local) {
    const Strings env = rank_environment(plan, local, inherited, 0);
    REQUIRE(value_of(env, "MASTER_ADDR") == "h");
    REQUIRE(value_of(env, "MASTER_PORT") == "1234");
    REQUIRE(value_of(env, "WORLD_SIZE") == "6");
    REQUIRE(value_of(env, "RANK") == std::to_string(3 + local));  // replaces the inherited 99
    REQUIRE(value_of(env, "LOCAL_RANK") == std::to_string(local));
    REQUIRE(value_of(env, "LOCAL_WORLD_SIZE") == "3");
    REQUIRE(value_of(env, "GROUP_RANK") == "1");
    REQUIRE(value_of(env, "PATH") == "/bin");
    REQUIRE(value_of(env, "HOME") == "/h");
    REQUIRE(value_of(env, "EMBER_NUM_THREADS") == "(unset)");
  }
  REQUIRE(value_of(rank_environment(plan, 0, inherited, 2), "EMBER_NUM_THREADS") == "2");
}

TEST_CASE("ember-run splits the CPUs among the ranks unless the user chose a thread count",
          "[launcher]") {
  LaunchPlan plan;
  plan.nproc_per_node = 2;
  REQUIRE(default_threads_per_rank(plan, {"PATH=/bin"}, 8) == 4);
  REQUIRE(default_threads_per_rank(plan, {"PATH=/bin"}, 3) == 1);
  REQUIRE(default_threads_per_rank(plan, {"EMBER_NUM_THREADS=3"}, 8) == 0);
  REQUIRE(default_threads_per_rank(plan, {"OMP_NUM_THREADS=3"}, 8) == 0);
  plan.nproc_per_node = 4;
  REQUIRE(default_threads_per_rank(plan, {}, 2) == 1);
  plan.nproc_per_node = 1;  // one rank: the library's own default
  REQUIRE(default_threads_per_rank(plan, {}, 8) == 0);
}

TEST_CASE("describe_signal gives the signal's name and description", "[launcher]") {
  REQUIRE(describe_signal(9) == "SIGKILL (Killed)");
  REQUIRE(describe_signal(15) == "SIGTERM (Terminated)");
}
