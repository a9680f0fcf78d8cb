#include <cerrno>
#include <cstdlib>
#include <limits>

#include "ember/core/error.h"
#include "ember/distributed/init_methods.h"

namespace ember::distributed {

namespace {

const char* lookup(const EnvLookup& getenv, const char* name) {
  return getenv ? getenv(name) : std::getenv(name);
}

std::string required(const EnvLookup& getenv, const char* name) {
  const char* value = lookup(getenv, name);
  EMBER_CHECK(value != nullptr && *value != '\0', "init_process_group(env://): the environment variable ",
              name, " is not set (ember-run and torchrun set MASTER_ADDR, MASTER_PORT, RANK, "
              "WORLD_SIZE; or pass world_size and rank, or use a file:// init method)");
  return value;
}

int64_t parse_integer(const char* name, const std::string& text, int64_t low, int64_t high) {
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  EMBER_CHECK(errno == 0 && end != text.c_str() && *end == '\0' && value >= low && value <= high,
              "init_process_group(env://): ", name, "='", text, "' is not an integer in [", low, ", ",
              high, "]");
  return value;
}

}  // namespace

EnvConfig parse_env_config(int world_size, int rank, const EnvLookup& getenv) {
  constexpr int64_t kMaxInt = std::numeric_limits<int>::max();
  EnvConfig config;
  config.master_addr = required(getenv, "MASTER_ADDR");
  config.master_port =
      static_cast<uint16_t>(parse_integer("MASTER_PORT", required(getenv, "MASTER_PORT"), 1, 65535));
  config.world_size = world_size > 0
                          ? world_size
                          : static_cast<int>(parse_integer("WORLD_SIZE", required(getenv, "WORLD_SIZE"), 1, kMaxInt));
  config.rank = rank >= 0 ? rank
                          : static_cast<int>(parse_integer("RANK", required(getenv, "RANK"), 0, kMaxInt));
  EMBER_CHECK(config.rank < config.world_size, "init_process_group(env://): rank ", config.rank,
              " is not below the world size ", config.world_size);
  const char* local = lookup(getenv, "LOCAL_RANK");
  config.local_rank = local != nullptr && *local != '\0'
                          ? static_cast<int>(parse_integer("LOCAL_RANK", local, 0, kMaxInt))
                          : config.rank;
  return config;
}

}  // namespace ember::distributed
