// A stand-in for a training program, run by ember-run in the launcher tests.
//   fake_rank DIR ACTION [R=ACTION ...] [other arguments, recorded only]
// Each rank writes DIR/env.<RANK> (its rendezvous variables and arguments),
// records a SIGTERM, SIGINT or SIGHUP in DIR/signal.<RANK> before dying of it,
// writes DIR/ready.<RANK> once its handlers are in place, then does ACTION
// (or the ACTION given for its RANK):
//   exit:N      exit with status N, once every rank of the node is ready
//   kill:SIG    kill itself with signal SIG, once every rank of the node is ready
//   sleep:S     sleep S seconds, then exit 0
//   stubborn:S  ignore SIGTERM, sleep S seconds, then exit 0
// Waiting for the node's ranks makes the tests deterministic: a failing rank
// fails only after the others can record the SIGTERM that follows. alarm(30)
// ends a rank that a broken launcher left behind.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace {

char signal_path[4096];

void record_signal(int sig) {
  // Async-signal-safe: open, write, close, then die of the signal.
  const int fd = open(signal_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    char text[8];
    int n = 0;
    for (int v = sig; v > 0; v /= 10) text[n++] = static_cast<char>('0' + v % 10);
    for (int i = 0; i < n / 2; ++i) std::swap(text[i], text[n - 1 - i]);
    if (write(fd, text, static_cast<size_t>(n)) < 0) {}
    close(fd);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

void wait_for_node(const std::string& dir) {
  const int local = std::atoi(env_or("LOCAL_RANK", "0").c_str());
  const int first = std::atoi(env_or("RANK", "0").c_str()) - local;
  const int n = std::atoi(env_or("LOCAL_WORLD_SIZE", "1").c_str());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (int r = first; r < first + n; ++r)
    while (!std::filesystem::exists(dir + "/ready." + std::to_string(r)) &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

}  // namespace

int main(int argc, char** argv) {
  alarm(30);
  if (argc < 3) return 64;
  const std::string dir = argv[1], rank = env_or("RANK", "?");
  std::string action = argv[2], args;
  for (int i = 3; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind(rank + "=", 0) == 0) action = arg.substr(rank.size() + 1);
    args += (i > 3 ? "|" : "") + arg;
  }
  {
    std::ofstream env(dir + "/env." + rank);
    for (const char* name : {"MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK", "LOCAL_RANK",
                             "LOCAL_WORLD_SIZE", "GROUP_RANK", "EMBER_NUM_THREADS",
                             "EMBER_LAUNCHER_TEST_INHERITED"})
      env << name << '=' << env_or(name, "(unset)") << '\n';
    env << "ARGS=" << args << '\n';
  }
  std::snprintf(signal_path, sizeof(signal_path), "%s/signal.%s", dir.c_str(), rank.c_str());
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) signal(sig, record_signal);
  const std::string verb = action.substr(0, action.find(':'));
  const int value = std::atoi(action.substr(action.find(':') + 1).c_str());
  if (verb == "stubborn") signal(SIGTERM, SIG_IGN);
  std::ofstream(dir + "/ready." + rank) << "ready\n";
  if (verb == "exit" || verb == "kill") {
    wait_for_node(dir);
    if (verb == "kill") raise(value);
    return value;
  }
  if (verb == "sleep" || verb == "stubborn") {
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(value);
    while (std::chrono::steady_clock::now() < end)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return 0;
  }
  return 65;  // an action this program does not know
}
