// Data-parallel training of the sample model (design.md §8) on this
// machine's cores: one process with 2 threads on batch 64 against 2 ranks
// with 1 thread each on batch 32 (DistributedDataParallel over Gloo on
// 127.0.0.1, global batch 64), and allreduce time and bus bandwidth over 2
// ranks from 1 KiB to 64 MiB of float32. A step is zero_grad, forward,
// cross-entropy, backward (with the bucketed allreduce) and Adam.
//
// Every configuration runs in fresh processes started from this program
// (posix_spawn of /proc/self/exe with RANK, WORLD_SIZE, MASTER_ADDR,
// MASTER_PORT and EMBER_NUM_THREADS set), round after round: ember single,
// ember DDP, then PyTorch's single and DDP from ddp_step_torch.py when the
// Python has torch, so drift of the shared host hits all of them alike; the
// ratios are taken within each round.
// --breakdown adds two ember rows to each round: the 2 ranks' step with no
// DDP at all (each process alone on its half batch), and DDP without the
// broadcast of the buffers before each forward.
// --bucket-cap-mb sets DDP's bucket cap (25; the first bucket is 1 MiB or
// the cap if smaller), and the row then counts every bucket's allreduce.
//   ddp_step [--rounds 3] [--steps 40] [--batch 64] [--ar-max-mib 64] [--breakdown] [--bucket-cap-mb 25]
//            [--python /usr/bin/python3] [--torch-script PATH] [--no-torch]
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <ember/distributed/distributed.h>
#include <ember/distributed/distributed_data_parallel.h>
#include <ember/ember.h>

#include "model.h"

extern char** environ;

namespace {

namespace dist = ember::distributed;

double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

// The q-th quantile (0..1) of v, nearest rank below.
double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(q * double(v.size())))];
}

struct Options {
  int rounds = 3, steps = 40;
  int64_t batch = 64;  // global: each of the 2 ranks takes half
  int64_t ar_max_mib = 64;
  double bucket_cap_mb = 25;  // DDP's; the model's 0.46 MB of gradients fit its first bucket (1 MiB)
  std::string python = "/usr/bin/python3";
#ifdef EMBER_DDP_TORCH_SCRIPT
  std::string torch_script = EMBER_DDP_TORCH_SCRIPT;
#else
  std::string torch_script;
#endif
  bool torch = true;
  bool breakdown = false;  // also 2 ranks without DDP, and DDP without the buffers' broadcast
  std::string role;  // set in the processes this program starts
};

// ---- what the started processes print, and the parent reads back ----------
//   @ step MEDIAN P10 P90 FWD BWD OPT COMM EXPOSED   (ms; COMM, EXPOSED: DDP only)
//   @ ar BYTES MICROSECONDS
// ddp_step_torch.py prints the same lines.

struct StepFigures {
  double median = 0, p10 = 0, p90 = 0, fwd = 0, bwd = 0, opt = 0, comm = 0, exposed = 0;
};

// ---- the roles: one configuration in one process ---------------------------

// S timed steps after a warm-up; the step of rank 0 when distributed (the
// collectives keep the ranks in step).
template <typename Forward>
StepFigures time_steps(train::Net& model, Forward&& forward, int64_t batch, int steps, int seed,
                       const std::function<std::pair<double, double>()>& trace) {
  namespace F = ember::nn::functional;
  ember::optim::Adam adam(model->parameters(), ember::optim::AdamOptions(1e-3));
  ember::manual_seed(100 + seed);
  const ember::Tensor x = ember::randn({batch, 3, 32, 32});
  const ember::Tensor y = ember::randint(0, 10, {batch});
  std::vector<double> step, fwd, bwd, opt, comm, exposed;
  for (int i = -5; i < steps; ++i) {
    const double t0 = now_ms();
    adam.zero_grad();
    const ember::Tensor loss = F::cross_entropy(forward(x), y);
    const double t1 = now_ms();
    loss.backward();
    const double t2 = now_ms();
    adam.step();
    (void)loss.item<float>();
    const double t3 = now_ms();
    if (i < 0) continue;
    step.push_back(t3 - t0);
    fwd.push_back(t1 - t0);
    bwd.push_back(t2 - t1);
    opt.push_back(t3 - t2);
    const auto [c, e] = trace();
    comm.push_back(c);
    exposed.push_back(e);
  }
  return {quantile(step, 0.5), quantile(step, 0.1), quantile(step, 0.9), quantile(fwd, 0.5),
          quantile(bwd, 0.5),  quantile(opt, 0.5),  quantile(comm, 0.5), quantile(exposed, 0.5)};
}

void print_step(const StepFigures& f) {
  std::printf("@ step %.4f %.4f %.4f %.4f %.4f %.4f %.4f %.4f\n", f.median, f.p10, f.p90, f.fwd, f.bwd,
              f.opt, f.comm, f.exposed);
}

int run_single(const Options& o) {
  ember::manual_seed(1);
  train::Net model(3);
  print_step(time_steps(model, [&](const ember::Tensor& x) { return model(x); }, o.batch, o.steps, 0,
                        [] { return std::pair(0.0, 0.0); }));
  return 0;
}

// --breakdown: 2 processes side by side, each its half batch on 1 thread,
// with no collective: what 2 ranks cost before any communication.
int run_alone(const Options& o) {
  ember::manual_seed(1);
  train::Net model(3);
  print_step(time_steps(model, [&](const ember::Tensor& x) { return model(x); }, o.batch / 2, o.steps,
                        std::atoi(std::getenv("RANK")), [] { return std::pair(0.0, 0.0); }));
  return 0;
}

int run_ddp_rank(const Options& o, bool broadcast_buffers) {
  dist::init_process_group("gloo");  // env://
  const int rank = dist::get_rank(), world = dist::get_world_size();
  ember::manual_seed(1);
  train::Net model(3);
  ember::nn::parallel::DistributedDataParallel ddp(
      model, ember::nn::parallel::DistributedDataParallelOptions()
                 .broadcast_buffers(broadcast_buffers)
                 .bucket_cap_mb(o.bucket_cap_mb));
  // The trace's times are steady-clock nanoseconds: the buckets' allreduce
  // time, and how much of it came after the last backward node (not hidden).
  auto trace = [&] {
    const auto& t = ddp.last_step_trace();
    int64_t busy = 0, last_end = t.backward_end_ns;
    for (const auto& b : t.buckets) {
      busy += b.end_ns - b.start_ns;
      last_end = std::max(last_end, b.end_ns);
    }
    return std::pair(double(busy) * 1e-6, double(last_end - t.backward_end_ns) * 1e-6);
  };
  const StepFigures f = time_steps(
      model, [&](const ember::Tensor& x) { return ddp(x); }, o.batch / world, o.steps, rank, trace);
  if (rank == 0) print_step(f);
  dist::destroy_process_group();
  return 0;
}

int run_allreduce_rank(const Options& o) {
  dist::init_process_group("gloo");
  const int rank = dist::get_rank();
  for (int64_t bytes = 1024; bytes <= o.ar_max_mib << 20; bytes *= 4) {
    ember::Tensor t = ember::ones({bytes / 4});
    // Both ranks derive the same count: about 256 MiB moved per size.
    const int reps = int(std::clamp<int64_t>((int64_t(256) << 20) / bytes, 5, 200));
    for (int i = 0; i < 3; ++i) dist::all_reduce(t);
    dist::barrier();
    std::vector<double> us;
    for (int i = 0; i < reps; ++i) {
      const double t0 = now_ms();
      dist::all_reduce(t);
      us.push_back((now_ms() - t0) * 1e3);
    }
    if (rank == 0) std::printf("@ ar %lld %.3f\n", (long long)bytes, quantile(us, 0.5));
  }
  dist::destroy_process_group();
  return 0;
}

// ---- the parent: starting the configurations and reading them back ---------

int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    std::perror("free_port");
    std::exit(1);
  }
  close(fd);
  return ntohs(addr.sin_port);
}

struct Child {
  pid_t pid = -1;
  std::string output_path;
};

// argv[0] is the program; extra_env entries ("NAME=value") replace inherited ones.
Child spawn(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
            const std::string& output_path) {
  std::vector<std::string> env_strings = extra_env;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    const bool replaced = std::any_of(extra_env.begin(), extra_env.end(),
                                      [&](const std::string& x) { return x.rfind(name + "=", 0) == 0; });
    if (!replaced) env_strings.push_back(entry);
  }
  std::vector<char*> args, envp;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const auto& e : env_strings) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, output_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  Child child{-1, output_path};
  const int rc = posix_spawn(&child.pid, argv[0].c_str(), &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    std::fprintf(stderr, "cannot start %s: %s\n", argv[0].c_str(), std::strerror(rc));
    std::exit(1);
  }
  return child;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Waits for all of them (killing them all after 10 minutes); on a failure,
// prints every output and exits. Returns the first one's output.
std::string wait_all(const std::vector<Child>& children, const std::string& what) {
  const double deadline = now_ms() + 600e3;
  std::vector<int> status(children.size(), -1);
  std::vector<bool> done(children.size(), false);
  bool failed = false;
  while (std::count(done.begin(), done.end(), false) > 0) {
    for (size_t i = 0; i < children.size(); ++i) {
      if (done[i]) continue;
      if (waitpid(children[i].pid, &status[i], WNOHANG) == children[i].pid) {
        done[i] = true;
        if (!WIFEXITED(status[i]) || WEXITSTATUS(status[i]) != 0) failed = true;
      }
    }
    if (failed || now_ms() > deadline) {
      failed = true;
      for (size_t i = 0; i < children.size(); ++i)
        if (!done[i]) kill(children[i].pid, SIGKILL);
      for (size_t i = 0; i < children.size(); ++i)
        if (!done[i]) waitpid(children[i].pid, &status[i], 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (failed) {
    std::fprintf(stderr, "%s failed:\n", what.c_str());
    for (const auto& c : children) std::fprintf(stderr, "--- %s\n%s", c.output_path.c_str(), slurp(c.output_path).c_str());
    std::exit(1);
  }
  std::string out = slurp(children[0].output_path);
  for (const auto& c : children) std::filesystem::remove(c.output_path);
  return out;
}

std::vector<std::vector<double>> parse(const std::string& output, const std::string& kind) {
  std::vector<std::vector<double>> rows;
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string at, k;
    if (!(words >> at >> k) || at != "@" || k != kind) continue;
    std::vector<double> row;
    for (double v; words >> v;) row.push_back(v);
    rows.push_back(row);
  }
  return rows;
}

class Runner {
 public:
  explicit Runner(const Options& o) : o_(o) {
    char buf[4096];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    self_ = std::string(buf, size_t(std::max<ssize_t>(n, 0)));
    tmp_ = (std::filesystem::temp_directory_path() / ("ddp_step." + std::to_string(getpid()))).string();
  }

  std::string ember_single() {
    return wait_all({spawn(self_args("single"), {"EMBER_NUM_THREADS=2"}, tmp_ + ".single")}, "ember single");
  }
  // role: ddp, ddp-no-buffers, alone or allreduce.
  std::string ember_ranks(const std::string& role) {
    const std::string port = std::to_string(free_port());
    std::vector<Child> ranks;
    for (int r = 0; r < 2; ++r)
      ranks.push_back(spawn(self_args(role),
                            {"RANK=" + std::to_string(r), "LOCAL_RANK=" + std::to_string(r), "WORLD_SIZE=2",
                             "MASTER_ADDR=127.0.0.1", "MASTER_PORT=" + port, "EMBER_NUM_THREADS=1"},
                            tmp_ + "." + role + std::to_string(r)));
    return wait_all(ranks, "ember " + role);
  }
  std::string torch(const std::string& mode) {
    return wait_all({spawn({o_.python, o_.torch_script, mode, "--steps", std::to_string(o_.steps), "--batch",
                            std::to_string(o_.batch), "--ar-max-mib", std::to_string(o_.ar_max_mib)},
                           {}, tmp_ + ".torch")},
                    "pytorch " + mode);
  }

 private:
  std::vector<std::string> self_args(const std::string& role) {
    return {self_, "--role", role, "--steps", std::to_string(o_.steps), "--batch", std::to_string(o_.batch),
            "--ar-max-mib", std::to_string(o_.ar_max_mib), "--bucket-cap-mb", std::to_string(o_.bucket_cap_mb)};
  }
  Options o_;
  std::string self_, tmp_;
};

bool python_has_torch(const Options& o) {
  if (!o.torch || o.torch_script.empty() || !std::filesystem::exists(o.torch_script)) return false;
  const std::string cmd = o.python + " -c 'import torch.distributed' >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0;
}

StepFigures step_of(const std::string& output, const std::string& what) {
  const auto rows = parse(output, "step");
  if (rows.empty() || rows[0].size() < 8) {
    std::fprintf(stderr, "%s printed no step figures:\n%s", what.c_str(), output.c_str());
    std::exit(1);
  }
  const auto& r = rows[0];
  return {r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]};
}

void print_row(const char* who, const char* config, const StepFigures& f, bool ddp) {
  std::printf("  %-8s %-40s step %6.2f ms (p10 %6.2f, p90 %6.2f) | fwd %5.2f  bwd %5.2f  adam %5.2f", who, config,
              f.median, f.p10, f.p90, f.fwd, f.bwd, f.opt);
  if (ddp && f.comm > 0) std::printf(" | allreduce %5.2f, after backward %5.2f", f.comm, f.exposed);
  std::printf("\n");
}

int run_parent(const Options& o) {
  Runner runner(o);
  const bool with_torch = python_has_torch(o);
  const std::string single = "1 process x 2 threads, batch " + std::to_string(o.batch);
  const std::string ranks = "2 ranks x 1 thread, batch " + std::to_string(o.batch / 2);
  std::printf("sample model, input 3x32x32, global batch %lld, Adam, median of %d steps per round, %d rounds%s\n",
              (long long)o.batch, o.steps, o.rounds,
              with_torch ? "" : " (no PyTorch: --no-torch, or the Python lacks torch)");
  std::map<std::string, std::vector<double>> medians;  // per configuration, one per round
  std::vector<std::string> ratio_lines;
  for (int round = 1; round <= o.rounds; ++round) {
    std::printf("round %d\n", round);
    const StepFigures es = step_of(runner.ember_single(), "ember single");
    print_row("ember", single.c_str(), es, false);
    const StepFigures ed = step_of(runner.ember_ranks("ddp"), "ember ddp");
    print_row("ember", ranks.c_str(), ed, true);
    medians["ember single"].push_back(es.median);
    medians["ember ddp"].push_back(ed.median);
    if (o.breakdown) {
      const StepFigures alone = step_of(runner.ember_ranks("alone"), "ember alone");
      print_row("ember", (ranks + ", no DDP").c_str(), alone, false);
      const StepFigures nobuf = step_of(runner.ember_ranks("ddp-no-buffers"), "ember ddp-no-buffers");
      print_row("ember", (ranks + ", no buffers").c_str(), nobuf, true);
      medians["ember 2 ranks, no DDP"].push_back(alone.median);
      medians["ember ddp, no buffers"].push_back(nobuf.median);
    }
    char line[256];
    std::snprintf(line, sizeof line, "  round %d: ember DDP / single %.3f (overhead %+.1f%%)", round,
                  ed.median / es.median, (ed.median / es.median - 1) * 100);
    std::string ratios = line;
    if (with_torch) {
      const StepFigures ts = step_of(runner.torch("single"), "pytorch single");
      print_row("pytorch", single.c_str(), ts, false);
      const StepFigures td = step_of(runner.torch("ddp"), "pytorch ddp");
      print_row("pytorch", ranks.c_str(), td, true);
      medians["pytorch single"].push_back(ts.median);
      medians["pytorch ddp"].push_back(td.median);
      std::snprintf(line, sizeof line, "; ember DDP / PyTorch DDP %.3f; PyTorch DDP / single %.3f (%+.1f%%)",
                    ed.median / td.median, td.median / ts.median, (td.median / ts.median - 1) * 100);
      ratios += line;
    }
    ratio_lines.push_back(ratios);
  }
  std::printf("ratios, each within its round (goals: ember DDP / PyTorch DDP <= 0.8, overhead <= 15%%)\n");
  for (const auto& l : ratio_lines) std::printf("%s\n", l.c_str());
  std::printf("median over the rounds:");
  for (const auto& [name, v] : medians) std::printf("  %s %.2f ms", name.c_str(), quantile(v, 0.5));
  std::printf("\n");

  // Allreduce: both frameworks once per round, alternating, median over the rounds.
  std::map<int64_t, std::vector<double>> ember_us, torch_us;
  for (int round = 1; round <= o.rounds; ++round) {
    for (const auto& r : parse(runner.ember_ranks("allreduce"), "ar")) ember_us[int64_t(r[0])].push_back(r[1]);
    if (with_torch)
      for (const auto& r : parse(runner.torch("allreduce"), "ar")) torch_us[int64_t(r[0])].push_back(r[1]);
  }
  std::printf("allreduce, 2 ranks on 127.0.0.1, float32 SUM, median over %d rounds (busbw = algbw x 2(n-1)/n)\n",
              o.rounds);
  std::printf("  %11s | %12s %12s | %13s %12s\n", "size", "ember us", "busbw GB/s", "gloo/torch us", "busbw GB/s");
  const int n = 2;
  auto busbw = [&](int64_t bytes, double us) { return double(bytes) / (us * 1e-6) * 2 * (n - 1) / n / 1e9; };
  for (const auto& [bytes, v] : ember_us) {
    const double us = quantile(v, 0.5);
    std::printf("  %7lld KiB | %12.1f %12.3f |", (long long)(bytes >> 10), us, busbw(bytes, us));
    if (torch_us.count(bytes)) {
      const double tus = quantile(torch_us[bytes], 0.5);
      std::printf(" %13.1f %12.3f", tus, busbw(bytes, tus));
    }
    std::printf("\n");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", flag.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (flag == "--rounds") o.rounds = std::atoi(value().c_str());
    else if (flag == "--steps") o.steps = std::atoi(value().c_str());
    else if (flag == "--batch") o.batch = std::atoll(value().c_str());
    else if (flag == "--ar-max-mib") o.ar_max_mib = std::atoll(value().c_str());
    else if (flag == "--bucket-cap-mb") o.bucket_cap_mb = std::atof(value().c_str());
    else if (flag == "--python") o.python = value();
    else if (flag == "--torch-script") o.torch_script = value();
    else if (flag == "--no-torch") o.torch = false;
    else if (flag == "--breakdown") o.breakdown = true;
    else if (flag == "--role") o.role = value();
    else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  if (o.role.empty()) return run_parent(o);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  if (o.role == "single") return run_single(o);
  if (o.role == "ddp") return run_ddp_rank(o, true);
  if (o.role == "ddp-no-buffers") return run_ddp_rank(o, false);
  if (o.role == "alone") return run_alone(o);
  if (o.role == "allreduce") return run_allreduce_rank(o);
  std::fprintf(stderr, "unknown role %s\n", o.role.c_str());
  return 2;
}
