#include "spawn_ranks.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace ember_test {

namespace {

std::filesystem::path fresh_directory(const std::string& name) {
  static std::atomic<int> counter{0};
  auto path = std::filesystem::temp_directory_path() /
              ("ember_dist_" + name + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  std::filesystem::remove_all(path);
  std::filesystem::create_directories(path);
  return path;
}

pid_t spawn(const std::vector<std::string>& args, const std::vector<std::string>& env,
            const std::string& output_file) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, output_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> argv, envp;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (char** e = environ; *e != nullptr; ++e) envp.push_back(*e);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("posix_spawn " + args[0] + " failed: " + std::to_string(rc));
  return pid;
}

}  // namespace

std::vector<RankRun> run_ranks(const Scenario& scenario) {
  const auto dir = fresh_directory(scenario.name);
  std::vector<pid_t> pids(scenario.world_size);
  std::vector<RankRun> runs(scenario.world_size);
  for (int r = 0; r < scenario.world_size; ++r) {
    runs[r].rank = r;
    std::vector<std::string> env = scenario.env ? scenario.env(r) : std::vector<std::string>{};
    pids[r] = spawn({scenario.worker ? scenario.worker : EMBER_DISTRIBUTED_WORKER, scenario.name, std::to_string(r),
                     std::to_string(scenario.world_size), (dir / "store").string()},
                    env, (dir / ("rank" + std::to_string(r) + ".log")).string());
  }
  const auto deadline = std::chrono::steady_clock::now() + scenario.deadline;
  int running = scenario.world_size;
  std::vector<bool> done(scenario.world_size, false);
  while (running > 0) {
    const bool late = std::chrono::steady_clock::now() >= deadline;
    for (int r = 0; r < scenario.world_size; ++r) {
      if (done[r]) continue;
      if (late) {
        kill(pids[r], SIGKILL);
        runs[r].killed = true;
      }
      int status = 0;
      if (waitpid(pids[r], &status, late ? 0 : WNOHANG) == pids[r]) {
        done[r] = true;
        --running;
        runs[r].exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
    }
    if (running > 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  for (int r = 0; r < scenario.world_size; ++r) {
    std::ifstream in(dir / ("rank" + std::to_string(r) + ".log"));
    std::stringstream ss;
    ss << in.rdbuf();
    runs[r].output = ss.str();
  }
  std::filesystem::remove_all(dir);
  return runs;
}

std::string describe(const std::vector<RankRun>& runs) {
  std::ostringstream os;
  for (const auto& run : runs) {
    os << "--- rank " << run.rank << ": "
       << (run.killed ? "killed at the deadline" : "exit code " + std::to_string(run.exit_code)) << "\n"
       << run.output << "\n";
  }
  return os.str();
}

int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof(address);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    if (fd >= 0) close(fd);
    throw std::runtime_error("free_port: cannot bind a socket on 127.0.0.1");
  }
  close(fd);
  return ntohs(address.sin_port);
}

}  // namespace ember_test
