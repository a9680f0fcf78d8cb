#include "process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace ember_test {

namespace fs = std::filesystem;

Process::Process(const std::vector<std::string>& argv, const fs::path& dir,
                 const std::vector<std::string>& env_set,
                 const std::vector<std::string>& env_unset)
    : out_(dir / "process.out"), err_(dir / "process.err") {
  auto name_of = [](const std::string& e) { return e.substr(0, e.find('=')); };
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e, name = name_of(entry);
    const bool replaced = std::any_of(env_set.begin(), env_set.end(),
                                      [&](const std::string& s) { return name_of(s) == name; });
    const bool removed = std::find(env_unset.begin(), env_unset.end(), name) != env_unset.end();
    if (!replaced && !removed) env.push_back(entry);
  }
  env.insert(env.end(), env_set.begin(), env_set.end());
  std::vector<char*> argv_c, env_c;
  std::vector<std::string> args = argv;
  for (std::string& a : args) argv_c.push_back(a.data());
  argv_c.push_back(nullptr);
  for (std::string& e : env) env_c.push_back(e.data());
  env_c.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  start_ = std::chrono::steady_clock::now();
  const int error = posix_spawn(&pid_, argv_c[0], &actions, nullptr, argv_c.data(), env_c.data());
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0)
    throw std::runtime_error("posix_spawn " + argv[0] + ": " + std::strerror(error));
}

Process::~Process() {
  if (!reaped_) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

ProcessResult Process::wait(std::chrono::milliseconds timeout, std::chrono::milliseconds grace) {
  ProcessResult r;
  const auto deadline = start_ + timeout;
  int status = 0;
  while (true) {
    const pid_t got = waitpid(pid_, &status, WNOHANG);
    if (got == pid_) break;
    if (got < 0 && errno != EINTR) throw std::runtime_error("waitpid failed");
    if (std::chrono::steady_clock::now() >= deadline) {
      r.timed_out = true;
      if (grace.count() > 0) {
        kill(pid_, SIGTERM);
        std::this_thread::sleep_for(grace);
      }
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  reaped_ = true;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  r.signaled = WIFSIGNALED(status);
  r.code = r.signaled ? WTERMSIG(status) : WEXITSTATUS(status);
  r.out = read_text(out_);
  r.err = read_text(err_);
  return r;
}

bool wait_for_file(const fs::path& file, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!fs::exists(file)) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  const bool ok = fd >= 0 && bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
                  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
  if (fd >= 0) close(fd);
  if (!ok) throw std::runtime_error("free_port: cannot bind a socket on 127.0.0.1");
  return ntohs(address.sin_port);
}

}  // namespace ember_test
