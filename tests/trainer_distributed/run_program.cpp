#include "run_program.h"

#include <signal.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "process.h"

namespace trainer_distributed_test {

namespace fs = std::filesystem;

using ember_test::read_text;

ProgramRun run_program(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                       const fs::path& dir, std::chrono::seconds deadline,
                       const std::function<void(pid_t, const fs::path&)>& while_running) {
  ember_test::Process program(argv, dir, env);
  if (while_running) {
    try {
      while_running(program.pid(), program.stdout_path());
    } catch (...) {  // a failed check: stop the program (ember-run stops its ranks) first
      kill(program.pid(), SIGTERM);
      program.wait(deadline);
      throw;
    }
  }
  // ember-run's ranks lead their own process groups: at the deadline SIGTERM
  // lets ember-run stop them, and SIGKILL follows 2 s later if it does not.
  const ember_test::ProcessResult r = program.wait(deadline, std::chrono::seconds(2));
  ProgramRun run;
  run.timed_out = r.timed_out;
  if (!r.timed_out && !r.signaled) run.exit_code = r.code;
  run.out = r.out;
  run.err = r.err;
  run.seconds = r.seconds;
  return run;
}

pid_t rank_pid(pid_t parent, int rank) {
  const std::string wanted = "RANK=" + std::to_string(rank);
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::istringstream status(read_text(entry.path() / "status"));
    bool child = false;
    for (std::string line; std::getline(status, line);)
      if (line.rfind("PPid:", 0) == 0) child = std::stol(line.substr(5)) == parent;
    if (!child) continue;
    std::istringstream environment(read_text(entry.path() / "environ"));
    for (std::string var; std::getline(environment, var, '\0');)
      if (var == wanted) return pid_t(std::stol(name));
  }
  return -1;
}

bool wait_for_text(const fs::path& file, const std::string& text, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (read_text(file).find(text) == std::string::npos) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

std::vector<std::string> ember_run_train(int nproc, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {EMBER_RUN_PATH, "--nproc-per-node", std::to_string(nproc),
                                   "--master-port", std::to_string(ember_test::free_port()), TRAIN_PATH};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

int count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

std::vector<double> csv_column(const fs::path& csv, const std::string& column) {
  std::ifstream in(csv);
  std::string line;
  if (!std::getline(in, line)) throw std::runtime_error("empty or missing " + csv.string());
  auto split = [](const std::string& s) {
    std::vector<std::string> cells;
    std::stringstream ss(s);
    for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(cell);
    return cells;
  };
  const std::vector<std::string> header = split(line);
  size_t index = header.size();
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == column) index = i;
  if (index == header.size()) throw std::runtime_error(csv.string() + " has no column " + column);
  std::vector<double> values;
  while (std::getline(in, line)) values.push_back(std::stod(split(line).at(index)));
  return values;
}

}  // namespace trainer_distributed_test
