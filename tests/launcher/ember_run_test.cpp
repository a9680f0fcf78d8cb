// ember-run itself, starting tests/launcher/fake_rank.cpp as its ranks: the
// variables each rank sees, success, a failing rank stopping the others, a
// rank killed by a signal, a rank that ignores SIGTERM, signals forwarded
// from the launcher, a program that cannot start, and bad arguments. Every
// run is bounded in time (process.h).
#include <catch2/catch.hpp>

#include <signal.h>

#include <map>
#include <string>
#include <vector>

#include "process.h"

using Catch::Contains;
using ember_test::Process;
using ember_test::ProcessResult;
using ember_test::read_text;
using ember_test::TempDir;
using ember_test::wait_for_file;
using Strings = std::vector<std::string>;

namespace {

// ember-run LAUNCHER_ARGS fake_rank DIR RANK_ARGS...
Strings command(const Strings& launcher_args, const TempDir& dir, const Strings& rank_args) {
  Strings argv = {EMBER_RUN_PATH};
  argv.insert(argv.end(), launcher_args.begin(), launcher_args.end());
  argv.push_back(FAKE_RANK_PATH);
  argv.push_back(dir.str());
  argv.insert(argv.end(), rank_args.begin(), rank_args.end());
  return argv;
}

ProcessResult run(const Strings& argv, const TempDir& dir, const Strings& env_set = {},
                  const Strings& env_unset = {}) {
  Process p(argv, dir.path(), env_set, env_unset);
  ProcessResult r = p.wait();
  INFO("stdout:\n" << r.out << "stderr:\n" << r.err);
  REQUIRE_FALSE(r.timed_out);
  return r;
}

// DIR/env.<rank> as NAME -> value.
std::map<std::string, std::string> rank_env(const TempDir& dir, int rank) {
  std::map<std::string, std::string> vars;
  std::string text = read_text(dir.path() / ("env." + std::to_string(rank)));
  for (size_t start = 0, end; start < text.size(); start = end + 1) {
    end = text.find('\n', start);
    const std::string line = text.substr(start, end - start);
    vars[line.substr(0, line.find('='))] = line.substr(line.find('=') + 1);
  }
  return vars;
}

std::string rank_signal(const TempDir& dir, int rank) {
  return read_text(dir.path() / ("signal." + std::to_string(rank)));
}

}  // namespace

TEST_CASE("ember-run gives 2 ranks their variables and exits 0 when both do", "[launcher]") {
  TempDir dir("launcher");
  const ProcessResult r =
      run(command({"--nproc-per-node", "2"}, dir, {"exit:0", "--an-arg", "two words"}), dir,
          {"EMBER_LAUNCHER_TEST_INHERITED=kept", "RANK=99"}, {"EMBER_NUM_THREADS", "OMP_NUM_THREADS"});
  INFO(r.err);
  REQUIRE(!r.signaled);
  REQUIRE(r.code == 0);
  for (int rank = 0; rank < 2; ++rank) {
    auto env = rank_env(dir, rank);
    REQUIRE(env["MASTER_ADDR"] == "127.0.0.1");
    REQUIRE(env["MASTER_PORT"] == "29500");
    REQUIRE(env["WORLD_SIZE"] == "2");
    REQUIRE(env["RANK"] == std::to_string(rank));
    REQUIRE(env["LOCAL_RANK"] == std::to_string(rank));
    REQUIRE(env["LOCAL_WORLD_SIZE"] == "2");
    REQUIRE(env["GROUP_RANK"] == "0");
    REQUIRE(env["EMBER_LAUNCHER_TEST_INHERITED"] == "kept");
    REQUIRE(env["ARGS"] == "--an-arg|two words");
    // No thread count chosen: the launcher splits the CPUs and says so.
    REQUIRE(std::stoi(env["EMBER_NUM_THREADS"]) >= 1);
  }
  REQUIRE_THAT(r.err, Contains("each rank runs EMBER_NUM_THREADS="));
}

TEST_CASE("ember-run on node 1 of 2 numbers its 3 ranks 3, 4, 5 of 6", "[launcher]") {
  TempDir dir("launcher");
  const ProcessResult r = run(command({"--nproc-per-node=3", "--nnodes=2", "--node-rank=1",
                                       "--master-addr=10.0.0.7", "--master-port=1234"},
                                      dir, {"exit:0"}),
                              dir, {"EMBER_NUM_THREADS=4"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  for (int local = 0; local < 3; ++local) {
    auto env = rank_env(dir, 3 + local);
    REQUIRE(env["MASTER_ADDR"] == "10.0.0.7");
    REQUIRE(env["MASTER_PORT"] == "1234");
    REQUIRE(env["WORLD_SIZE"] == "6");
    REQUIRE(env["RANK"] == std::to_string(3 + local));
    REQUIRE(env["LOCAL_RANK"] == std::to_string(local));
    REQUIRE(env["LOCAL_WORLD_SIZE"] == "3");
    REQUIRE(env["GROUP_RANK"] == "1");
    REQUIRE(env["EMBER_NUM_THREADS"] == "4");  // the user's choice stands
  }
  REQUIRE_THAT(r.err, !Contains("each rank runs"));
}

TEST_CASE("A rank that exits 3 stops the others; ember-run names it and exits 3", "[launcher]") {
  TempDir dir("launcher");
  const ProcessResult r =
      run(command({"--nproc-per-node", "3"}, dir, {"sleep:25", "1=exit:3"}), dir);
  INFO(r.err);
  REQUIRE(!r.signaled);
  REQUIRE(r.code == 3);
  REQUIRE_THAT(r.err, Contains("ember-run: rank 1 (local 1) exited with status 3; stopped the "
                               "other ranks"));
  REQUIRE(rank_signal(dir, 0) == "15");  // SIGTERM, within the grace period
  REQUIRE(rank_signal(dir, 2) == "15");
  REQUIRE(r.seconds < 5);
}

TEST_CASE("A rank killed by SIGKILL is named with the signal; ember-run exits 128 + 9",
          "[launcher]") {
  TempDir dir("launcher");
  const ProcessResult r =
      run(command({"--nproc-per-node", "2"}, dir, {"sleep:25", "1=kill:9"}), dir);
  INFO(r.err);
  REQUIRE(r.code == 137);
  REQUIRE_THAT(r.err,
               Contains("ember-run: rank 1 (local 1) died of signal SIGKILL (Killed); stopped the "
                        "other ranks"));
  REQUIRE(rank_signal(dir, 0) == "15");
}

TEST_CASE("A rank that ignores SIGTERM gets SIGKILL after --grace-seconds", "[launcher]") {
  TempDir dir("launcher");
  const ProcessResult r = run(
      command({"--nproc-per-node", "2", "--grace-seconds", "1"}, dir, {"stubborn:25", "1=exit:1"}),
      dir);
  INFO(r.err);
  REQUIRE(r.code == 1);
  REQUIRE_THAT(r.err, Contains("ember-run: rank 0 (local 0) did not exit within 1 s; sent SIGKILL"));
  REQUIRE_THAT(r.err, Contains("ember-run: rank 1 (local 1) exited with status 1"));
  REQUIRE(r.seconds >= 1);
  REQUIRE(r.seconds < 10);
}

TEST_CASE("SIGTERM, SIGINT or SIGHUP sent to ember-run reaches every rank once", "[launcher]") {
  const int sig = GENERATE(SIGTERM, SIGINT, SIGHUP);
  INFO("signal " << sig);
  TempDir dir("launcher");
  Process p(command({"--nproc-per-node", "2"}, dir, {"sleep:25"}), dir.path());
  REQUIRE(wait_for_file(dir.path() / "ready.0"));
  REQUIRE(wait_for_file(dir.path() / "ready.1"));
  kill(p.pid(), sig);
  const ProcessResult r = p.wait();
  INFO(r.err);
  REQUIRE_FALSE(r.timed_out);
  REQUIRE(r.code == 128 + sig);
  REQUIRE_THAT(r.err, Contains("; forwarded it to the ranks"));
  REQUIRE(rank_signal(dir, 0) == std::to_string(sig));
  REQUIRE(rank_signal(dir, 1) == std::to_string(sig));
}

TEST_CASE("ember-run exits 127 when PROGRAM is not found", "[launcher]") {
  TempDir dir("launcher");
  const ProcessResult r =
      run({EMBER_RUN_PATH, "--nproc-per-node", "2", "ember-no-such-program-here"}, dir);
  REQUIRE(r.code == 127);
  REQUIRE_THAT(r.err, Contains("ember-run: cannot start ember-no-such-program-here for rank 0 "
                               "(local 0): No such file or directory"));
}

TEST_CASE("ember-run exits 2 with a message on bad arguments, 0 on --help", "[launcher]") {
  TempDir dir("launcher");
  ProcessResult r = run({EMBER_RUN_PATH, "--nproc-per-node", "zero", FAKE_RANK_PATH}, dir);
  REQUIRE(r.code == 2);
  REQUIRE_THAT(r.err, Contains("ember-run: --nproc-per-node must be an integer from 1 to 65536, "
                               "got 'zero' (ember-run --help lists the options)"));
  r = run({EMBER_RUN_PATH, "--nproc-per-node", "2"}, dir);
  REQUIRE(r.code == 2);
  REQUIRE_THAT(r.err, Contains("no PROGRAM to run"));
  r = run({EMBER_RUN_PATH, "--help"}, dir);
  REQUIRE(r.code == 0);
  REQUIRE_THAT(r.out, Contains("usage: ember-run"));
}
