#pragma once
// Runs a program for a test, bounded in time: posix_spawn with stdout and
// stderr captured in files, killed (SIGKILL) at the deadline.
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace ember_test {

// A fresh directory under the system's temporary folder, removed with the object.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

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
  // Waits until the process ends or `timeout` passes (then SIGKILL).
  ProcessResult wait(std::chrono::milliseconds timeout = std::chrono::seconds(20));

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

}  // namespace ember_test
