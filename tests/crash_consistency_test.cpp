// Crash consistency of checkpoint saves (Note [Atomic file replacement] in
// core/atomic_file.h): a child process saves generations of a multi-MiB
// checkpoint in a loop and is killed with SIGKILL at random moments; after
// each kill the file must load and hold one whole generation, the one being
// saved or the one before it, and the next save must leave no temporary file.
#include "test_helpers.h"

#include <ember/core/atomic_file.h>
#include <ember/nn/modules/linear.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace ember;

namespace {

constexpr const char* kPathVar = "EMBER_CRASH_TEST_PATH";
constexpr const char* kGenerationVar = "EMBER_CRASH_TEST_GENERATION";
constexpr const char* kReportFdVar = "EMBER_CRASH_TEST_REPORT_FD";
constexpr const char* kNamedVar = "EMBER_CRASH_TEST_NAMED";

// 1024 x 1024 float32 weights: a 4 MiB checkpoint, so a kill often lands mid-write.
nn::Linear make_model() { return nn::Linear(1024, 1024); }

// Every value of the state dict, and the metadata, hold the generation
// (integers below 2^24 are exact in float32).
Checkpoint generation_checkpoint(nn::Linear& model, int64_t generation) {
  {
    NoGradGuard no_grad;
    for (Tensor& p : model->parameters()) p.fill_(static_cast<double>(generation));
  }
  Checkpoint ck;
  ck.section("model") = state_dict(*model);
  ck.metadata["generation"] = std::to_string(generation);
  return ck;
}

// The one generation every tensor and the metadata of the file agree on.
int64_t generation_in(const std::string& path) {
  const Checkpoint ck = load_checkpoint(path);
  const int64_t g = std::stoll(ck.metadata.at("generation"));
  const TensorDict& model = ck.section("model");
  REQUIRE(model.size() == 2);
  for (const auto& item : model) {
    INFO(item.key());
    REQUIRE(item.value().numel() > 0);
    REQUIRE(item.value().eq(static_cast<double>(g)).all().item<bool>());
  }
  return g;
}

// Starts this test binary again running only the child test case below; it
// reports each generation on `report_fd` just before saving it.
pid_t spawn_saver(const std::string& path, int64_t first_generation, int report_fd, bool named) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  env.push_back(std::string(kPathVar) + "=" + path);
  env.push_back(std::string(kGenerationVar) + "=" + std::to_string(first_generation));
  env.push_back(std::string(kReportFdVar) + "=" + std::to_string(report_fd));
  if (named) env.push_back(std::string(kNamedVar) + "=1");
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  char arg0[] = "ember_tests", arg1[] = "[.crash_consistency_child]";
  char* argv[] = {arg0, arg1, nullptr};
  const pid_t pid = ::fork();
  if (pid == 0) {  // only async-signal-safe calls until exec
    const int null_fd = ::open("/dev/null", O_WRONLY);
    ::dup2(null_fd, STDOUT_FILENO);
    ::execve("/proc/self/exe", argv, envp.data());
    ::_exit(127);
  }
  return pid;
}

// Waits up to timeout_ms for the next report; false when none came.
bool read_report(int fd, int64_t& generation, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, timeout_ms) != 1) return false;
  return ::read(fd, &generation, sizeof(generation)) == sizeof(generation);
}

}  // namespace

TEST_CASE("child: saves checkpoint generations until it is killed",
          "[.crash_consistency_child]") {
  const char* path = std::getenv(kPathVar);
  const char* first = std::getenv(kGenerationVar);
  const char* fd = std::getenv(kReportFdVar);
  if (path == nullptr || first == nullptr || fd == nullptr) return;  // run by hand: nothing to do
  if (std::getenv(kNamedVar) != nullptr) ember::testing::force_named_temp_files(true);
  const int report_fd = std::atoi(fd);
  nn::Linear model = make_model();
  // Bounded in case nobody kills it.
  for (int64_t g = std::atoll(first), last = g + 1000; g < last; ++g) {
    const Checkpoint ck = generation_checkpoint(model, g);
    REQUIRE(::write(report_fd, &g, sizeof(g)) == sizeof(g));
    save_checkpoint(path, ck);
  }
}

TEST_CASE("a checkpoint save killed at random moments leaves the old or the new generation",
          "[serialize][crash]") {
  ember_test::TempDir dir("crash_consistency_test");
  const std::string path = dir.file("ckpt.safetensors");
  nn::Linear model = make_model();
  save_checkpoint(path, generation_checkpoint(model, 0));
  int64_t on_disk = 0;
  std::mt19937 rng(22);
  std::uniform_int_distribution<int> delay_us(0, 30000);
  for (int kill = 0; kill < 20; ++kill) {
    INFO("kill " << kill);
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    ::fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    // Every other child writes through named temporary files, which a kill can leave behind.
    const pid_t pid = spawn_saver(path, on_disk + 1, fds[1], kill % 2 == 1);
    ::close(fds[1]);
    REQUIRE(pid > 0);
    int64_t started = 0;
    const bool reported = read_report(fds[0], started, 10000);  // the child is saving now
    std::this_thread::sleep_for(std::chrono::microseconds(delay_us(rng)));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    for (int64_t g; read_report(fds[0], g, 0);) started = g;  // the last save it began
    ::close(fds[0]);
    REQUIRE(reported);
    REQUIRE(WIFSIGNALED(status));
    // Saves run one after another: the last one begun may or may not have finished.
    const int64_t g = generation_in(path);
    INFO("generation on disk " << g << ", last save begun " << started);
    REQUIRE((g == started || g == started - 1));
    REQUIRE(g >= on_disk);
    on_disk = g;
  }
  save_checkpoint(path, generation_checkpoint(model, on_disk + 1));
  REQUIRE(generation_in(path) == on_disk + 1);
  REQUIRE(dir.entry_count() == 1);  // no temporary file of a killed save is left
}
