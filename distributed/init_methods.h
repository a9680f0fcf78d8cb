#pragma once
// What init_process_group's init methods need besides the process group:
// env:// read from the environment (a plain function, tested without a
// store), the store each method rendezvous through, and the address a rank
// listens on. Internal to distributed/ (and its tests).
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace gloo::rendezvous {
class Store;
}

namespace ember::distributed {

// env://, as torchrun sets it: MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE,
// LOCAL_RANK (optional: the rank when absent, as on one machine).
struct EnvConfig {
  std::string master_addr;
  uint16_t master_port = 0;
  int rank = -1;
  int world_size = -1;
  int local_rank = -1;
};

// Reads the variables through `getenv` (std::getenv by default); a world_size
// or rank >= 0 overrides its variable, which then need not be set. A missing
// or malformed variable raises an Error naming it.
using EnvLookup = std::function<const char*(const char*)>;
EnvConfig parse_env_config(int world_size, int rank, const EnvLookup& getenv = {});

// The TCP store on MASTER_ADDR:MASTER_PORT, served by rank 0 (init_env.cpp).
std::shared_ptr<gloo::rendezvous::Store> make_env_store(const EnvConfig& config,
                                                        std::chrono::milliseconds timeout);

// The address this machine reaches `host` from: the one to listen on so that
// the other machines reach it. Loopback for a loopback `host`.
std::string local_address_towards(const std::string& host);

}  // namespace ember::distributed
