#pragma once
// Runs ember-run with the trainer as a test's subprocess (through
// tests/support/process.h: output captured, stopped at a deadline).
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "process.h"  // free_port

namespace trainer_distributed_test {

struct ProgramRun {
  int exit_code = -1;      // -1 when killed or ended by a signal
  bool timed_out = false;  // still running at the deadline (then SIGKILL)
  std::string out, err;
  double seconds = 0;
};

// argv[0] is a path. env: "NAME=value" entries set on top of the test's own
// environment. The output files go to `dir`. while_running, when given, is
// called once the program has started, with its pid and its stdout file.
ProgramRun run_program(
    const std::vector<std::string>& argv, const std::vector<std::string>& env,
    const std::filesystem::path& dir, std::chrono::seconds deadline,
    const std::function<void(pid_t, const std::filesystem::path&)>& while_running = {});

// The child of `parent` whose environment has RANK=rank (an ember-run rank);
// -1 when there is none.
pid_t rank_pid(pid_t parent, int rank);

// Waits up to `timeout` for `file` to contain `text`.
bool wait_for_text(const std::filesystem::path& file, const std::string& text,
                   std::chrono::seconds timeout);


// `ember-run --nproc-per-node N --master-port P TRAIN args...` as argv.
std::vector<std::string> ember_run_train(int nproc, const std::vector<std::string>& args);

// How many times `needle` occurs in `text`.
int count(const std::string& text, const std::string& needle);

// The column of metrics.csv (the trainer's per-epoch log) as numbers, in order.
std::vector<double> csv_column(const std::filesystem::path& csv, const std::string& column);

}  // namespace trainer_distributed_test
