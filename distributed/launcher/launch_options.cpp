#include "ember/distributed/launcher/launch_options.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <functional>
#include <optional>

namespace ember::distributed::launcher {

namespace {

// A whole-string decimal integer in [lo, hi].
std::optional<int> parse_int(const std::string& text, long lo, long hi) {
  if (text.empty() || text[0] == ' ') return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || v < lo || v > hi) return std::nullopt;
  return static_cast<int>(v);
}

struct Option {
  const char* name;        // --nproc-per-node
  const char* underscore;  // --nproc_per_node (torchrun accepts both), or null
  // Stores the value; returns an error message, empty when the value is good.
  std::function<std::string(LaunchPlan&, const std::string&)> set;
};

std::string bad(const char* name, const std::string& value, const char* want) {
  return std::string(name) + " must be " + want + ", got '" + value + "'";
}

const std::vector<Option>& options() {
  static const std::vector<Option> table = {
      {"--nproc-per-node", "--nproc_per_node",
       [](LaunchPlan& p, const std::string& v) {
         auto n = parse_int(v, 1, 1 << 16);
         if (!n) return bad("--nproc-per-node", v, "an integer from 1 to 65536");
         p.nproc_per_node = *n;
         return std::string();
       }},
      {"--nnodes", nullptr,
       [](LaunchPlan& p, const std::string& v) {
         auto n = parse_int(v, 1, 1 << 16);
         if (!n) return bad("--nnodes", v, "an integer from 1 to 65536");
         p.nnodes = *n;
         return std::string();
       }},
      {"--node-rank", "--node_rank",
       [](LaunchPlan& p, const std::string& v) {
         auto n = parse_int(v, 0, (1 << 16) - 1);
         if (!n) return bad("--node-rank", v, "an integer from 0 to 65535");
         p.node_rank = *n;
         return std::string();
       }},
      {"--master-addr", "--master_addr",
       [](LaunchPlan& p, const std::string& v) {
         if (v.empty()) return std::string("--master-addr must not be empty");
         p.master_addr = v;
         return std::string();
       }},
      {"--master-port", "--master_port",
       [](LaunchPlan& p, const std::string& v) {
         auto n = parse_int(v, 1, 65535);
         if (!n) return bad("--master-port", v, "a port from 1 to 65535");
         p.master_port = *n;
         return std::string();
       }},
      {"--grace-seconds", "--grace_seconds",
       [](LaunchPlan& p, const std::string& v) {
         errno = 0;
         char* end = nullptr;
         const double s = std::strtod(v.c_str(), &end);
         if (v.empty() || errno != 0 || *end != '\0' || !(s >= 0 && s <= 86400))
           return bad("--grace-seconds", v, "a number of seconds from 0 to 86400");
         p.grace_seconds = s;
         return std::string();
       }},
  };
  return table;
}

const Option* find_option(const std::string& name) {
  for (const Option& o : options())
    if (name == o.name || (o.underscore && name == o.underscore)) return &o;
  return nullptr;
}

ParsedArgs error(std::string message) {
  ParsedArgs r;
  r.outcome = ParsedArgs::Outcome::kError;
  r.message = std::move(message);
  return r;
}

}  // namespace

ParsedArgs parse_launch_args(const std::vector<std::string>& args) {
  ParsedArgs result;
  LaunchPlan& plan = result.plan;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') break;  // PROGRAM ("-" alone too)
    if (arg == "--help" || arg == "-h") {
      result.outcome = ParsedArgs::Outcome::kHelp;
      return result;
    }
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    const Option* option = find_option(name);
    if (!option) return error("unknown option " + name);
    std::string value;
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return error(name + " needs a value");
    }
    if (std::string message = option->set(plan, value); !message.empty()) return error(message);
  }
  plan.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  if (plan.command.empty()) return error("no PROGRAM to run");
  if (plan.node_rank >= plan.nnodes)
    return error("--node-rank " + std::to_string(plan.node_rank) + " must be below --nnodes " +
                 std::to_string(plan.nnodes));
  if (static_cast<long long>(plan.nproc_per_node) * plan.nnodes > INT_MAX)
    return error("--nproc-per-node times --nnodes is too large a world size");
  return result;
}

std::string launch_usage() {
  return R"(usage: ember-run [OPTIONS] PROGRAM [ARGS...]

Starts --nproc-per-node copies of PROGRAM on this node, one per rank, with the
variables of torchrun's env:// rendezvous in their environment: MASTER_ADDR,
MASTER_PORT, WORLD_SIZE, RANK, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK.

options (--name value or --name=value; underscores as torchrun's also accepted):
  --nproc-per-node N   ranks on this node (default 1)
  --nnodes M           nodes in the job (default 1)
  --node-rank R        this node's index, 0..M-1 (default 0); RANK = R*N + local rank
  --master-addr A      address of rank 0's node (default 127.0.0.1)
  --master-port P      port of rank 0's store (default 29500)
  --grace-seconds S    after a failure, how long the other ranks get to exit
                       on SIGTERM before SIGKILL (default 5)
  -h, --help           this text

When a rank exits non-zero or dies of a signal, ember-run sends SIGTERM to the
others, SIGKILL after the grace period, names the failed rank on stderr and
exits with its status (128 + the signal number if a signal killed it).
SIGINT, SIGTERM and SIGHUP sent to ember-run are forwarded to every rank.
Exit codes: 0 all ranks succeeded; 2 bad arguments; 126/127 PROGRAM could not
be started / was not found. See docs/launcher.md.
)";
}

}  // namespace ember::distributed::launcher
