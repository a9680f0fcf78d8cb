#pragma once
// Runs a program for a test, bounded in time: posix_spawn (a test binary may
// have started ember's thread pool, so never fork()) with stdout and stderr
// captured in files, stopped at the deadline. The multi-process tests
// (launcher, distributed, the trainer under ember-run) all start their
// programs through it.
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "temp_dir.h"

namespace ember_test {

struct ProcessResult {
  bool timed_out = false;  // killed at the deadline
  bool signaled = false;
  int code = -1;  // exit status, or the signal when signaled
  std::string out, err;
  double seconds = 0;
};

class Process {
 public:
  // env_set: NAME=value entries set (replacing the test's own); env_unset:
  // names removed. Output goes to files in dir.
  Process(const std::vector<std::string>& argv, const std::filesystem::path& dir,
          const std::vector<std::string>& env_set = {},
          const std::vector<std::string>& env_unset = {});
  ~Process();  // kills the process if it still runs
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const { return pid_; }
  const std::filesystem::path& stdout_path() const { return out_; }
  // Waits until the process ends or `timeout` (from its start) passes; then
  // SIGKILL, or first SIGTERM and `grace` to stop by itself (a launcher then
  // stops its own children).
  ProcessResult wait(std::chrono::milliseconds timeout = std::chrono::seconds(20),
                     std::chrono::milliseconds grace = std::chrono::milliseconds(0));

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
  std::filesystem::path out_, err_;
  std::chrono::steady_clock::time_point start_;
};

// Waits up to timeout for the file to exist.
bool wait_for_file(const std::filesystem::path& file,
                   std::chrono::milliseconds timeout = std::chrono::seconds(10));

std::string read_text(const std::filesystem::path& file);

// A TCP port free now on 127.0.0.1 (bound to port 0, read, closed), so that
// tests running at once do not meet on one port.
int free_port();

}  // namespace ember_test
