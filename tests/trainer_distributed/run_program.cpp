#include "run_program.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace trainer_distributed_test {

namespace fs = std::filesystem;

namespace {
std::string read_text(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

ProgramRun run_program(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                       const fs::path& dir, std::chrono::seconds deadline,
                       const std::function<void(pid_t, const fs::path&)>& while_running) {
  // The test's environment, less the names set here.
  auto name_of = [](const std::string& entry) { return entry.substr(0, entry.find('=')); };
  std::vector<std::string> args = argv, vars = env;
  for (char** e = environ; *e; ++e) {
    bool replaced = false;
    for (const std::string& set : env) replaced |= name_of(set) == name_of(*e);
    if (!replaced) vars.push_back(*e);
  }
  std::vector<char*> argv_c, env_c;
  for (std::string& a : args) argv_c.push_back(a.data());
  argv_c.push_back(nullptr);
  for (std::string& v : vars) env_c.push_back(v.data());
  env_c.push_back(nullptr);

  const fs::path out = dir / "program.out", err = dir / "program.err";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = -1;
  const int error = posix_spawn(&pid, argv_c[0], &actions, nullptr, argv_c.data(), env_c.data());
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) throw std::runtime_error("posix_spawn " + argv[0] + ": " + std::strerror(error));

  if (while_running) {
    try {
      while_running(pid, out);
    } catch (...) {  // a failed check: stop the program (ember-run stops its ranks) first
      kill(pid, SIGTERM);
      waitpid(pid, nullptr, 0);
      throw;
    }
  }
  ProgramRun run;
  int status = 0;
  while (true) {
    const pid_t got = waitpid(pid, &status, WNOHANG);
    if (got == pid) break;
    if (got < 0 && errno != EINTR) throw std::runtime_error("waitpid failed");
    if (std::chrono::steady_clock::now() - start >= deadline) {
      // ember-run's ranks lead their own process groups: SIGTERM lets
      // ember-run stop them; SIGKILL follows if it does not.
      run.timed_out = true;
      kill(pid, SIGTERM);
      std::this_thread::sleep_for(std::chrono::seconds(2));
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (WIFEXITED(status) && !run.timed_out) run.exit_code = WEXITSTATUS(status);
  run.out = read_text(out);
  run.err = read_text(err);
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

int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof address;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    if (fd >= 0) close(fd);
    throw std::runtime_error("free_port: cannot bind a socket on 127.0.0.1");
  }
  close(fd);
  return ntohs(address.sin_port);
}

std::vector<std::string> ember_run_train(int nproc, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {EMBER_RUN_PATH, "--nproc-per-node", std::to_string(nproc),
                                   "--master-port", std::to_string(free_port()), TRAIN_PATH};
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
