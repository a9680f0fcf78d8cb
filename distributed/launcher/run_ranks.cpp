#include "ember/distributed/launcher/run_ranks.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "ember/distributed/launcher/rank_env.h"

// Note [Launcher signals and failures]
// Each rank leads its own process group (POSIX_SPAWN_SETPGROUP), so a
// terminal's Ctrl-C reaches ember-run alone, which forwards SIGINT (likewise
// SIGTERM and SIGHUP) once to every rank's group: a rank sees the signal
// exactly once, as under torchrun, and processes a rank started itself get it
// too. The cost: a rank is not in the terminal's foreground group, so one that
// reads the terminal stops (SIGTTIN); ranks read no terminal in practice.
//
// The launcher is one thread with those signals and SIGCHLD blocked; it takes
// them with sigtimedwait, so no handler runs at an awkward moment and the
// grace deadline is the wait's timeout. The children get the signal mask the
// launcher started with.
//
// The first rank to exit non-zero or die of a signal is the failure reported;
// ember-run then sends SIGTERM to the ranks still running and SIGKILL to those
// left after the grace period. What the others do after that (a peer whose
// collective broke exits 1, say) is a consequence, not reported as a cause.
// A second forwarded signal while stopping skips the rest of the grace period.

namespace ember::distributed::launcher {

namespace {

using Clock = std::chrono::steady_clock;

struct Rank {
  int local = 0, global = 0;
  pid_t pid = -1;
  bool running = false;
};

// Sends sig to the rank's process group, or to the rank alone if it left
// the group (setsid).
void signal_rank(const Rank& r, int sig) {
  if (kill(-r.pid, sig) != 0) kill(r.pid, sig);
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

std::string describe_status(int status) {
  if (WIFSIGNALED(status)) return "died of signal " + describe_signal(WTERMSIG(status));
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

int exit_code_of(int status) {
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

class Supervisor {
 public:
  explicit Supervisor(const LaunchPlan& plan) : plan_(plan) {
    sigemptyset(&watched_);
    for (int sig : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) sigaddset(&watched_, sig);
    // An inherited SIG_IGN for SIGCHLD would reap the ranks for us, losing
    // their exit statuses.
    signal(SIGCHLD, SIG_DFL);
    sigprocmask(SIG_BLOCK, &watched_, &original_mask_);
  }
  ~Supervisor() { sigprocmask(SIG_SETMASK, &original_mask_, nullptr); }

  // posix_spawnp's error for the first rank that could not start; 0 if all started.
  int start(const std::vector<std::string>& inherited, int threads_per_rank) {
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setsigmask(&attr, &original_mask_);
    std::vector<std::string> args = plan_.command;
    std::vector<char*> argv = c_strings(args);
    int error = 0;
    for (int local = 0; local < plan_.nproc_per_node; ++local) {
      std::vector<std::string> env = rank_environment(plan_, local, inherited, threads_per_rank);
      std::vector<char*> envp = c_strings(env);
      Rank r{local, plan_.global_rank(local), -1, false};
      error = posix_spawnp(&r.pid, argv[0], nullptr, &attr, argv.data(), envp.data());
      if (error != 0) {
        std::fprintf(stderr, "ember-run: cannot start %s for rank %d (local %d): %s\n",
                     argv[0], r.global, r.local, std::strerror(error));
        break;
      }
      r.running = true;
      ranks_.push_back(r);
    }
    posix_spawnattr_destroy(&attr);
    if (error != 0) stop(SIGTERM);
    return error;
  }

  // Waits until no rank runs; returns the launcher's exit code.
  int supervise() {
    while (std::any_of(ranks_.begin(), ranks_.end(), [](const Rank& r) { return r.running; })) {
      reap();
      if (stopping_ && !killed_ && Clock::now() >= deadline_) kill_the_rest();
      if (std::none_of(ranks_.begin(), ranks_.end(), [](const Rank& r) { return r.running; })) break;
      take_signal();
    }
    if (failed_) {
      std::fprintf(stderr, "ember-run: rank %d (local %d) %s%s\n", failed_->global, failed_->local,
                   describe_status(failed_status_).c_str(),
                   stopped_others_ ? "; stopped the other ranks" : "");
      return exit_code_of(failed_status_);
    }
    if (forwarded_) {
      std::fprintf(stderr, "ember-run: got %s; forwarded it to the ranks\n",
                   describe_signal(forwarded_).c_str());
      return 128 + forwarded_;
    }
    return 0;
  }

  // SIGTERM (or sig) to every running rank now, SIGKILL after the grace period.
  void stop(int sig) {
    for (const Rank& r : ranks_)
      if (r.running) {
        signal_rank(r, sig);
        stopped_others_ = true;
      }
    if (!stopping_) {
      stopping_ = true;
      deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(plan_.grace_seconds));
    }
  }

 private:
  void reap() {
    for (Rank& r : ranks_) {
      if (!r.running) continue;
      int status = 0;
      const pid_t got = waitpid(r.pid, &status, WNOHANG);
      if (got == 0 || (got < 0 && errno == EINTR)) continue;
      r.running = false;
      if (got < 0) continue;  // ECHILD: not ours to wait for any more
      const bool failed = !WIFEXITED(status) || WEXITSTATUS(status) != 0;
      if (failed && !stopping_) {
        failed_ = &r;
        failed_status_ = status;
        stop(SIGTERM);
      }
    }
  }

  void kill_the_rest() {
    killed_ = true;
    for (const Rank& r : ranks_)
      if (r.running) {
        std::fprintf(stderr, "ember-run: rank %d (local %d) did not exit within %g s; sent SIGKILL\n",
                     r.global, r.local, plan_.grace_seconds);
        signal_rank(r, SIGKILL);
      }
  }

  // Waits for SIGCHLD or a signal to forward, at most until the grace
  // deadline and at most 200 ms (a safety net: reap() polls anyway).
  void take_signal() {
    auto wait = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::milliseconds(200));
    if (stopping_ && !killed_)
      wait = std::min(wait, std::max(std::chrono::nanoseconds(0),
                                     std::chrono::duration_cast<std::chrono::nanoseconds>(
                                         deadline_ - Clock::now())));
    timespec timeout{static_cast<time_t>(wait.count() / 1000000000),
                     static_cast<long>(wait.count() % 1000000000)};
    const int sig = sigtimedwait(&watched_, nullptr, &timeout);
    if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
      if (stopping_) {
        deadline_ = Clock::now();  // a second signal: no more grace
      } else {
        forwarded_ = sig;
      }
      stop(sig);
    }
  }

  const LaunchPlan& plan_;
  sigset_t watched_, original_mask_;
  std::vector<Rank> ranks_;
  const Rank* failed_ = nullptr;
  int failed_status_ = 0;
  int forwarded_ = 0;  // the signal forwarded to the ranks; 0: none
  bool stopping_ = false, killed_ = false, stopped_others_ = false;
  Clock::time_point deadline_;
};

}  // namespace

std::string describe_signal(int sig) {
  const char* description = strsignal(sig);
  std::string name;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
  if (const char* abbrev = sigabbrev_np(sig)) name = std::string("SIG") + abbrev;
#endif
  if (name.empty()) name = "signal " + std::to_string(sig);
  return description ? name + " (" + description + ")" : name;
}

int run_ranks(const LaunchPlan& plan, const std::vector<std::string>& inherited,
              int threads_per_rank) {
  Supervisor supervisor(plan);
  if (const int error = supervisor.start(inherited, threads_per_rank); error != 0) {
    supervisor.supervise();  // the ranks already started, stopped
    return error == ENOENT ? 127 : 126;
  }
  return supervisor.supervise();
}

}  // namespace ember::distributed::launcher
